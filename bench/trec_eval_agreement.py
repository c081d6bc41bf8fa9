"""Agreement with trec_eval: its own test suite (../shared/peer/trec_eval-test) scored by
`leakeval score --compat trec_eval`, every command of the suite's README translated flag for
flag (the cases of tests/integration/test_trec_eval_suite.py, which asserts the same).

Counts, per case and in all: the measures asked, those refused by name, the values compared
(per query and in the `all` rows, to trec_eval's 4 printed decimals) and the wrong ones.

    .venv/bin/python bench/trec_eval_agreement.py

Writes bench/results/trec_eval_agreement.json.
"""

from __future__ import annotations

import contextlib
import csv
import io
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SUITE = ROOT.parent / "shared" / "peer" / "trec_eval-test"

import record  # noqa: E402

from leakeval_core.cli import main as leakeval  # noqa: E402
from tests.integration.test_trec_eval_suite import CASES, TOLERANCE  # noqa: E402


def run(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = leakeval(args)
    return status, err.getvalue()


def expected(name: str) -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for line in (SUITE / name.split()[0]).read_text().splitlines():
        if line.strip():
            measure, qid, value = line.split()
            table[measure][qid] = value
    return table


def case_result(case: str, tmp: Path) -> dict:
    qrels, results, flags, per_query = CASES[case]
    files = ["--qrels", str(SUITE / qrels), "--run", str(SUITE / results)]
    table = expected(case)
    accepted, refused = [], []
    for measure in table:
        status, message = run(
            ["score", "--qrels", "/nonexistent", "--run", "/nonexistent", "--measures", measure]
        )
        (accepted if "/nonexistent" in message else refused).append(measure)
    for measure in list(accepted):  # parsed, but refused at scoring under these flags
        if run(["score", *files, "--measures", measure, *flags])[0] != 0:
            accepted.remove(measure)
            refused.append(measure)
    out = tmp / "scores.csv"
    args = ["score", "--compat", "trec_eval", *files, "--measures", ",".join(accepted)]
    status, message = run([*args, "--out", str(out), *flags, *(["--per-query"] * per_query)])
    assert status == 0, message
    got: dict[str, dict[str, float]] = defaultdict(dict)
    with open(out) as fh:
        for row in csv.DictReader(fh):
            got[row["measure"]][row["qid"]] = float(row["value"])
    compared = wrong = 0
    for measure in accepted:
        for qid, value in table[measure].items():
            if qid in got[measure] or qid == "all":
                compared += 1
                mine = got[measure].get(qid)
                wrong += mine is None or abs(mine - float(value)) > TOLERANCE
    return {
        "case": case,
        "measures_asked": len(table),
        "refused": refused,
        "values_compared": compared,
        "wrong": wrong,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cases = [case_result(case, Path(tmp)) for case in CASES]
    for c in cases:
        print(
            f"{c['case']:28s} {c['measures_asked']:4d} asked, {len(c['refused']):2d} refused, "
            f"{c['values_compared']:6d} values, {c['wrong']} wrong"
        )
    total = {
        "measures_asked": sum(c["measures_asked"] for c in cases),
        "refused": sum(len(c["refused"]) for c in cases),
        "refused_names": sorted({m for c in cases for m in c["refused"]}),
        "values_compared": sum(c["values_compared"] for c in cases),
        "wrong": sum(c["wrong"] for c in cases),
    }
    print(total)
    record.write(
        "trec_eval_agreement",
        {"cases": cases, "total": total},
        config={"suite": "trec_eval test/ at f4253652", "tolerance": TOLERANCE},
    )


if __name__ == "__main__":
    main()
