"""Helpers the tests share: the repository root, the real data beside it, small file writers.

Imported as `tests.support`; the fixtures live in conftest.py, which no test imports.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
"""The repository root (holds app.py)."""
SHARED = Path(os.environ.get("LEAKEVAL_SHARED", ROOT.parent / "shared"))
"""../shared beside the checkout; LEAKEVAL_SHARED names it for the tests' copy that the CI
lanes run outside the checkout (.ci/package-check)."""
REALDATA = SHARED / "realdata"


def _irds_home() -> Path | None:
    """Lay the real topics and qrels out where ir_datasets looks, before it is imported.

    ir_datasets fixes its dataset paths at import, so this must happen before any test runs.
    """
    script = REALDATA / "irds-home.sh"
    if not script.exists():
        return None
    home = Path(tempfile.mkdtemp(prefix="leakeval-irds-"))
    subprocess.run(["bash", str(script), str(REALDATA), str(home)], check=True)
    return home


IRDS_HOME = _irds_home()
if IRDS_HOME is not None:
    os.environ["IR_DATASETS_HOME"] = str(IRDS_HOME)


def fresh_python(code: str, env: dict[str, str] | None = None) -> str:
    """What `code` prints run in a new interpreter (stripped): what a process loads, or how
    its allocators are set, cannot be seen in the test's own, which has loaded everything."""
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def realdata(*parts: str) -> Path:
    """A file under ../shared/realdata; the test is skipped when it is absent."""
    path = REALDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    return path


