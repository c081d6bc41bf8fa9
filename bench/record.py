"""Where a benchmark's results go: bench/results/NAME.json, with the date and the machine.

Every bench writes through `write`, so each results file carries the same header (the date
in UTC, the cores, the CPU model, Python, the bench's own configuration and its run time) and
the docs' performance page renders the figures from these files; no figure is typed by hand.
"""

from __future__ import annotations

import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
_STARTED = time.monotonic()


def machine() -> dict[str, Any]:
    """The cores, the CPU model, Python and the operating system of this machine."""
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "system": platform.platform(terse=True),
    }


def write(
    name: str,
    results: Any,
    config: dict[str, Any] | None = None,
    note: str = "",
    path: Path | None = None,
) -> Path:
    """Write bench/results/NAME.json: the header, `config` (the bench's arguments), a `note`
    (say here when a smaller configuration than the default was run, and why) and
    `results`, the figures. `path` writes elsewhere instead (a smoke run's scratch file)."""
    payload = {
        "bench": name,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "run_seconds": round(time.monotonic() - _STARTED, 1),
        "config": config or {},
        "note": note,
        "results": results,
    }
    path = path or RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=_plain) + "\n")
    print(f"results written to {path}")
    return path


def _plain(value: Any) -> Any:
    """numpy scalars and paths as JSON numbers and strings."""
    if hasattr(value, "item"):
        return value.item()
    return str(value)
