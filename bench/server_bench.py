"""One `leakeval app` served to several users at once: blocking, cold starts, memory.

Why: a lab serves leakeval to colleagues, several browsers on one server (issue #37). Tried by
hand, a cheap page switch took 4.8-8.0 s while another session computed something cold, six
cold users used one core, a 40 MB upload held ~130 MB until its session expired, a missing
fold flipped the Story's headline and an unwritable cache gave a traceback. This bench
measures each of those on a fresh server, so a fix can show its effect.

Every scenario starts its own `leakeval app` (tests/app/test_browser.py's `start_app`: the
CLI, which turns usage stats off and binds 127.0.0.1) on a fresh copy of the demo, generated
once per invocation, and an empty cache folder (`LEAKEVAL_CACHE`). Users are headless
Chromium (/usr/bin/chromium, tests/chromium.py's flags), one per thread, since Playwright's
sync API belongs to the thread that started it; page switches are page_switch_bench's
`visit` (a sidebar click, timed in the page until the rerun is over and drawn).

Server time without a browser comes from a direct client: a session that speaks Streamlit's
own protocol (protobuf BackMsg/ForwardMsg over the websocket at /_stcore/stream), timed from
its rerun request to the server's script_finished message. It is also what keeps the server
busy in `blocking` and `cold` where the other session's rendering is not what is measured:
on this one machine a second browser's drawing would take CPU from the server that, in the
lab, runs on the colleague's own computer. A Streamlit session applies a URL's query string
on its first run only (later runs keep the session's view), so each cold request is a new
session. Waits are on state (the page's script state, a heading, the server's
script_finished frame); the only sleeps are sampling intervals.

Scenarios (`--scenario NAME`, repeatable; all by default):
- blocking: a cheap page switch (Story <-> Dataset browser) in browser B alone, then while
  another session keeps the server rescoring cold (`?depth=20`, 21, ...: each depth rescores
  every run); the same for a direct client's switch. Target: ratio <= 1.5.
- cold: the Story's first visit on a fresh server and empty cache, one user against `--users`
  at once, with the same URL and with a different `?depth=`/`measure=` each; browsers and
  direct clients; server CPU (psutil: user+system of the server process, all its threads and
  children) against wall time. Target: slowest of many / one <= 3.5.
- soak: `--users` browsers make `--visits` page visits in all, round-robin over the sidebar's
  pages; server RSS every `--rss-every` visits; errors are exceptions or "Traceback" on a
  page, or a visit that failed. Target: RSS at the end within 15% of RSS at visit 100.
- uploads: `--uploaders` browsers each upload a synthetic `--upload-mb` MB run (the demo's
  Robust04 topics) on the Dataset browser, then close their tabs; server RSS every 0.5 s until
  it is back within 10% of the pre-upload baseline, or `--release-timeout`. Reports the
  server's configured server.disconnectedSessionTTL (its flags, environment and config files,
  resolved by Streamlit's own loader in the server's folder and environment).

What a reader sees after a fault (a deleted or malformed fold, a cache that cannot be
written, a broken experiment.toml) is not timed: tests/app/test_browser_resilience.py and
test_file_changes.py hold it.

Run by hand on a quiet machine, all scenarios or one (each alone takes under 2 minutes on
two cores; `uploads` waits up to the session TTL + 180 s for memory that is not released):

    .venv/bin/python bench/server_bench.py                     # every scenario, 6 users
    .venv/bin/python bench/server_bench.py --scenario soak --users 6 --visits 900  # longer
    .venv/bin/python bench/server_bench.py --users 2 --visits 40 --rss-every 10 --reps 3 \\
        --uploaders 2 --upload-mb 5 --release-timeout 150 --out /tmp/server_bench.json  # smoke

Writes bench/results/server_bench.json (or `--out`); a scenario run alone replaces its own
entry and keeps the others', each with its date, parameters and the machine's cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import cycle
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psutil  # noqa: E402
import record  # noqa: E402
from page_switch_bench import visit  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from leakeval_app.page_list import PAGES as PAGE_LIST  # noqa: E402
from leakeval_app.page_list import url_path  # noqa: E402
from leakeval_core.evaluation.measures import DASHBOARD_MEASURES  # noqa: E402
from tests.app.test_browser import (  # noqa: E402
    HEADING,
    MAIN_CONTENT,
    PAGES,
    start_app,
    stop_app,
    wait_until_idle,
)
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

SCENARIOS = ("blocking", "cold", "soak", "uploads")
LONG = 900_000
"""Playwright's guard against a hang (ms), never a pass condition: a cold page under load
may take minutes on two cores."""
VIEWPORT = {"width": 1500, "height": 1000}
STORY = PAGES[0]
SWITCH = (PAGES[1], STORY)
"""The cheap page switch: Dataset browser and the Story, back and forth, both warm."""
DIRECT_PAGE = {title: url_path(path) for path, (title, _) in PAGE_LIST.items()}
"""A page's name in a direct client's rerun request (the landing page's URL path is empty)."""
TTL_OPTION = "server.disconnectedSessionTTL"
TARGETS = {
    "blocking": "cheap switch while another session computes cold <= 1.5 x alone",
    "cold": "slowest of the users' cold Story <= 3.5 x one user's",
    "soak": "server RSS at the end within 15% of RSS at visit 100; no errors",
    "uploads": "server RSS back within 10% of the pre-upload baseline once the tabs close",
}


# ---------------------------------------------------------------------------- the server


class ServerLog:
    """The server's output, read as it comes (an unread pipe would block a chatty server);
    the last lines are kept, and tracebacks counted."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.tail: deque[str] = deque(maxlen=200)
        self.tracebacks = 0
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for raw in stream:
            line = raw.decode(errors="replace").rstrip()
            self.tail.append(line)
            self.tracebacks += line.startswith("Traceback")


@dataclass
class Server:
    """A running `leakeval app`: its URL, the Streamlit process (the CLI's child) and log."""

    url: str
    process: psutil.Process
    log: ServerLog

    def _tree(self) -> list[psutil.Process]:
        return [self.process, *self.process.children(recursive=True)]

    def rss(self) -> int:
        """Resident memory in bytes, the server and any processes it started."""
        return sum(p.memory_info().rss for p in self._tree())

    def cpu(self) -> float:
        """CPU seconds so far, user and system, over all threads and child processes."""
        total = 0.0
        for p in self._tree():
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        return total


@contextmanager
def serving(data_root: Path, cache: Path) -> Iterator[Server]:
    proc, url = start_app(data_root, cache)
    log = ServerLog(proc)
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
        streamlit = next(p for p in children if "leakeval_app.serve" in p.cmdline())
        yield Server(url, streamlit, log)
    finally:
        stop_app(proc)


class Workspace:
    """The demo, generated once, and fresh copies of it, each with an empty cache folder."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="leakeval-server-bench-"))
        self.demo = self.tmp / "source" / "demo"
        command = [sys.executable, "-m", "leakeval_core.cli", "demo", "--out", str(self.demo)]
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        self._count = 0

    @contextmanager
    def server(self) -> Iterator[Server]:
        """A server on a new data root holding a copy of the demo, with an empty cache."""
        self._count += 1
        root = self.tmp / f"copy{self._count}"
        shutil.copytree(self.demo, root / "data" / "demo")
        (root / "cache").mkdir()
        with serving(root / "data", root / "cache") as server:
            yield server

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def session_ttl(server: Server) -> dict[str, Any]:
    """How long the server keeps a closed tab's session: TTL_OPTION as Streamlit resolves it
    from the server's own command line, environment and config files (run in its folder)."""
    flags = {}
    for arg in server.process.cmdline():
        name, _, value = arg.removeprefix("--").partition("=")
        if arg.startswith("--") and value and "." in name:
            flags[name] = value
    code = (
        "import json, sys\nfrom streamlit import config\n"
        "options = config.get_config_options(True, json.loads(sys.argv[1]))\n"
        "o = options[sys.argv[2]]\nprint(json.dumps({'value': o.value, 'set_in': o.where_defined}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(flags), TTL_OPTION],
        cwd=server.process.cwd(),
        env=server.process.environ(),
        capture_output=True,
        text=True,
    )
    if done.returncode:
        return {"option": TTL_OPTION, "error": done.stderr.strip().splitlines()[-1:]}
    return {"option": TTL_OPTION, **json.loads(done.stdout.strip().splitlines()[-1])}


# ------------------------------------------------------------------------- direct client


@dataclass
class Rerun:
    seconds: float
    exceptions: list[str]


class DirectSession:
    """One Streamlit session without a browser, over the server's websocket."""

    def __init__(self, websocket) -> None:
        self.websocket = websocket

    def run(self, page: str = "", query: str = "") -> Rerun:
        """Ask for a rerun of `page` (a URL path; "" is the Story) and wait for the server to
        finish it (a rerun it superseded itself, as st.rerun does, is waited through)."""
        request = BackMsg()
        request.rerun_script.page_name = page
        request.rerun_script.query_string = query
        start = time.perf_counter()
        self.websocket.send(request.SerializeToString())
        exceptions = []
        while True:
            message = ForwardMsg()
            message.ParseFromString(self.websocket.recv(timeout=LONG / 1000))
            kind = message.WhichOneof("type")
            if kind == "delta" and message.delta.new_element.WhichOneof("type") == "exception":
                exceptions.append(message.delta.new_element.exception.message)
            if (
                kind == "script_finished"
                and message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
            ):
                return Rerun(time.perf_counter() - start, exceptions)


@contextmanager
def direct_session(url: str) -> Iterator[DirectSession]:
    from websockets.sync.client import connect

    stream = url.replace("http://", "ws://", 1) + "/_stcore/stream"
    with connect(stream, subprotocols=["streamlit"], max_size=None, open_timeout=60) as ws:
        yield DirectSession(ws)


def direct_first_visit(url: str, query: str = "") -> Rerun:
    """A new session's first run of the Story at `query`, as a new tab on that URL."""
    with direct_session(url) as session:
        return session.run("", query)


class ColdLoad:
    """Another session keeping the server busy with cold work: new direct sessions open the
    Story at ?depth=N, N = first, first + 1, ... (each depth rescores every run), one after
    another until the block exits. `busy` is set while one is computing."""

    def __init__(self, url: str, first: int = 20) -> None:
        self.url, self.depth = url, first
        self.busy, self.done = threading.Event(), threading.Event()
        self.spans: list[tuple[float, float]] = []
        self.since: float | None = None
        """When the cold request in progress was sent (None between requests)."""
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._load, daemon=True)

    def __enter__(self) -> ColdLoad:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self._thread.join()
        if self.error is not None:
            raise self.error

    def _load(self) -> None:
        try:
            while not self.done.is_set():
                with direct_session(self.url) as session:
                    self.since = time.perf_counter()
                    self.busy.set()
                    session.run("", f"depth={self.depth}")
                    self.busy.clear()
                    self.spans.append((self.since, time.perf_counter()))
                    self.since = None
                    self.depth += 1
        except BaseException as exc:  # reported by __exit__ in the measuring thread
            self.error = exc
            self.busy.set()  # never leave the measuring thread waiting

    def computing_at(self, moment: float) -> bool:
        since = self.since
        in_progress = since is not None and since <= moment
        return in_progress or any(start <= moment <= end for start, end in self.spans)

    def seconds(self) -> list[float]:
        return [end - start for start, end in self.spans]


# ------------------------------------------------------------------------------ browsers


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium driven from the calling thread."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def together(count: int, work: Callable[[int, Any, threading.Barrier], Any], action=None):
    """Run `work(i, page, start)` for i < count, each in its own thread with its own
    Chromium; `work` calls `start.wait()` when ready, so the timed parts begin together
    (`action` runs once, as they are released). The results, in order."""
    start = threading.Barrier(count, action=action)

    def user(i: int) -> Any:
        try:
            with chromium() as browser:
                return work(i, browser.new_page(viewport=VIEWPORT), start)
        except BaseException:
            start.abort()  # the others would wait for this one forever
            raise

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(user, range(count)))


