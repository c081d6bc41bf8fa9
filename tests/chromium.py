"""The machine's Chromium and the flags every headless run uses (the suite, the benches and the
package check): no GPU, no sandbox, and nothing sent out (no background networking, component
updates or sync)."""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
