"""The script Streamlit runs: `leakeval app` starts it from the installed package."""

from leakeval_app.main import run

run()