def open_story(page, url: str, query: str = "") -> float:
    """Open the Story at `query` in `page`: seconds until its headline and chart are drawn
    and the rerun is over."""
    start = time.perf_counter()
    page.goto(f"{url}/?{query}" if query else url)
    page.locator("h2", has_text=HEADING[STORY]).first.wait_for(timeout=LONG)
    page.locator(MAIN_CONTENT[STORY]).first.wait_for(timeout=LONG)
    wait_until_idle(page, timeout=LONG)
    return time.perf_counter() - start


SHOWN = """() => {
    const texts = (selector) => [...document.querySelectorAll(selector)].map((e) => e.innerText);
    return {
        exceptions: texts('[data-testid="stException"]'),
        notices: texts('[data-testid="stAlert"] [data-testid="stMarkdownContainer"]'),
        headings: texts('[data-testid="stMain"] h2, [data-testid="stMain"] h3'),
        traceback: document.body.innerText.includes('Traceback'),
    };
}"""
"""What a page shows: exception boxes, notices (error, warning, info: their text, not their
icon's name), the main headings."""


DRAWN = """() => [
    ...document.querySelectorAll('[data-testid="stAlert"], [data-testid="stException"]'),
].every((e) => e.innerText.trim())"""
"""Every notice and exception box has its text: a box's text can follow the rerun's end."""