def shared(*parts: str) -> Path:
    """A file under ../shared; the test is skipped when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


def needs_encoder(encoder: str = "minilm") -> None:
    """Skip where a sentence encoder is not installed (`make setup` installs both)."""
    from leakeval_core.leakage.detection_options import encoder_installed

    if not encoder_installed(encoder):
        pytest.skip(f"the {encoder} encoder is not installed")


def fenced(text: str, language: str) -> list[str]:
    """The bodies of a Markdown page's code blocks in `language`, in order."""
    import re

    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def commands_env(bin_dir: Path) -> dict[str, str]:
    """An environment whose `leakeval` and `python` are this interpreter's (shims in
    `bin_dir`), for running a page's shell blocks as a reader would."""
    import sys

    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, command in (("leakeval", "-m leakeval_core.cli"), ("python", "")):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {command} "$@"\n')
        shim.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
    }


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def gzip_bomb(path: Path, line: bytes, size: int) -> Path:
    """A gzip file of `line` repeated to `size` bytes once decompressed, written as one
    compressed mebibyte repeated (concatenated gzip members are one file to every reader),
    so a gigabyte is a megabyte on disk and is never held while it is made."""
    import gzip

    block = line * ((1 << 20) // len(line))
    member = gzip.compress(block, 9)
    with open(path, "wb") as out:
        for _ in range(-(-size // len(block))):
            out.write(member)
    return path


def edit_in_place(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (of the same length) in `path`, then put its modification time
    back, as `cp -p` and `rsync -t` leave an edited file: the same size and mtime. Repeated
    until the kernel gives the file a later change time (at once on a filesystem with fine
    timestamps), which is all that tells the edit."""
    assert len(old.encode()) == len(new.encode())
    before = os.stat(path)
    text = path.read_text().replace(old, new)
    assert text != path.read_text()
    while True:
        path.write_text(text)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = os.stat(path)
        if after.st_ctime_ns != before.st_ctime_ns:
            break
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def baseline_experiment(root: Path) -> Path:
    """Two collections (a, b) of 12 topics, each with a BM25 baseline and two models
    (bm25-rm3, bm25-rm3-desc) audited against it, and leakage pairs for topics 1 to 6."""
    import random

    rng = random.Random(7)
    for name in ("a", "b"):
        folder = root / "collections" / name
        write(folder / "topics.txt", "".join(f"{q}\ttopic {q}\n" for q in range(1, 13)))
        write(
            folder / "qrels.txt",
            "".join(f"{q} 0 d{q}-{d} {int(d < 2)}\n" for q in range(1, 13) for d in range(4)),
        )
        for model in ("bm25", "bm25-rm3", "bm25-rm3-desc"):
            lines = []
            for q in range(1, 13):
                docs = [f"d{q}-{d}" for d in range(4)]
                rng.shuffle(docs)
                lines += [f"{q} Q0 {doc} {r + 1} {9 - r} {model}\n" for r, doc in enumerate(docs)]
            write(root / "runs" / name / f"{model}.run", "".join(lines))
    write(
        root / "pairs.csv",
        "collection,test_qid,train_qid,similarity\n"
        + "".join(f"{c},{q},t{q},0.95\n" for c in ("a", "b") for q in range(1, 7)),
    )
    write(
        root / "experiment.toml",
        "".join(
            f'[collections.{c}]\ntopics = "collections/{c}/topics.txt"\n'
            f'qrels = "collections/{c}/qrels.txt"\n'
            for c in ("a", "b")
        )
        + '[leakage]\ntable = "pairs.csv"\n[design]\nsystem = "model"\nbaseline = "bm25"\n'
        '[runs]\npattern = "runs/{collection}/{model}.run"\n',
    )
    return root


def renamed_experiment(demo_dir: Path, out: Path, declare: bool = True) -> Path:
    """A copy of the demo's Core17 runs under other factor names and levels: `system`,
    `contamination` in {contaminated, clean}, `n_train` and `split`. With `declare` the
    roles are named in `[design]`; without, leakeval must infer them."""
    import shutil

    levels = {"leaked": "contaminated", "none": "clean"}
    for run in sorted((demo_dir / "runs" / "core17").glob("*/*/*/fold*.run")):
        model, leakage, size = run.parts[-4:-1]
        split = run.stem.removeprefix("fold")
        target = out / "runs" / model / levels[leakage] / size / f"split{split}.run"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run, target)
    for name in ("topics.txt", "qrels.txt"):
        shutil.copyfile(demo_dir / "collections" / "core17" / name, out / name)
    truth = (demo_dir / "leakage" / "ground_truth.csv").read_text().splitlines()
    core17 = [row for row in truth[1:] if row.startswith("core17,")]
    write(out / "pairs.csv", "\n".join([truth[0], *core17]) + "\n")
    design = (
        '[design]\nleakage = "contamination"\nleaked = "contaminated"\nclean = "clean"\n'
        'size = "n_train"\nsystem = "system"\nfold = "split"\n'
        if declare
        else ""
    )
    write(
        out / "experiment.toml",
        'name = "Renamed factors"\n'
        '[collections.core17]\ntopics = "topics.txt"\nqrels = "qrels.txt"\n'
        '[leakage]\ntable = "pairs.csv"\n'
        '[runs]\npattern = "runs/{system}/{contamination}/{n_train}/split{split}.run"\n' + design,
    )
    return out


def single_factor_experiment(demo_dir: Path, out: Path) -> Path:
    """One collection, one factor (`model`), one run per level: no leakage, size or fold."""
    for model in ("colbert", "monobert", "monot5"):
        folds = sorted((demo_dir / "runs" / "core17" / model / "none" / "8000").glob("*.run"))
        write(out / "runs" / f"{model}.run", "".join(p.read_text() for p in folds))
    for name in ("topics.txt", "qrels.txt"):
        write(out / name, (demo_dir / "collections" / "core17" / name).read_text())
    write(
        out / "experiment.toml",
        'name = "One factor"\n[collections.core17]\ntopics = "topics.txt"\nqrels = "qrels.txt"\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    return out


def audit_experiment(demo_dir: Path, out: Path) -> Path:
    """The demo's Core17 runs as an experiment with a baseline and no twins: `bm25` (the
    clean colbert at 32000 training queries), `t5-leaked` and `t5-clean` (monot5 at 2000),
    with the planted pairs as the leakage table."""
    picks = {
        "bm25": ("colbert", "none", "32000"),
        "t5-leaked": ("monot5", "leaked", "2000"),
        "t5-clean": ("monot5", "none", "2000"),
    }
    for name, (model, leakage, size) in picks.items():
        folds = sorted((demo_dir / "runs" / "core17" / model / leakage / size).glob("*.run"))
        write(out / "runs" / f"{name}.run", "".join(p.read_text() for p in folds))
    for name in ("topics.txt", "qrels.txt"):
        write(out / name, (demo_dir / "collections" / "core17" / name).read_text())
    truth = (demo_dir / "leakage" / "ground_truth.csv").read_text().splitlines()
    write(
        out / "pairs.csv",
        "\n".join([truth[0], *(r for r in truth[1:] if r.startswith("core17,"))]) + "\n",
    )
    write(
        out / "experiment.toml",
        'name = "Audit"\n[collections.core17]\ntopics = "topics.txt"\nqrels = "qrels.txt"\n'
        '[leakage]\ntable = "pairs.csv"\n[design]\nsystem = "model"\nbaseline = "bm25"\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    return out


def answers_experiment(audit: Path, out: Path) -> Path:
    """`audit_experiment` with training qrels: each planted pair's training query has one
    positive outside the test corpus (`D<train_qid>`) and, for an even topic id, the topic's
    first relevant document too, so even topics are answer-leaked and odd ones query-leaked."""
    for name in ("topics.txt", "qrels.txt", "pairs.csv", "experiment.toml"):
        write(out / name, (audit / name).read_text())
    (out / "runs").mkdir(parents=True, exist_ok=True)
    for run in (audit / "runs").glob("*.run"):
        (out / "runs" / run.name).symlink_to(run)
    write(out / "train_qrels.tsv", answers_qrels(out / "pairs.csv", out / "qrels.txt"))
    toml = (out / "experiment.toml").read_text()
    toml = toml.replace("[leakage]", '[training_queries]\nqrels = "train_qrels.tsv"\n[leakage]')
    write(out / "experiment.toml", toml)
    return out


def answered_demo(demo_dir: Path, out: Path) -> Path:
    """The demo (its files linked, not copied) with training qrels made from its ground truth
    as `answers_qrels` makes them, for every collection: twins split by answers."""
    out.mkdir(parents=True)
    for item in demo_dir.iterdir():
        if item.name != "experiment.toml":
            (out / item.name).symlink_to(item)
    truth = demo_dir / "leakage" / "ground_truth.csv"
    lines = "".join(
        answers_qrels(truth, qrels) for qrels in sorted(demo_dir.glob("collections/*/qrels.txt"))
    )
    write(out / "train_qrels.txt", "".join(dict.fromkeys(lines.splitlines(keepends=True))))
    toml = (demo_dir / "experiment.toml").read_text()
    toml = toml.replace("[training_queries]\n", '[training_queries]\nqrels = "train_qrels.txt"\n')
    write(out / "experiment.toml", toml)
    return out


def answers_qrels(pairs: Path, qrels: Path) -> str:
    """The training qrels of `answers_experiment`, as TREC qrels lines."""
    import pandas as pd

    table = pd.read_csv(pairs, dtype=str)
    judged = pd.read_csv(qrels, sep=" ", names=["qid", "it", "docid", "grade"], dtype=str)
    first = judged[judged.grade.astype(int) > 0].groupby("qid").docid.min()
    lines = []
    for test, train in table[["test_qid", "train_qid"]].drop_duplicates().itertuples(index=False):
        lines.append(f"{train} 0 D{train} 1")
        if int(test) % 2 == 0 and test in first.index:
            lines.append(f"{train} 0 {first[test]} 1")
    return "\n".join(lines) + "\n"


def published_experiment(audit: Path, out: Path, qrels: bool = True) -> Path:
    """`audit_experiment` as a campaign publishes it: each run's per-query nDCG@10, P@10,
    MAP and RR (scored by leakeval) written as `trec_eval -q` prints them, rounded `all`
    lines and all, beside the topics and the pairs; the qrels only where `qrels`."""
    from leakeval_core import api

    runs = sorted((audit / "runs").glob("*.run"))
    scores = api.score(audit / "qrels.txt", runs, ["ndcg_cut_10", "P_10", "map", "recip_rank"])
    for name, result in scores.runs.items():
        lines = [f"runid\tall\t{name}"]
        for measure, values in result.values.items():
            lines += [
                f"{measure}\t{q}\t{float(v)!r}" for q, v in zip(result.qids, values, strict=True)
            ]
            lines.append(f"{measure}\tall\t{values.mean():.4f}")
        write(out / "runs" / f"{name}.eval", "\n".join(lines) + "\n")
    for name in ("topics.txt", "pairs.csv", *(["qrels.txt"] if qrels else [])):
        write(out / name, (audit / name).read_text())
    toml = (audit / "experiment.toml").read_text().replace("{model}.run", "{model}.eval")
    toml = toml if qrels else toml.replace('qrels = "qrels.txt"\n', "")
    write(out / "experiment.toml", toml.replace('name = "Audit"', 'name = "Published"'))
    return out


def mismatched_experiment(out: Path) -> Path:
    """Twelve topics, their qrels (`d{q}` relevant, `n{q}` not), and two runs: `bm25`, which
    ranks both judged documents of each topic (the relevant one second on every third), and
    `mine`, whose documents are in another id space (`x{q}-{i}`) but one (`d1` at rank 2, so
    that it scores and is no error); the first six topics judged leaked; a baseline design,
    so every verb applies."""
    topics = [str(q) for q in range(1, 13)]
    write(out / "topics.txt", "".join(f"{q}\ttopic {q}\n" for q in topics))
    write(out / "qrels.txt", "".join(f"{q} 0 d{q} 1\n{q} 0 n{q} 0\n" for q in topics))
    ranked = {q: [f"d{q}", f"n{q}"][:: 1 if int(q) % 3 else -1] for q in topics}
    write(
        out / "runs" / "bm25.run",
        "".join(f"{q} Q0 {a} 1 2 b\n{q} Q0 {b} 2 1 b\n" for q, (a, b) in ranked.items()),
    )
    mine = {q: [f"x{q}-{i}" for i in range(5)] for q in topics}
    mine["1"][1] = "d1"
    write(
        out / "runs" / "mine.run",
        "".join(
            f"{q} Q0 {d} {i + 1} {5 - i} m\n"
            for q, docs in mine.items()
            for i, d in enumerate(docs)
        ),
    )
    write(out / "pairs.csv", "test_qid,near_duplicate\n" + "".join(f"{q},1\n" for q in topics[:6]))
    write(
        out / "experiment.toml",
        'name = "Mismatched"\n[collections.c]\ntopics = "topics.txt"\nqrels = "qrels.txt"\n'
        '[leakage]\ntable = "pairs.csv"\n[design]\nsystem = "model"\nbaseline = "bm25"\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    return out


MISMATCHED = (
    "runs/mine.run: 1 of the 60 documents it ranks in the top 10 (1.7%) are judged in the c "
    "qrels; its scores mostly count unjudged documents as non-relevant — check that the run's "
    "and the qrels' document ids match: the run ranks x1-0, x2-0; the qrels judge d1, n1 (in a "
    "TREC run the docid is column 3)."
)
"""What every door says of `mismatched_experiment`'s `mine` run."""


INCOMPLETE = {"collection": "robust04", "model": "colbert", "train_size": 2000}
"""The pair whose leaked condition `damaged_demo` damages: the one the user study found."""
DAMAGED = "runs/robust04/colbert/leaked/2000/fold{}.run"


def declared_demo(demo_dir: Path, out: Path) -> Path:
    """The demo at `out`, its files links to the shared demo's, with robust04 declaring
    relevance level 2 in its own experiment.toml."""
    import os
    import shutil

    shutil.copytree(demo_dir, out, copy_function=os.symlink)
    manifest = out / "experiment.toml"
    text = manifest.read_text().replace(
        'qrels = "collections/robust04/qrels.txt"\n',
        'qrels = "collections/robust04/qrels.txt"\nrelevance_level = 2\n',
    )
    manifest.unlink()
    manifest.write_text(text)
    return out


DECLARED = (
    "robust04 scored at relevance level 2 (declared in experiment.toml; a setting of yours "
    "overrides it)."
)
"""What every door says of `declared_demo`."""


def damaged_demo(demo_dir: Path, out: Path, how: str) -> Path:
    """The demo with one fold of one condition (`INCOMPLETE`, leaked) damaged: `deleted`
    (fold 1), or `malformed` (a line `301 Q0 broken` appended to fold 2). Every other file
    is a link to the shared demo's, which is never modified."""
    import os
    import shutil

    shutil.copytree(demo_dir, out, copy_function=os.symlink)
    if how == "deleted":
        (out / DAMAGED.format(1)).unlink()
    else:
        run = out / DAMAGED.format(2)
        text = run.read_text()
        run.unlink()
        write(run, text + "301 Q0 broken\n")
    return out


def condition_means(x_levels: list, colours: list) -> pd.DataFrame:
    """A condition-means table (x, c, n, mean, sd, ci) as the condition charts draw it."""
    import pandas as pd

    return pd.DataFrame(
        [
            {"x": x, "c": c, "n": 10, "mean": 0.5, "sd": 0.1, "ci_low": 0.4, "ci_high": 0.6}
            for x in x_levels
            for c in colours
        ]
    )


def parquet_bomb(path: Path, rows: int, row: dict[str, str | float], plain: bool = False) -> Path:
    """A Parquet file of one `row` repeated `rows` times, its strings dictionary-encoded
    and its pages compressed: a gigabyte once decoded is a few hundred kilobytes on disk,
    and is never held while it is made. `plain`: without arrow's schema, so its strings are
    plain strings to a reader (pandas writes such a file from a column of repeated text)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    group = min(rows, 1 << 20)
    codes = pa.array(np.zeros(group, dtype=np.int32))
    block = pa.table(
        {
            name: pa.DictionaryArray.from_arrays(codes, pa.array([value]))
            if isinstance(value, str)
            else pa.array(np.full(group, value))
            for name, value in row.items()
        }
    )
    with pq.ParquetWriter(path, block.schema, compression="zstd", store_schema=not plain) as writer:
        for _ in range(-(-rows // group)):
            writer.write_table(block, row_group_size=group)
    return path
