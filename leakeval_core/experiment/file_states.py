"""Every file an experiment is read from, and what each holds now: its content hash.

The in-memory caches (the app's study, kept per experiment and fingerprint) are keyed on
these states, and the app compares two readings of them to say what changed. A state is the
file's content (`io.digest.file_digest`, read again only when the file's identity changed),
never its size and modification time, which `rsync -t` and `cp -p` restore after an edit.
The files of a collection or training log named by an ir_datasets id are included: they
live under IR_DATASETS_HOME, outside the experiment, and can change as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.aliases import resolve_alias
from leakeval_core.experiment.manifest import MANIFEST, Experiment
from leakeval_core.io.digest import file_digest
from leakeval_core.io.shards import find_shards

__all__ = ["ABSENT", "Input", "fingerprint", "inputs", "states"]

ABSENT = "absent"
"""The state of a file ir_datasets has not downloaded yet."""


@dataclass(frozen=True)
class Input:
    role: str
    """What the file is to the experiment: manifest, run, topics, qrels, training queries,
    training qrels, pairs, ground truth, labels, covers or groups."""
    subject: str
    """What it is of: a run's id, a collection's name, or the file's name for the others."""
    path: Path
    served: bool = False
    """Read from IR_DATASETS_HOME for an ir_datasets id, rather than named by the manifest
    (such a file may be absent until it is downloaded)."""


def inputs(experiment: Experiment) -> list[Input]:
    """The experiment's files, the manifest first, then the runs in order."""
    root = experiment.root
    found = [Input("manifest", MANIFEST, root / MANIFEST)]
    found += [Input("run", run["run_id"], run["path"]) for run in experiment.runs]
    for name, spec in experiment.collections.items():
        if spec.ir_datasets is not None:
            found += _served(resolve_alias(spec.ir_datasets), ("queries", "qrels"), name)
        else:
            found += [
                Input(role, name, path)
                for role, path in zip(
                    ("topics", "qrels")[: len(spec.files)], spec.files, strict=True
                )
            ]
    training = experiment.training_queries
    if isinstance(training, Path):
        found += [
            Input("training queries", _shown(root, path), path)
            for path in find_shards(training) or [training]
        ]
    elif training is not None:
        found += _served(resolve_alias(training), ("queries",), training)
    extra = {
        "training qrels": experiment.training_qrels,
        "pairs": experiment.leakage_table,
        "ground truth": experiment.ground_truth,
        "labels": experiment.labels,
        "covers": experiment.covers,
        "groups": experiment.groups,
    }
    found += [Input(role, _shown(root, p), p) for role, p in extra.items() if p is not None]
    return found


def _served(dataset_id: str, parts: tuple[str, ...], subject: str) -> list[Input]:
    from leakeval_core.experiment.irds import dataset_files

    role = {"queries": "topics" if "qrels" in parts else "training queries", "qrels": "qrels"}
    return [Input(role[part], subject, p, True) for part, p in dataset_files(dataset_id, parts)]


def _shown(root: Path, path: Path) -> str:
    """A file's name as a reader of the experiment knows it: under its root when it is."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def states(experiment: Experiment) -> dict[tuple[str, str, str], str]:
    """(role, subject, file) -> the file's content hash (`ABSENT` for an ir_datasets file
    not downloaded yet). A file the manifest names that is gone since the experiment was
    read is an error that says so."""
    out = {}
    for item in inputs(experiment):
        key = (item.role, item.subject, item.path.name)
        try:
            out[key] = file_digest(item.path)
        except FileNotFoundError:
            if not item.served:
                raise _vanished(item.path, "no such file") from None
            out[key] = ABSENT
        except OSError as exc:
            raise _vanished(item.path, exc.strerror or "unreadable") from None
    return out


def _vanished(path: Path, why: str) -> LeakevalError:
    return LeakevalError(
        f"{path}: {why}; it was there when the experiment was read (moved or deleted since?)"
    )


def fingerprint(read: Mapping[tuple[str, str, str], str]) -> str:
    """A key for in-memory caches of the experiment whose files are in these `states`: no
    edit (whatever times it kept), addition or removal is then served stale."""
    digest = blake2b(digest_size=16)
    for key, state in sorted(read.items()):
        digest.update(f"{chr(0).join(key)}\0{state}\n".encode())
    return digest.hexdigest()