def shown(page) -> dict[str, Any]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with suppress(PlaywrightTimeout):  # a box still empty then is recorded as such
        page.wait_for_function(DRAWN, timeout=10_000)
    seen = page.evaluate(SHOWN)
    headline = next((h for h in seen["headings"] if re.search(r"improves|worsens", h)), None)
    direction = re.search(r"improves|worsens", headline).group() if headline else None
    return {**seen, "headline": headline, "direction": direction}


# ----------------------------------------------------------------------------- scenarios


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def blocking(args, work: Workspace) -> dict[str, Any]:
    """A cheap switch in browser B and in a direct session, alone and during cold work."""
    with work.server() as server, chromium() as browser:
        page = browser.new_page(viewport=VIEWPORT)
        open_story(page, server.url)
        switch = switcher(lambda name: visit(page, name)[1])
        for _ in SWITCH:  # both pages warm
            switch()
        alone = [switch() for _ in range(args.reps)]
        with ColdLoad(server.url) as load:
            during = switches_during(load, args.reps, switch)
        with direct_session(server.url) as session:
            session.run()  # the Story, as a new tab's first run
            switch = switcher(lambda name: session.run(DIRECT_PAGE[name]).seconds)
            direct_alone = [switch() for _ in range(args.reps)]
            with ColdLoad(server.url, first=load.depth) as load2:
                direct_during = switches_during(load2, args.reps, switch)
    cold = load.seconds() + load2.seconds()
    result = {
        "switch": " <-> ".join(SWITCH),
        "browser_alone_seconds": alone,
        "browser_during_seconds": during,
        "direct_alone_seconds": direct_alone,
        "direct_during_seconds": direct_during,
        "cold_rescoring_seconds": cold,
        "browser_ratio": ratio(median(during), median(alone)),
        "direct_ratio": ratio(median(direct_during), median(direct_alone)),
    }
    print(
        f"blocking: browser switch median {median(alone):.3f} s alone, "
        f"{_s(median(during))} during cold work (x{_x(result['browser_ratio'])}); direct "
        f"{median(direct_alone):.3f} s vs {_s(median(direct_during))} "
        f"(x{_x(result['direct_ratio'])}); cold rescoring median {_s(median(cold))}"
    )
    return result


