"""An experiment folder: `experiment.toml` -> collections, training queries, conditions.

Runs are discovered by a path pattern whose `{named}` fields become factors, so any design
(model × leakage × train size × fold × seed) needs no code change.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.evaluation.conventions import COLLECTION_KEYS, Conventions, official_conventions
from leakeval_core.experiment.design import ROLES, Design, infer_design

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MANIFEST", "CollectionSpec", "Experiment", "find_experiments", "load_experiment"]

MANIFEST = "experiment.toml"

_TOP_KEYS = {
    "name",
    "description",
    "simulated",
    "collections",
    "training_queries",
    "leakage",
    "runs",
    "design",
}
_SECTION_KEYS = {
    "collections": {"topics", "qrels", "ir_datasets", "beir", "split", *COLLECTION_KEYS},
    "training_queries": {"path", "ir_datasets", "sample_of", "qrels"},
    "leakage": {"ground_truth", "table", "labels", "method", "device", "covers", "groups"},
    "runs": {"pattern"},
    "design": set(ROLES),
}
_FIELD = re.compile(r"\{([^{}]*)\}")
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class CollectionSpec:
    """Where a collection's topics and qrels come from: local files, an ir_datasets id
    (`beir/...` ids among them), or a BEIR folder and the split whose qrels it scores."""

    name: str
    topics: Path | None = None
    qrels: Path | None = None
    ir_datasets: str | None = None
    beir: Path | None = None
    split: str = "test"
    conventions: tuple[tuple[str, object], ...] = ()
    """The conventions it declares as its own (`COLLECTION_KEYS`): in experiment.toml, or
    for an ir_datasets id whose official procedure differs, from `OFFICIAL`. Every figure
    of it is scored under them unless the reader chose otherwise (`Conventions.declared`)."""
    conventions_from: str = ""
    """Where `conventions` come from, as a caption says it."""

    @property
    def judged(self) -> bool:
        """Whether it has qrels: without (topics alone), its runs must be published per-query
        evaluations, which carry the values the qrels would give."""
        return self.qrels is not None or self.ir_datasets is not None or self.beir is not None

    @property
    def files(self) -> list[Path]:
        """The local files the collection is read from (none for an ir_datasets id)."""
        if self.beir is not None:
            return [self.beir / "queries.jsonl", self.beir / "qrels" / f"{self.split}.tsv"]
        return [p for p in (self.topics, self.qrels) if p is not None]


@dataclass(frozen=True)
class Experiment:
    root: Path
    name: str
    description: str
    simulated: bool
    collections: dict[str, CollectionSpec]
    pattern: str
    factors: tuple[str, ...]
    runs: tuple[dict, ...] = field(repr=False)
    """One record per run, sorted by factors: `run_id` (path relative to root), `path`, then
    one value per factor (int when every level is a number)."""
    training_queries: Path | str | None = None
    sample_of: str | None = None
    """`[training_queries] sample_of`: the full log the training log is a sample of (an
    ir_datasets id or alias, such as `msmarco-document/train`), so that every answer says
    how much of it was searched. The leakage layer checks that it is a log it knows the
    size of (`leakage.logs`), as it checks `[leakage] method`."""
    training_qrels: Path | None = None
    """`[training_queries] qrels`: the training queries' positive documents, so each leakage
    pair says which of its test topic's relevant documents the model was trained on
    (`leakage.answers`)."""
    ground_truth: Path | None = None
    """Known near-duplicate pairs (the demo writes its own); a stand-in for detection."""
    leakage_table: Path | None = None
    labels: Path | None = None
    """Human-judged (topic, training query) pairs to measure detection against."""
    covers: Path | None = None
    """`[leakage] covers`: the topics the leakage pairs speak for (a judged subset); the
    others are left out of every split by leaked and other topics."""
    groups: Path | None = None
    """`[leakage] groups`: `qid,group` rows, each group a split of the topics beside (or
    instead of) leaked and other, such as topics written after a model's training cutoff."""
    detection_method: str | None = None
    """`[leakage] method`: the detection method this experiment is read with. Without it the
    most accurate installed method is used, which differs between installations; naming it
    keeps the leaked set the same on every machine that has it."""
    detection_device: str | None = None
    """`[leakage] device`: where its encoder runs when detected here (`devices.DEVICES`;
    without it, `auto`)."""
    design: Design = Design()
    """Which factor plays which role (`[design]`, completed by inference)."""

    @cached_property
    def conditions(self) -> pd.DataFrame:
        """The runs as a table, one column per record field. Built on first use: listing
        the runs (all a warm cache lookup needs) does not import pandas."""
        import pandas as pd

        return pd.DataFrame(list(self.runs))

    def levels(self, factor: str) -> list:
        return sorted(self.conditions[factor].unique().tolist())

    @property
    def condition_factors(self) -> tuple[str, ...]:
        """Factors that define a condition: every factor but the fold."""
        names = self.factors if "collection" in self.factors else ("collection", *self.factors)
        return tuple(f for f in names if f != self.design.fold)

    def run_id_of(self, levels: dict[str, object]) -> str:
        """The run id (path under the root) the pattern gives for these levels, each spelt
        as the experiment's files spell it (`fold01` stays `fold01` though read as 1): the
        file a missing run would be."""
        spelt = self._spellings
        return _FIELD.sub(
            lambda m: spelt.get((m[1], levels[m[1]]), str(levels[m[1]])), self.pattern
        )

    @cached_property
    def _spellings(self) -> dict[tuple[str, object], str]:
        """(field, level) -> the level's text in the run ids."""
        regex = _pattern_regex(self.pattern)
        spelt: dict[tuple[str, object], str] = {}
        for run in self.runs:
            for name, text in regex.match(run["run_id"]).groupdict().items():
                spelt.setdefault((name, run[name]), text)
        return spelt


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment folder (or its experiment.toml)."""
    path = Path(path)
    manifest = path if path.name == MANIFEST else path / MANIFEST
    if not manifest.is_file():
        raise LeakevalError(f"{manifest}: no such experiment manifest")
    root = manifest.parent
    try:
        config = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else None
        raise ParseError(manifest, line, f"invalid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ParseError(manifest, None, "not valid UTF-8 text") from None
    _check_keys(manifest, config)

    collections = {
        name: _collection(manifest, root, name, spec)
        for name, spec in config.get("collections", {}).items()
    }
    if not collections:
        raise ParseError(manifest, None, "no [collections.NAME] section")

    pattern = config.get("runs", {}).get("pattern")
    if not pattern:
        raise ParseError(manifest, None, 'missing [runs] pattern = "runs/{collection}/..."')
    factors = _pattern_fields(manifest, pattern)
    if "collection" not in factors and len(collections) != 1:
        raise ParseError(
            manifest,
            None,
            "the runs pattern has no {collection} field, "
            "so exactly one collection must be declared",
        )
    runs = _discover(manifest, root, pattern, factors, collections)

    training = config.get("training_queries", {})
    if "sample_of" in training and not ({"path", "ir_datasets"} & set(training)):
        raise ParseError(manifest, None, "training_queries.sample_of needs a path to the log")
    leakage = config.get("leakage", {})
    levels = {name: sorted({run[name] for run in runs}) for name in factors if name != "collection"}
    try:
        design = infer_design(config.get("design", {}), levels)
    except LeakevalError as exc:
        raise ParseError(manifest, None, str(exc)) from None
    return Experiment(
        root=root,
        name=str(config.get("name", root.name)),
        description=str(config.get("description", "")),
        simulated=bool(config.get("simulated", False)),
        collections=collections,
        pattern=pattern,
        factors=factors,
        runs=runs,
        training_queries=(
            _existing(manifest, root, training.get("path"), "training_queries.path")
            or training.get("ir_datasets")
        ),
        sample_of=_string(manifest, training.get("sample_of"), "training_queries.sample_of"),
        training_qrels=_existing(manifest, root, training.get("qrels"), "training_queries.qrels"),
        ground_truth=_existing(manifest, root, leakage.get("ground_truth"), "leakage.ground_truth"),
        leakage_table=_existing(manifest, root, leakage.get("table"), "leakage.table"),
        labels=_existing(manifest, root, leakage.get("labels"), "leakage.labels"),
        covers=_existing(manifest, root, leakage.get("covers"), "leakage.covers"),
        groups=_existing(manifest, root, leakage.get("groups"), "leakage.groups"),
        detection_method=_string(manifest, leakage.get("method"), "leakage.method"),
        detection_device=_string(manifest, leakage.get("device"), "leakage.device"),
        design=design,
    )


def _collection(manifest: Path, root: Path, name: str, spec: dict) -> CollectionSpec:
    """One `[collections.NAME]`: exactly one of ir_datasets = ID, topics and qrels files, or
    beir = FOLDER (with split = "test", "dev" or "train"; the folder must hold its qrels).
    Topics alone are a collection whose runs are published per-query evaluations."""
    key = f"collections.{name}"
    sources = [k for k in ("ir_datasets", "beir") if k in spec]
    if "topics" in spec or "qrels" in spec:
        sources.append("topics/qrels")
    if len(sources) != 1 or (sources == ["topics/qrels"] and "topics" not in spec):
        raise ParseError(
            manifest,
            None,
            f"collection {name!r} needs one of: ir_datasets = ID, topics and qrels (topics "
            "alone for published per-query evaluations), or beir = FOLDER"
            + (f" (it gives {' and '.join(sources)})" if sources else ""),
        )
    if "split" in spec and "beir" not in spec:
        raise ParseError(manifest, None, f"{key}.split goes with beir = FOLDER")
    split = spec.get("split", "test")
    if not isinstance(split, str) or not split:
        raise ParseError(manifest, None, f'{key}.split must be a split\'s name, e.g. "test"')
    folder = _existing(manifest, root, spec.get("beir"), f"{key}.beir")
    if folder is not None:
        for need in ("queries.jsonl", f"qrels/{split}.tsv"):
            if not (folder / need).is_file():
                raise ParseError(
                    manifest, None, f"{key}.beir = {spec['beir']!r} has no {need} ({folder})"
                )
    dataset = _string(manifest, spec.get("ir_datasets"), f"{key}.ir_datasets")
    declared = tuple((k, spec[k]) for k in COLLECTION_KEYS if k in spec)
    for k, value in declared:
        whole = isinstance(value, int) and not isinstance(value, bool)
        if k in ("relevance_level", "depth") and not whole:
            raise ParseError(manifest, None, f"{key}.{k} must be a whole number, got {value!r}")
    try:
        Conventions(**dict(declared))
    except (LeakevalError, TypeError) as exc:
        raise ParseError(manifest, None, f"[{key}]: {exc}") from None
    if declared:
        source = f"declared in {manifest.name}"
    else:
        declared, source = official_conventions(dataset) if dataset else ((), "")
    return CollectionSpec(
        name=name,
        topics=_existing(manifest, root, spec.get("topics"), f"{key}.topics"),
        qrels=_existing(manifest, root, spec.get("qrels"), f"{key}.qrels"),
        ir_datasets=dataset,
        beir=folder,
        split=split,
        conventions=declared,
        conventions_from=source,
    )


def find_experiments(data_root: str | Path) -> list[Path]:
    """Experiment folders directly or one level below the data root, sorted by name.

    The app only ever opens what this returns (a URL names one of these by its name), so
    what it serves is what the data root's owner put there: its folders, and symlinks placed
    directly in it (`ln -s ~/runs/study data/study`). Nothing else outside the root is
    reachable, however a URL is written.
    """
    root = Path(data_root).resolve()
    if not root.is_dir():
        return []
    found = [p.parent for p in root.glob(f"*/{MANIFEST}")]
    if (root / MANIFEST).is_file():
        found.append(root)
    return sorted(found, key=lambda p: p.name)


def _check_keys(manifest: Path, config: dict) -> None:
    unknown = set(config) - _TOP_KEYS
    if unknown:
        raise ParseError(
            manifest, None, f"unknown key {sorted(unknown)[0]!r}; known: {sorted(_TOP_KEYS)}"
        )
    for section, allowed in _SECTION_KEYS.items():
        value = config.get(section, {})
        if not isinstance(value, dict):
            raise ParseError(manifest, None, f"{section} must be a table, e.g. [{section}]")
        tables = value.values() if section == "collections" else [value]
        for table in tables:
            if not isinstance(table, dict):
                raise ParseError(manifest, None, f"each entry of [{section}] must be a table")
            bad = set(table) - allowed
            if bad:
                raise ParseError(
                    manifest,
                    None,
                    f"unknown key {sorted(bad)[0]!r} in [{section}]; known: {sorted(allowed)}",
                )


def _string(manifest: Path, value: object, key: str) -> str | None:
    """`[leakage] method` or `device`, or `[training_queries] sample_of` as written; the
    leakage layer checks that it names a method, a device or a known log
    (`leakage.table.experiment_method`, `experiment_options`, `experiment_log`), since those
    are its to know."""
    if value is None or isinstance(value, str):
        return value
    raise ParseError(manifest, None, f"{key} must be a string, got {value!r}")


def _existing(manifest: Path, root: Path, value: str | None, key: str) -> Path | None:
    if value is None:
        return None
    path = (root / value).resolve()
    if not path.exists():
        raise ParseError(manifest, None, f"{key} = {value!r}: no such file ({path})")
    return path


def _pattern_fields(manifest: Path, pattern: str) -> tuple[str, ...]:
    if pattern.startswith("/") or ".." in Path(pattern).parts:
        raise ParseError(
            manifest, None, f"runs pattern {pattern!r} must stay inside the experiment"
        )
    if _FIELD.sub("", pattern).count("{") or _FIELD.sub("", pattern).count("}"):
        raise ParseError(manifest, None, f"runs pattern {pattern!r} has an unbalanced brace")
    fields = _FIELD.findall(pattern)
    for name in fields:
        if not name.isidentifier():
            raise ParseError(manifest, None, f"runs pattern field {{{name}}} is not a valid name")
    if len(set(fields)) != len(fields):
        raise ParseError(manifest, None, f"runs pattern {pattern!r} repeats a field")
    if not fields:
        raise ParseError(manifest, None, f"runs pattern {pattern!r} has no {{field}}")
    return tuple(fields)


def _pattern_regex(pattern: str) -> re.Pattern:
    """The runs pattern as a regex over run ids, one named group per field."""
    return re.compile(
        "".join(
            f"(?P<{part}>[^/]+)" if i % 2 else re.escape(part)
            for i, part in enumerate(_FIELD.split(pattern))
        )
        + "$"
    )


def _discover(
    manifest: Path, root: Path, pattern: str, factors: tuple[str, ...], collections: dict
) -> tuple[dict, ...]:
    glob = _FIELD.sub("*", pattern)
    regex = _pattern_regex(pattern)
    rows = []
    for path in sorted(root.glob(glob)):
        relative = path.relative_to(root).as_posix()
        match = regex.match(relative)
        if match and path.is_file():
            rows.append({"run_id": relative, "path": path, **match.groupdict()})
    if not rows:
        raise ParseError(manifest, None, f"runs pattern {pattern!r} matches no file under {root}")
    if "collection" in factors:
        unknown = sorted({row["collection"] for row in rows} - set(collections))
        if unknown:
            raise ParseError(
                manifest,
                None,
                f"runs name collection {unknown[0]!r}, which is not declared under [collections]",
            )
    else:
        only = next(iter(collections))  # collection first, as when the pattern names it
        rows = [
            {"run_id": row["run_id"], "path": row["path"], "collection": only}
            | {name: row[name] for name in factors}
            for row in rows
        ]
    for name in factors:
        if all(_NUMBER.fullmatch(row[name]) for row in rows):
            for row in rows:
                row[name] = int(row[name])
    return tuple(sorted(rows, key=lambda row: tuple(row[name] for name in factors)))
