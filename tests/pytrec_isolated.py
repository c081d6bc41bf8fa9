"""leakeval and plain pytrec_eval scoring the same qrels and run, in a process of their own.

pytrec_eval runs trec_eval's C code, which crashes the process on some inputs (bpref beside
another measure, on a query judged only with negative grades or ranked with no document) and
once did not return. A generated input that reaches such a defect must fail its own test,
never take the test run down with it: the property tests send each input to a worker
process, wait for its answer, and on a crash or a hang name the input and start a new one.

Run as `python -m tests.pytrec_isolated`, it is that worker: one JSON request a line in,
one JSON answer a line out.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys

import pandas as pd

from tests.support import ROOT

HANG = 120
"""Seconds without an answer after which an input counts as hanging: a hundred times what
the largest generated input takes on a busy machine."""


def frames(qrels_rows, run_rows) -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docid", "grade"]).astype(
        {"qid": "str", "docid": "str", "grade": "int64"}
    )
    run = pd.DataFrame(run_rows, columns=["qid", "docid", "score"]).astype(
        {"qid": "str", "docid": "str", "score": "float64"}
    )
    return qrels, run


def leakeval_values(qrels, run, measures, conventions) -> dict[str, dict[str, float]]:
    """leakeval's per-query values, by measure name and qid."""
    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.evaluation.scoring import score_run

    scored = score_run(run, PreparedQrels(qrels, conventions), measures)
    return {
        name: dict(zip(scored.qids, values, strict=True)) for name, values in scored.values.items()
    }


def pytrec_reference(qrels: pd.DataFrame, run: pd.DataFrame, measures, level: int, gain="linear"):
    """Plain pytrec_eval at `level`: its own dicts from the frames, its own tie rule; under
    exponential gain it is handed 2^g - 1 for each positive grade g (so ask it only for
    gain measures then).

    A query whose every judgment is negative, which trec_eval refuses and pytrec_eval
    crashes on, is held to what it means: nothing judged and nothing relevant, the same
    ranking scored against one judged non-relevant document it never ranks."""
    import pytrec_eval

    from leakeval_core.evaluation.measures import parse_measure

    judged: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels.qid, qrels.docid, qrels.grade, strict=True):
        judged.setdefault(q, {})[d] = 2**g - 1 if gain == "exponential" and g > 0 else int(g)
    for q, docs in judged.items():
        if max(docs.values()) < 0:
            judged[q] = {"never ranked": 0}
    ranking: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.qid, run.docid, run.score, strict=True):
        ranking.setdefault(q, {})[d] = float(s)
    names = {parse_measure(m).trec_name for m in measures}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, names, relevance_level=level)
    return evaluator.evaluate(ranking)


def _answer(request: dict) -> dict:
    from leakeval_core.evaluation.conventions import Conventions

    qrels, run = frames(request["qrels"], request["run"])
    conventions = Conventions(**request["conventions"])
    ours = leakeval_values(qrels, run, request["measures"], conventions)
    reference = frames(request["qrels"], request.get("reference_run", request["run"]))[1]
    theirs = pytrec_reference(
        qrels, reference, request["measures"], conventions.relevance_level, conventions.gain
    )
    return {"leakeval": ours, "pytrec_eval": theirs}


class Isolated:
    """A worker process that scores requests one at a time, started again after a crash."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None

    def score(
        self,
        qrels: pd.DataFrame,
        run: pd.DataFrame,
        measures,
        conventions,
        reference_run: pd.DataFrame | None = None,
    ) -> dict:
        """{"leakeval": {measure: {qid: value}}, "pytrec_eval": {qid: {trec_name: value}}}
        for `conventions` (a `Conventions`), pytrec_eval scoring `reference_run` where given
        (a run filtered by hand, say), else `run`; an AssertionError naming the input when
        the worker crashes or does not answer within `HANG` seconds."""
        from dataclasses import asdict

        request = {
            "qrels": qrels.values.tolist(),
            "run": run.values.tolist(),
            "measures": list(measures),
            "conventions": asdict(conventions),
        }
        if reference_run is not None:
            request["reference_run"] = reference_run.values.tolist()
        process = self._started()
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], HANG)
        line = process.stdout.readline() if ready else ""
        if not line:
            self.close()
            what = "crashed" if ready else f"did not answer in {HANG} s"
            raise AssertionError(f"scoring {what} on {json.dumps(request)}")
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError(f"{answer['error']} on {json.dumps(request)}")
        return answer

    def _started(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "tests.pytrec_isolated"],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        return self._process

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _serve() -> None:
    for line in sys.stdin:
        try:
            answer = _answer(json.loads(line))
        except Exception as error:  # an error is an answer too: the parent's test fails on it
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    _serve()