def switcher(switch_to: Callable[[str], float]) -> Callable[[], float]:
    """A cheap switch each call, from the Story to the Dataset browser and back: its time."""
    targets = cycle(SWITCH)
    return lambda: switch_to(next(targets))


def switches_during(load: ColdLoad, wanted: int, switch: Callable[[], float]) -> list[float]:
    """Times of `wanted` switches each started while `load` was computing (a switch that
    started in a gap between two cold requests is not counted; a few attempts more at most)."""
    times: list[float] = []
    for _ in range(4 * wanted):
        if len(times) == wanted:
            break
        load.busy.wait()
        started = time.perf_counter()
        seconds = switch()
        if load.computing_at(started):
            times.append(seconds)
    return times


def different_queries(count: int) -> list[str]:
    """A URL per user, each needing its own scoring: another depth, and another measure."""
    measures = list(DASHBOARD_MEASURES)
    return [f"depth={20 + 10 * i}&measure={measures[i % len(measures)]}" for i in range(count)]


def cold(args, work: Workspace) -> dict[str, Any]:
    """The Story's cold first visit: one user, then many, same and different settings."""
    queries = different_queries(args.users)
    settings = {"same settings": [""] * args.users, "different settings": queries}
    runs, ratios = {}, {}
    for client in ("browser", "direct"):
        for label, urls in settings.items():
            # one user on the first URL, then every user on theirs, each on a fresh server
            one = cold_visits(work, client, urls[:1])
            many = cold_visits(work, client, urls)
            runs[f"{client}, {label}"] = {"one user": one, f"{args.users} users": many}
            ratios[f"{client}, {label}"] = {
                "slowest": ratio(many["slowest_seconds"], one["slowest_seconds"]),
                "median": ratio(median(many["per_user_seconds"]), one["slowest_seconds"]),
            }
            print(
                f"cold, {client}, {label}: one user {one['slowest_seconds']:.2f} s; "
                f"{args.users} users {_seconds_list(many['per_user_seconds'])}, slowest "
                f"x{_x(ratios[f'{client}, {label}']['slowest'])}; server "
                f"{many['server_cpu_seconds']:.1f} s CPU in {many['server_wall_seconds']:.1f} s "
                f"wall ({many['cores_used']:.2f} cores)"
            )
    return {"different_queries": queries, "runs": runs, "ratios": ratios}


def cold_visits(work: Workspace, client: str, queries: list[str]) -> dict[str, Any]:
    """Each query opened by its own user at once, on a fresh server and empty cache."""
    clock: dict[str, float] = {}
    with work.server() as server:

        def release() -> None:
            clock["cpu"], clock["start"] = server.cpu(), time.perf_counter()

        if client == "direct":
            release()
            with ThreadPoolExecutor(max_workers=len(queries)) as pool:
                reruns = list(pool.map(lambda q: direct_first_visit(server.url, q), queries))
            seconds = [r.seconds for r in reruns]
        else:

            def user(i: int, page, start: threading.Barrier) -> float:
                start.wait()
                return open_story(page, server.url, queries[i])

            seconds = together(len(queries), user, action=release)
        wall = time.perf_counter() - clock["start"]
        cpu = server.cpu() - clock["cpu"]
    return {
        "per_user_seconds": seconds,
        "slowest_seconds": max(seconds),
        "server_wall_seconds": wall,
        "server_cpu_seconds": cpu,
        "cores_used": cpu / wall,
    }


def soak(args, work: Workspace) -> dict[str, Any]:
    """`--users` browsers, `--visits` page visits in all; RSS every `--rss-every` visits."""
    lock = threading.Lock()
    made = {"visits": 0}
    samples: list[dict[str, float]] = []
    errors: list[dict[str, Any]] = []
    times: list[float] = []
    share = [args.visits // args.users + (i < args.visits % args.users) for i in range(args.users)]
    with work.server() as server:
        began = {"cpu": server.cpu(), "wall": time.perf_counter()}

        def user(i: int, page, start: threading.Barrier) -> None:
            open_story(page, server.url)
            start.wait()
            for n in range(share[i]):
                # users start on the Story and go on from different pages, never the one
                # already on screen
                name = PAGES[(i % (len(PAGES) - 1) + 1 + n) % len(PAGES)]
                seen, seconds = soak_visit(page, name, args.settle)
                with lock:
                    made["visits"] += 1
                    if seen is None or "failed" not in seen:
                        times.append(seconds)
                    if seen:
                        errors.append({"user": i, "visit": made["visits"], "page": name, **seen})
                    if made["visits"] % args.rss_every == 0:
                        samples.append({"visit": made["visits"], "rss_mb": server.rss() / 1e6})

        together(args.users, user)
        samples.append({"visit": made["visits"], "rss_mb": server.rss() / 1e6})
        cpu, wall = server.cpu() - began["cpu"], time.perf_counter() - began["wall"]
        server_tracebacks = server.log.tracebacks
    reference = next((s for s in samples if s["visit"] >= 100), samples[0])
    result = {
        "visits": made["visits"],
        "rss_samples": samples,
        "rss_reference": reference,
        "rss_end_mb": samples[-1]["rss_mb"],
        "rss_ratio_end_to_reference": samples[-1]["rss_mb"] / reference["rss_mb"],
        "errors": len(errors),
        "error_examples": errors[:10],
        "server_log_tracebacks": server_tracebacks,
        "visit_seconds": {
            "median": median(times),
            "p90": statistics.quantiles(times, n=10)[-1] if len(times) > 1 else None,
            "max": max(times, default=None),
        },
        "server_cpu_seconds": cpu,
        "wall_seconds": wall,
        "cores_used": cpu / wall,
    }
    print(
        f"soak: {made['visits']} visits, RSS {reference['rss_mb']:.0f} MB at visit "
        f"{reference['visit']} -> {result['rss_end_mb']:.0f} MB at the end "
        f"(x{result['rss_ratio_end_to_reference']:.2f}); {len(errors)} errors; visit median "
        f"{_s(median(times))}, max {_s(max(times, default=None))}; {cpu:.0f} s CPU in {wall:.0f} s"
    )
    return result


def soak_visit(page, name: str, settle: float) -> tuple[dict[str, Any] | None, float]:
    """One visit: what went wrong (None if nothing) and the in-page seconds it took."""
    try:
        seconds = visit(page, name, settle)[1]
    except Exception as exc:
        return {"failed": f"{type(exc).__name__}: {str(exc)[:300]}"}, float("nan")
    seen = shown(page)
    if not (seen["exceptions"] or seen["traceback"]):
        return None, seconds
    return {
        "exceptions": [e[:300] for e in seen["exceptions"]],
        "traceback": seen["traceback"],
    }, seconds


def synthetic_run(path: Path, qids: list[str], megabytes: float, tag: str) -> Path:
    """A TREC run of about `megabytes` MB over `qids`, with the demo's document names
    (SIM-<qid>-<n>, so the top ones are judged) and scores falling with rank."""
    line = "{qid} Q0 SIM-{qid}-{rank:04d} {rank} {score:.4f} {tag}\n"
    size = len(line.format(qid=qids[0], rank=1000, score=99.0, tag=tag))
    per_query = max(1, int(megabytes * 1e6 / (size * len(qids))))
    with path.open("w") as out:
        for qid in qids:
            out.writelines(
                line.format(qid=qid, rank=r, score=100 - r / per_query, tag=tag)
                for r in range(1, per_query + 1)
            )
    return path


def robust04_qids(demo: Path) -> list[str]:
    topics = (demo / "collections" / "robust04" / "topics.txt").read_text()
    return re.findall(r"<num>\s*Number:\s*(\S+)", topics)


def uploads(args, work: Workspace) -> dict[str, Any]:
    """Browsers upload big runs, close their tabs; how long the server keeps the memory.

    One reader first uploads a small run and closes the tab, so that the baseline holds
    what the upload pages build once for every reader (the study's tables of the condition
    an upload is compared with, the charts' code): that is the server's, not the uploads'.
    """
    qids = robust04_qids(work.demo)
    files = [
        synthetic_run(work.tmp / f"upload{i}.run", qids, args.upload_mb, f"up{i}")
        for i in range(args.uploaders)
    ]
    warm_up = synthetic_run(work.tmp / "warm-up.run", qids, 0.05, "warm")
    with work.server() as server:
        ttl = session_ttl(server)
        sampler = RssSampler(server)

        def user(i: int, page, start: threading.Barrier | None) -> dict[str, float]:
            page.goto(f"{server.url}/datasets")
            page.locator(MAIN_CONTENT["Dataset browser"]).first.wait_for(timeout=LONG)
            wait_until_idle(page, timeout=LONG)
            page.get_by_role("tab", name="Score your own run").click()
            page.get_by_test_id("stFileUploader").wait_for(timeout=LONG)
            if start is not None:
                start.wait()
            began = time.perf_counter()
            path = warm_up if start is None else files[i]
            page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
            scored = page.get_by_text("queries in the means")
            failed = page.get_by_test_id("stMain").get_by_text("leakeval:")
            scored.or_(failed).first.wait_for(timeout=LONG)
            wait_until_idle(page, timeout=LONG)
            outcome = "scored" if scored.count() else failed.first.inner_text()[:300]
            page.close()  # the tab; its session now waits out the TTL
            return {
                "seconds": time.perf_counter() - began,
                "closed": time.perf_counter(),
                "outcome": outcome,
            }

        with chromium() as browser:
            warmed = user(0, browser.new_page(viewport=VIEWPORT), None)
        idle = server.rss()
        with sampler:
            users = together(args.uploaders, user, action=sampler.mark_baseline)
            closed = max(u["closed"] for u in users)
            timeout = args.release_timeout or _ttl_seconds(ttl) + 180
            released = sampler.wait_release(closed, timeout, within=0.10)
    baseline = sampler.baseline_mb
    result = {
        "session_ttl": ttl,
        "file_mb": [f.stat().st_size / 1e6 for f in files],
        "rss_after_warm_up_mb": idle / 1e6,
        "warm_up": {k: v for k, v in warmed.items() if k != "closed"},
        "rss_baseline_mb": baseline,
        "rss_peak_mb": sampler.peak_mb(),
        "rss_at_last_close_mb": sampler.at(closed),
        "rss_end_mb": sampler.samples[-1][1],
        "released_after_seconds": released,
        "release_timeout_seconds": timeout,
        "uploads": [{k: v for k, v in u.items() if k != "closed"} for u in users],
        "rss_samples": [
            (round(t - sampler.samples[0][0], 1), round(mb, 1)) for t, mb in sampler.samples
        ],
    }
    print(
        f"uploads: {args.uploaders} x {args.upload_mb} MB; RSS baseline {baseline:.0f} MB, peak "
        f"{result['rss_peak_mb']:.0f} MB, {result['rss_at_last_close_mb']:.0f} MB as the last "
        f"tab closed, {result['rss_end_mb']:.0f} MB at the end; released after "
        f"{_s(released)} (timeout {timeout:.0f} s; {TTL_OPTION} = {ttl.get('value')})"
    )
    return result


def _ttl_seconds(ttl: dict[str, Any]) -> float:
    try:
        return float(ttl["value"])
    except (KeyError, TypeError, ValueError):
        return 120.0  # Streamlit's default, when the option could not be read


@dataclass
class RssSampler:
    """The server's RSS every `every` seconds in a thread, while the block runs."""

    server: Server
    every: float = 0.5
    samples: list[tuple[float, float]] = field(default_factory=list)
    baseline_mb: float = 0.0
    _done: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> RssSampler:
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._done.is_set():
            self.samples.append((time.perf_counter(), self.server.rss() / 1e6))
            self._done.wait(self.every)

    def mark_baseline(self) -> None:
        """The pre-upload baseline: sessions open on the page, nothing uploaded yet."""
        self.baseline_mb = self.server.rss() / 1e6

    def wait_release(self, since: float, timeout: float, within: float) -> float | None:
        """Seconds after `since` until RSS is within `within` of the baseline; None if not
        within `timeout` seconds."""
        while time.perf_counter() < since + timeout:
            moment, mb = self.samples[-1]
            if moment >= since and mb <= self.baseline_mb * (1 + within):
                return moment - since
            self._done.wait(self.every)
        return None

    def peak_mb(self) -> float:
        return max(mb for _, mb in self.samples)

    def at(self, moment: float) -> float:
        return next((mb for t, mb in self.samples if t >= moment), self.samples[-1][1])


# ---------------------------------------------------------------------------------- main

RUN = {"blocking": blocking, "cold": cold, "soak": soak, "uploads": uploads}


def parameters(args, scenario: str) -> dict[str, Any]:
    used = {
        "blocking": ["reps"],
        "cold": ["users"],
        "soak": ["users", "visits", "rss_every", "settle"],
        "uploads": ["uploaders", "upload_mb", "release_timeout"],
    }[scenario]
    return {name: getattr(args, name) for name in used}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scenario", action="append", choices=SCENARIOS, help="repeatable; default: all"
    )
    parser.add_argument("--users", type=int, default=6, help="browsers at once (cold, soak)")
    parser.add_argument("--visits", type=int, default=300, help="page visits in all (soak)")
    parser.add_argument("--reps", type=int, default=7, help="timed switches each way (blocking)")
    parser.add_argument("--rss-every", type=int, default=50, help="visits between RSS samples")
    parser.add_argument(
        "--settle", type=float, default=0.0, help="pause before each soak visit (s)"
    )
    parser.add_argument("--uploaders", type=int, default=4)
    parser.add_argument("--upload-mb", type=float, default=40.0)
    parser.add_argument(
        "--release-timeout", type=float, default=None, help="seconds (default: the TTL + 180)"
    )
    parser.add_argument("--out", type=Path, default=record.RESULTS / "server_bench.json")
    args = parser.parse_args()
    work = Workspace()
    results = previous_results(args.out)
    try:
        for scenario in args.scenario or SCENARIOS:
            started = time.monotonic()
            figures = RUN[scenario](args, work)
            results[scenario] = {
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
                "cores": os.cpu_count(),
                "parameters": parameters(args, scenario),
                "target": TARGETS[scenario],
                "seconds": time.monotonic() - started,
                **figures,
            }
    finally:
        work.close()
    record.write("server_bench", results, config=vars(args), path=args.out)


def previous_results(path: Path) -> dict[str, Any]:
    """The scenarios an earlier run wrote to `path`: a scenario run alone keeps the others."""
    try:
        earlier = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return dict(earlier.get("results", {})) if earlier.get("bench") == "server_bench" else {}


def _seconds_list(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.1f}" for v in values) + "] s"


def _s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


if __name__ == "__main__":
    main()
