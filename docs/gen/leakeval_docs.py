"""The docs site's generated parts: reference pages from the code, figures from bench/results.

mkdocs loads this file as a hook (mkdocs.yml, `hooks:`). `on_files` adds the pages that are
generated whole (the measures from the measure registry, the CLI from its argparse parsers,
the API from `leakeval_core.api.__all__`); `on_page_markdown` fills the macros of the
written pages:

- `{{ bench NAME }}`: the results of bench/results/NAME.json as a table, with its date and
  machine (or, where the file is absent, the command that writes it);
- `{{ value NAME PATH [FORMAT] }}`: one figure of that file; PATH is `/`-separated keys,
  list indices or picks from a list of records (`results/family=lexical/roc_auc`; see
  `pick`), quoted where it holds a space;
- `{{ range NAME PATH [FORMAT] }}`: the lowest and highest of a list of figures (`*` maps
  the rest of the path over a list: `results/categories/nested_agreement_per_split`);
- `{{ modules }}`: the packages and modules, each with its docstring's first sentence;
- `{{ procedures }}`: the statistical tests and intervals, from their declarations;
- `{{ scoring_code }}`: the source the score and prepared-qrels caches are keyed on;
- `{{ unmeasured }}`: the benches in bench/ that have no results file yet;
- `{{ nginx }}`: the tested nginx site of docs/serving.md (`leakeval_app.proxy`).

Nothing here is imported by leakeval_core or the app; the tests import it to check the pages.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import math
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
PACKAGES = ("leakeval_core", "leakeval_app", "app_pages", "leakeval_fit")
MACRO = re.compile(r"\{\{\s*(\w+)(.*?)\}\}", re.DOTALL)


class DocsError(Exception):
    """A macro that cannot be filled: the build stops rather than print a hole."""


# --- mkdocs hooks --------------------------------------------------------------------------


def on_config(config):
    if str(ROOT) not in sys.path:  # document this checkout's code, not an installed copy
        sys.path.insert(0, str(ROOT))
    return config


def on_files(files, config):
    from mkdocs.structure.files import File

    for uri, render in GENERATED.items():
        files.append(File.generated(config, uri, content=render()))
    return files


def on_page_markdown(markdown, page, config, files):
    from mkdocs.exceptions import PluginError

    try:
        return expand(markdown)
    except DocsError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from exc


# --- macros --------------------------------------------------------------------------------


def expand(markdown: str) -> str:
    """Fill every `{{ macro ... }}` of a page; an unknown macro or a missing figure raises."""

    def fill(match: re.Match) -> str:
        name, args = match[1], shlex.split(match[2])
        if name not in MACROS:
            raise DocsError(f"unknown macro {match[0]!r}")
        return MACROS[name](*args)

    return MACRO.sub(fill, markdown)


def load(name: str) -> dict[str, Any] | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def pick(data: Any, path: str) -> Any:
    """Follow `path` into `data`. Segments: a key; a list index; `*`, the rest of the path
    over every item of a list; `?COND&COND`, the items of a list that meet every condition;
    `COND&COND`, the first such item. A condition is `key=value`, `key!=value`, `key>=n` or
    `key<=n`."""
    parts = path.split("/")
    for i, part in enumerate(parts):
        if part == "*":
            rest = "/".join(parts[i + 1 :])
            return [pick(item, rest) if rest else item for item in data]
        if isinstance(data, list) and part.startswith("?"):
            data = [r for r in data if _meets(r, part[1:])]
        elif isinstance(data, list) and CONDITION.search(part):
            found = [r for r in data if _meets(r, part)]
            if not found:
                raise DocsError(f"no record with {part} in {path}")
            data = found[0]
        elif isinstance(data, list):
            data = data[int(part)]
        else:
            if part not in data:
                raise DocsError(f"no {part!r} in {path}")
            data = data[part]
    return data


CONDITION = re.compile(r"^(?P<key>[^=<>!]+)(?P<op>!=|>=|<=|=)(?P<value>.*)$")


def _meets(record: Any, conditions: str) -> bool:
    for condition in conditions.split("&"):
        match = CONDITION.match(condition)
        if not match or not isinstance(record, dict) or match["key"] not in record:
            return False
        have, want, op = record[match["key"]], match["value"], match["op"]
        if isinstance(have, list):  # a pair of names, written `a,b`
            have = ",".join(map(str, have))
        if op in ("=", "!="):
            if (str(have) == want) != (op == "="):
                return False
        elif not (have >= float(want) if op == ">=" else have <= float(want)):
            return False
    return True


def number(value: Any, spec: str = "") -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if not spec:
        spec = ",d" if isinstance(value, int) else ".3g"
    text = format(value, spec)
    return text.replace("-", "−") if text.startswith("-") else text


def value_macro(name: str, path: str, spec: str = "") -> str:
    data = _required(name)
    return number(pick(data, path), spec)


def range_macro(name: str, path: str, spec: str = "") -> str:
    values = pick(_required(name), path)
    low, high = number(min(values), spec), number(max(values), spec)
    return low if low == high else f"{low}–{high}"


def _required(name: str) -> dict[str, Any]:
    data = load(name)
    if data is None:
        raise DocsError(f"bench/results/{name}.json is absent: run the bench that writes it")
    return data


def header(data: dict[str, Any]) -> str:
    m = data.get("machine") or {}
    where = (
        f"{m['cores']} cores, {m['cpu']}, Python {m['python']}" if m else "an unrecorded machine"
    )
    line = f"*Measured {data.get('date', 'on an unrecorded date')} on {where}"
    if data.get("run_seconds"):
        line += f"; the bench ran {number(data['run_seconds'], ',.0f')} s"
    line += f" (`bench/results/{data['bench']}.json`).*"
    if data.get("note"):
        line += f" {data['note']}"
    return line


def bench_macro(name: str) -> str:
    data = load(name)
    if data is None:
        script = name.split("-")[0]
        return f"*Not measured in this checkout: run `python bench/{script}.py`.*"
    render = RENDERERS.get(name.split("-")[0], generic)
    return f"{header(data)}\n\n{render(data['results'])}"


def table(columns: list[str], rows: list[list[Any]]) -> str:
    def cell(v: Any) -> str:  # one line, whatever the text: a newline would end the table
        return " ".join((v if isinstance(v, str) else number(v)).split()).replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def generic(results: Any) -> str:
    """Scalars as `figure | value` rows; a list of flat records as a table."""
    if isinstance(results, list) and results and all(isinstance(r, dict) for r in results):
        columns = [k for k in results[0] if not isinstance(results[0][k], dict | list)]
        return table(columns, [[r.get(k, "") for k in columns] for r in results])
    rows = [[k, v] for k, v in _flat(results)]
    return table(["figure", "value"], rows)


def _flat(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [kv for k, v in data.items() for kv in _flat(v, f"{prefix}{k} ")]
    if isinstance(data, list):
        if all(isinstance(v, int | float) for v in data):
            return [(prefix.strip(), ", ".join(number(v) for v in data))]
        return [kv for i, v in enumerate(data) for kv in _flat(v, f"{prefix}{i} ")]
    return [(prefix.strip(), data)]


def _interval(pair: list[float], spec: str = ".3f") -> str:
    return f"[{number(pair[0], spec)}, {number(pair[1], spec)}]"


def score_table(results: dict[str, Any]) -> str:
    rows = [
        [
            f"{t['tool']} {t['version']}".strip(),
            f"{t['seconds']:.2f} s",
            f"{t['time_ratio']:.2f}",
            f"{t['peak_mb']:.0f} MB",
            f"{t['memory_ratio']:.2f}",
        ]
        for t in results["tools"]
    ]
    pairs = "; ".join(
        f"{name}: median {r['median']:.2f} (range {r['range'][0]:.2f}–{r['range'][1]:.2f})"
        for name, r in results["leakeval_ratios"].items()
    )
    return (
        table(["tool", "time (median)", "× pytrec_eval", "peak RSS", "× pytrec_eval"], rows)
        + f"\n\nTime / pytrec_eval's, per alternating repeat: {pairs}."
    )


def large_run_table(r: dict[str, Any]) -> str:
    return table(
        ["run file", "read + score", "peak above baseline", "whole `leakeval score` process"],
        [
            [
                f"{r['megabytes']:.0f} MB",
                f"{r['seconds']:.1f} s",
                f"{r['peak_above_baseline_mb']:.0f} MB ({r['peak_above_baseline_ratio']:.2f}×)",
                f"{r['whole_process_peak_mb']:.0f} MB ({r['whole_process_ratio']:.2f}×)",
            ]
        ],
    )


def formats_table(r: dict[str, Any]) -> str:
    rows = [
        [
            name,
            f"{f['rows']:,}",
            f"{f['megabytes']:.0f} MB",
            f"{f['peak_mb']:.0f} MB ({f['peak_vs_trec']:.2f}×)",
            f"{f['seconds']:.1f} s",
        ]
        for name, f in r.items()
    ]
    return table(["format", "lines or entries", "file", "peak (× TREC's)", "read"], rows)


def agreement_table(r: dict[str, Any]) -> str:
    rows = [
        [c["case"], c["measures_asked"], len(c["refused"]), c["values_compared"], c["wrong"]]
        for c in r["cases"]
    ]
    t = r["total"]
    rows.append(["**all**", t["measures_asked"], t["refused"], t["values_compared"], t["wrong"]])
    return table(["expected output", "measures asked", "refused", "values compared", "wrong"], rows)


def detection_table(rows: list[dict[str, Any]]) -> str:
    body = [
        [
            r["method"],
            f"{r['roc_auc']:.3f}",
            f"{r['pr_auc']:.3f}",
            f"{r['rejected_at_90']:.2f} / {r['rejected_at_95']:.2f}",
            f"{r['threshold']:.3f}",
            f"{r['precision']:.3f} / {r['recall']:.3f} / {r['f1']:.3f}",
            f"{r['category_agreement']:.3f}",
        ]
        for r in rows
    ]
    columns = ["method", "ROC AUC", "PR AUC", "different rejected at 90% / 95% recall"]
    columns += ["shipped threshold", "precision / recall / F1 (cv)", "category agreement"]
    return table(columns, body)


def nested_table(rows: list[dict[str, Any]]) -> str:
    methods = [r for r in rows if "family" in r]
    body = [
        [
            r["family"],
            f"{r['roc_auc']:.3f} {_interval(r['roc_auc_interval'])}",
            f"{r['roc_auc_repeats_mean']:.3f} ± {r['roc_auc_repeats_sd']:.3f}",
            f"{r['rejected_at_90']:.2f} / {r['rejected_at_95']:.2f}",
            f"{r['fold_precision']:.3f} / {r['fold_recall']:.3f}",
            f"{r['brier']:.3f}",
        ]
        for r in methods
    ]
    paired = [
        [
            f"{r['paired'][0]} − {r['paired'][1]}",
            f"{r['difference']:+.3f}",
            _interval(r["interval"], "+.3f"),
        ]
        for r in rows
        if "paired" in r
    ]
    out = table(
        [
            "method",
            "ROC AUC [95% CI]",
            "over splits",
            "different rejected at 90% / 95% recall",
            "precision / recall at inner thresholds",
            "Brier",
        ],
        body,
    )
    if paired:
        out += "\n\nPaired over the same topics and folds:\n\n" + table(
            ["difference of ROC AUC", "estimate", "95% interval"], paired
        )
    return out


def relations_table(r: dict[str, Any]) -> str:
    rows = []
    for field in ("variant", "title"):
        split = [x for x in r["relations"] if x["field"] == field]
        if not split:
            continue

        def span(key: str, spec: str = ".3f", split=split) -> str:
            return range_text([x[key] for x in split], spec)

        rows.append(
            [
                f"the matched {field}" if field == "variant" else "the title",
                split[0]["pairs"],
                span("rule"),
                span("chosen"),
                span("difference", "+.3f"),
            ]
        )
    c = r["categories"]
    return (
        table(
            ["relation to", "pairs", "the rule", "chosen inside the folds", "chosen − rule"], rows
        )
        + f"\n\nCategory agreement with the shipped title relation: "
        f"{c['shipped_agreement']:.3f}, Cohen's κ {c['shipped_kappa']:.3f} "
        f"({c['matched_title']} of {c['near_duplicates']} "
        f"near-duplicates matched a title); with it refitted inside each outer fold: "
        f"{range_text(c['nested_agreement_per_split'])} over "
        f"{len(c['nested_agreement_per_split'])} splits."
    )


def range_text(values: list[float], spec: str = ".3f") -> str:
    low, high = number(min(values), spec), number(max(values), spec)
    return low if low == high else f"{low} to {high}"


def audit_table(r: dict[str, Any]) -> str:
    sizes: dict[tuple[str, str, str], dict[int, float]] = {}
    for row in r["size"]:
        sizes.setdefault((row["gains"], row["null"], row["test"]), {})[row["k"]] = row["size"]
    ks = sorted({k for v in sizes.values() for k in v})
    size_rows = [[*key, *(f"{v.get(k, float('nan')):.3f}" for k in ks)] for key, v in sizes.items()]
    verdict_rows = [
        [
            v["gains"],
            v["test"],
            v["replicates"],
            v["k"],
            f"{v['no evidence or cannot tell at δ = 0']:.3f}",
            f"{v['inflated at δ = mde']:.3f}",
        ]
        for v in r["verdicts"]
    ]
    seconds = [[k, f"{v * 1000:.1f} ms"] for k, v in r["seconds"].items()]
    return "\n\n".join(
        [
            f"Smallest k from which Welch's size stays within 1.5 α on every real gain and "
            f"null: **{r['min_topics_calibrated']}** (shipped minimum: {r['min_topics_shipped']}).",
            "Size, the share of p < 0.05 when nothing is planted, by k flagged topics:",
            table(["gains", "null", "test", *map(str, ks)], size_rows),
            "Verdicts (one row, m = 1):",
            table(
                [
                    "gains",
                    "test",
                    "replicates",
                    "k",
                    "no evidence or cannot tell at δ = 0",
                    "inflated at δ = mde",
                ],
                verdict_rows,
            ),
            table(["one call", "time"], seconds),
        ]
    )


def offline_table(r: dict[str, Any]) -> str:
    rows = [[k, f"{v['seconds']:.2f} s", f"{v['target']:.0f} s"] for k, v in r.items()]
    return table(["offline case", "time", "target"], rows)


def real_audit_table(r: dict[str, Any]) -> str:
    rows = [
        [
            x["collection"],
            x["model"],
            number(x["gain_leaked"], "+.4f"),
            number(x["gain_other"], "+.4f"),
            f"{number(x['difference'], '+.4f')} {_interval([x['ci_low'], x['ci_high']], '+.4f')}",
            f"{x['p_adjusted']:.2f}",
            f"{x['mde']:.3f}",
            x["verdict"],
        ]
        for x in r["rows"]
    ]
    columns = ["collection", "model", "gain on leaked", "gain on other"]
    columns += ["leaked − other [interval]", "adjusted p", "mde", "verdict"]
    return f"{r['measure']}, {r['statistics']}:\n\n" + table(columns, rows)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def page_switch_table(r: dict[str, Any]) -> str:
    rows = [[p["page"], _ms(p["cold_seconds"]), _ms(p["warm_median_seconds"])] for p in r["pages"]]
    summary = [
        [what, _ms(v["median_seconds"]), _ms(v["max_seconds"]), v["n"]]
        for what, v in r["summary"].items()
    ]
    return "\n\n".join(
        [
            f"Cold start until the Story is drawn ({r['cold_start_includes']}): "
            f"{r['cold_start_seconds']:.1f} s; the first measure change: "
            f"{_ms(r['cold_measure_change_seconds'])}.",
            table(["page", "first visit (cold)", "warm switch, median in page"], rows),
            table(["what", "median", "max", "n"], summary),
        ]
    )


def floor_table(r: dict[str, Any]) -> str:
    rows = [[f"{page} page", _ms(v)] for page, v in r["median_seconds"].items()]
    switches = table(["bare Streamlit", "warm switch, median in page"], rows)
    if "cold_start_median_seconds" not in r:
        return switches
    polled = "cold_start_polled_ratio" in r  # results from before the page's clock have one
    clocks = [("", ", by the page's clock" if polled else "")]
    if polled:
        clocks.append(("_polled", ", as Playwright's waits saw them"))
    rows = [
        [
            f"{len(r[f'cold_start{key}_each_seconds']['floor'])} starts of each, in turn{clock}",
            f"{r[f'cold_start{key}_median_seconds']['floor']:.2f} s",
            f"{r[f'cold_start{key}_median_seconds']['leakeval']:.2f} s",
            f"{r[f'cold_start{key}_ratio']:.2f}×",
        ]
        for key, clock in clocks
    ]
    starts = table(["cold start, median", "bare Streamlit", "the dashboard's Story", "ratio"], rows)
    return f"{starts}\n\n{switches}"


def cache_table(r: dict[str, Any]) -> str:
    row = [f"{r['cold_seconds']:.2f} s", f"{r['warm_seconds']:.2f} s"]
    row.append(f"{100 * r['warm_over_cold']:.0f}%")
    return table(["empty cache (median)", "warm (median)", "warm / cold"], [row])


def leakage_table(r: dict[str, Any] | list[dict[str, Any]]) -> str:
    if isinstance(r, list):  # the encoders' batch sizes
        return generic(r)
    row = [
        r["method"],
        f"{r['topic_texts']:,} topic texts × {r['queries']:,} queries",
        f"{r['seconds']:.1f} s",
        f"{r['queries_per_second']:,.0f} queries/s",
        f"{r['peak_rss_mb']:,.0f} MB",
    ]
    columns = ["method", "compared", "time", "rate", "peak RSS"]
    if r.get("texts_embedded"):
        columns += ["comparing / scoring", "embedded"]
        row += [
            f"{r['search_seconds']:.1f} s / {r['scoring_seconds']:.1f} s",
            f"{r['texts_embedded']:,} texts in {r['embedding_seconds']:.1f} s",
        ]
    if "times_lexical_in_this_run" in r:
        columns.append("× lexical")
        row.append(f"{r['times_lexical_in_this_run']:.1f}×")
    parts = [table(columns, [row])]
    if "reference_commit" in r:
        parts.append(
            f"Against {r['reference_commit']} on the same log: {r['reference_seconds']:.1f} s "
            f"then, {r['times_faster_than_reference']:.1f}× faster now; "
            f"{r['reference_pairs_found']} of its {r['reference_pairs_at_threshold']} "
            "near-duplicate pairs at the method's threshold found again, and "
            f"{'the same' if r['same_leaked_topics'] else 'NOT the same'} "
            f"{r['reference_leaked_topics']} leaked topics."
        )
    return "\n\n".join(parts)


def dask_table(r: dict[str, Any]) -> str:
    rows = [[name, f"{rate:,.0f} queries/s"] for name, rate in r["queries_per_second"].items()]
    hours = [[f"{w} workers", f"{h:.1f} h"] for w, h in r["billion_queries_hours"].items()]
    return "\n\n".join(
        [
            f"{r['queries']:,} queries in {r['shards']} shards; the three tables are "
            f"{'identical' if r['identical_tables'] else 'NOT identical'}; 2 workers / 1 worker: "
            f"{r['speedup_2_over_1']:.2f}× ({100 * r['efficiency']:.0f}% efficient).",
            table(["run", "rate"], rows),
            table(["a billion queries on", "projected"], hours),
        ]
    )


def stress_table(r: dict[str, Any]) -> str:
    """pytest's counts of each run; its own clock is left out, the run's time has a column."""
    rows = [
        [
            i + 1,
            "pass" if x["passed"] else "FAIL",
            f"{x['seconds']:.0f} s",
            x["summary"].split(" in ")[0],
        ]
        for i, x in enumerate(r["runs"])
    ]
    return table(["run", "outcome", "time", "pytest"], rows)


def server_table(r: dict[str, Any]) -> str:
    """One row per claim of the shared server (issue #37); the targets are in the page."""
    rows = []
    if b := r.get("blocking"):
        alone, during = median(b["browser_alone_seconds"]), median(b["browser_during_seconds"])
        rows.append(
            [
                "cheap page switch while another session rescores cold (browser)",
                f"{alone:.2f} s alone, {during:.2f} s during: ×{b['browser_ratio']:.2f}",
            ]
        )
        rows.append(["the same, the server's time only", f"×{b['direct_ratio']:.2f}"])
    if c := r.get("cold"):
        for kind, ratio in c["ratios"].items():
            many = c["runs"][kind][f"{c['parameters']['users']} users"]
            rows.append(
                [
                    f"{c['parameters']['users']} cold users at once, {kind}",
                    f"slowest ×{ratio['slowest']:.2f} one user's; the server used "
                    f"{many['cores_used']:.2f} cores",
                ]
            )
    if k := r.get("soak"):
        ref = k["rss_reference"]
        rows.append(
            [
                f"{k['visits']} page visits by {k['parameters'].get('users', '?')} users",
                f"RSS {ref['rss_mb']:.0f} MB at visit {ref['visit']}, {k['rss_end_mb']:.0f} MB "
                f"at the end (×{k['rss_ratio_end_to_reference']:.2f}); {k['errors']} errors",
            ]
        )
    if u := r.get("uploads"):
        released = u["released_after_seconds"]
        rows.append(
            [
                f"{len(u['file_mb'])} uploads of {median(u['file_mb']):.0f} MB, tabs closed",
                f"RSS {u['rss_baseline_mb']:.0f} MB before, {u['rss_peak_mb']:.0f} MB at the "
                f"peak, {u['rss_end_mb']:.0f} MB at the end; "
                + (
                    f"back within 10% after {released:.0f} s"
                    if released is not None
                    else f"not back within 10% in {u['release_timeout_seconds']:.0f} s"
                )
                + f" (session TTL {u['session_ttl'].get('value')} s)",
            ]
        )
    return table(["claim", "measured"], rows)


RENDERERS: dict[str, Callable[[Any], str]] = {
    "server_bench": server_table,
    "page_switch_bench": page_switch_table,
    "streamlit_floor": floor_table,
    "cache_bench": cache_table,
    "leakage_bench": leakage_table,
    "dask_bench": dask_table,
    "browser_stress": stress_table,
    "real_audit_bench": real_audit_table,
    "score_bench": score_table,
    "large_run_bench": large_run_table,
    "formats_bench": formats_table,
    "trec_eval_agreement": agreement_table,
    "detection_bench": detection_table,
    "audit_bench": audit_table,
    "offline_bench": offline_table,
}


def encoder_floor_table(r: dict[str, Any]) -> str:
    """The encoders' lexical floor: chosen in each training fold, what it keeps held out."""
    rows = [
        [i + 1, f"{f['floor']:.2f}", f"{f['kept']} of {f['near_duplicates']}"]
        for i, f in enumerate(r["folds"])
    ]
    return "\n\n".join(
        [
            f"The highest floor keeping {r['keep']:.0%} of the training folds' near-duplicates "
            f"keeps {r['held_out_kept']:.2%} of the held-out ones; on every pair it is "
            f"{r['floor']:.2f} (shipped: {r['shipped']:.2f}), under which "
            f"{r['near_duplicates_under_floor']} judged near-duplicates fall.",
            table(["fold", "floor chosen", "held-out near-duplicates kept"], rows),
        ]
    )


NESTED = {
    "detection_bench-nested": nested_table,
    "detection_bench-relations": relations_table,
    "detection_bench-floor": encoder_floor_table,
}


def _bench(name: str) -> str:
    if name in NESTED and (data := load(name)) is not None:
        return f"{header(data)}\n\n{NESTED[name](data['results'])}"
    return bench_macro(name)


def unmeasured_macro() -> str:
    have = {p.stem.split("-")[0] for p in RESULTS.glob("*.json")}
    benches = sorted(
        p.stem
        for p in (ROOT / "bench").glob("*.py")
        if p.stem not in have and "record.write" in p.read_text()
    )
    if not benches:
        return "Every bench has results here."
    return "\n".join(f"- `python bench/{b}.py`: no results in this checkout yet." for b in benches)


# --- the module layout ---------------------------------------------------------------------


def first_sentence(source: str) -> str:
    """The first sentence of a module's docstring (its first paragraph if it has no stop)."""
    doc = ast.get_docstring(ast.parse(source)) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?\.)(\s|$)", paragraph)
    return (match[1] if match else paragraph) or "(no docstring)"


def modules_macro() -> str:
    """Every package and module of the core, the app, its pages and the fitting code, with its
    docstring's first sentence,
    read from the files (nothing imported), so the list follows every rename."""
    lines: list[str] = []

    def walk(folder: Path, depth: int) -> None:
        init = folder / "__init__.py"
        summary = (
            first_sentence(init.read_text())
            if init.exists()
            else "(a folder of scripts, not a package)"
        )
        lines.append(f"{'    ' * depth}- `{folder.name}/`: {summary}")
        for path in sorted(folder.glob("*.py")):
            if path.name not in ("__init__.py", "__main__.py"):
                text = first_sentence(path.read_text())
                lines.append(f"{'    ' * (depth + 1)}- `{path.name}`: {text}")
        for sub in sorted(p for p in folder.iterdir() if p.is_dir() and any(p.glob("*.py"))):
            walk(sub, depth + 1)

    for package in PACKAGES:
        walk(ROOT / package, 0)
    return "\n".join(lines)


# --- the statistical procedures ------------------------------------------------------------


def procedures_macro() -> str:
    """The tests and intervals as `leakeval_core.analysis.procedures` declares them: the page
    says what the code computes because it is written from the same declarations."""
    from leakeval_core.analysis import procedures

    def key(name: str, default: str) -> str:
        return f"`{name}` (default)" if name == default else f"`{name}`"

    tests = table(
        [
            "`--test`",
            "name",
            "between conditions (paired)",
            "its interval",
            "leaked minus other",
            "its interval",
            "why",
        ],
        [
            [
                key(t.key, procedures.DEFAULT_TEST),
                t.shown,
                t.paired.name,
                t.paired.interval,
                t.two_sample.name,
                t.two_sample.interval,
                t.description,
            ]
            for t in procedures.TESTS.values()
        ],
    )
    intervals = table(
        ["`--interval`", "name", "between conditions (paired)", "leaked minus other", "how"],
        [
            [
                key(m.key, procedures.DEFAULT_INTERVAL),
                m.shown,
                m.paired.kind,
                m.two_sample.kind,
                m.description,
            ]
            for m in procedures.INTERVALS.values()
        ],
    )
    many = procedures.MANY_SYSTEMS
    systems = table(
        ["many systems at once", "permutations (default)", "what it does", "reference"],
        [[many.name, f"{many.resamples:,}", many.description, many.reference]],
    )
    return f"{tests}\n\n{intervals}\n\n{systems}"


def scoring_code_macro() -> str:
    """The folders and modules whose source keys the caches (`digests.SCORING_CODE`), as a
    list: the page cannot name fewer or more than the key reads."""
    from leakeval_core.experiment.digests import SCORING_CODE

    names = [path.relative_to(ROOT).as_posix() for path in SCORING_CODE]
    return "\n".join(f"  - `{n}{'/' if (ROOT / n).is_dir() else ''}`" for n in names)


def nginx_macro() -> str:
    """The nginx site of docs/serving.md, as `proxy.nginx_site` renders it for a lab's
    host with TLS at the default upload limit: the page shows the tested template."""
    from leakeval_app.limits import DEFAULT_UPLOAD_MB, STREAMLIT_MARGIN
    from leakeval_app.proxy import nginx_site

    return nginx_site(
        "leakeval.lab.example.org",
        "127.0.0.1:8501",
        "/etc/nginx/leakeval.htpasswd",
        certificate=("/etc/ssl/lab/fullchain.pem", "/etc/ssl/lab/privkey.pem"),
        upload_mb=STREAMLIT_MARGIN * DEFAULT_UPLOAD_MB,
    ).rstrip("\n")


MACROS: dict[str, Callable[..., str]] = {
    "bench": _bench,
    "value": value_macro,
    "range": range_macro,
    "modules": modules_macro,
    "procedures": procedures_macro,
    "scoring_code": scoring_code_macro,
    "unmeasured": unmeasured_macro,
    "nginx": nginx_macro,
}


# --- generated pages -----------------------------------------------------------------------


def _pytrec_families(aggregate: str) -> list[str]:
    """The pytrec_eval measures whose `all` row combines queries as `aggregate` says."""
    from leakeval_core.evaluation import measures

    return sorted(n for n, f in measures.PYTREC_FAMILIES.items() if f.aggregate == aggregate)


def _unranked(family) -> str:
    """What a query the run does not rank scores, from the declaration (`unranked`)."""
    if family.unranked is None and math.isnan(family.nothing_to_credit):
        return "none: left out of the mean, counted"
    if family.unranked is None:
        return "from the qrels alone"
    return f"{family.unranked:g}"


def measures_page() -> str:
    from leakeval_core.evaluation import ir_names, measures

    lines = [
        "# Measures",
        "",
        "Generated from the measure registry (`FAMILIES`, `IR_MEASURES`, `ALL_TREC`): every "
        "name here is one the CLI, the API, the app's link and its picker accept.",
        "",
        "## Computed by leakeval",
        "",
        "`K` is a cutoff (`ndcg_cut_10`). Each measure says which way is better, how the "
        "`all` row combines queries, and the differences δ whose topics needed every "
        "leaked-vs-other row and paired comparison reports unless `--delta` asks for others "
        f"(in its own unit; pytrec_eval's other measures: "
        f"{', '.join(f'{d:g}' for d in measures.SCORE_DELTAS)}, its num_* counts "
        f"{', '.join(f'{d:g}' for d in measures.COUNT_DELTAS)}), and what the relevance level "
        "does to it, as trec_eval's `-l` does (among pytrec_eval's measures, "
        + "; ".join(
            kind
            + ": "
            + ", ".join(
                f"`{n}`" for n, f in measures.PYTREC_FAMILIES.items() if f.relevance == kind
            )
            for kind in ("graded", "unread")
        )
        + "; every other one is binary).",
        "",
    ]
    rows = [
        [
            f"`{f.name}_K`" if f.cutoff else f"`{f.name}`",
            re.sub(r"\{k[^}]*\}", "K", f.label),
            f.better,
            f.aggregate,
            ", ".join(f"{d:g}" for d in f.deltas),
            f"{f.relevance}: {measures.RELEVANCE[f.relevance]}",
            _unranked(f),
            f.description,
        ]
        for f in measures.FAMILIES.values()
    ]
    header = [
        "trec_eval name",
        "label",
        "better",
        "combined by",
        "δ sized for",
        "relevance level",
        "a query the run misses",
        "what it is",
    ]
    lines.append(table(header, rows))
    lines += [
        "",
        "## ir_measures names",
        "",
        "ir_measures' names (PyTerrier's, and most current papers') read as the trec_eval "
        "measure that computes the same number; `@K` is the cutoff, and the parameters set "
        "that measure's own relevance level or gain (`P(rel=2)@10`, `nDCG(dcg='exp-log2')@10`).",
        "",
    ]
    rows = []
    for name, m in ir_names.IR_MEASURES.items():
        forms = [f"`{name}`"] if m.whole else []
        forms += [f"`{name}@K`"] if m.cut else []
        trec = [f"`{x.replace('{k}', 'K')}`" for x in (m.whole, m.cut) if x]
        params = ", ".join(measures.ir_parameters(name)) or "—"
        rows.append([", ".join(forms), ", ".join(trec), params])
    lines.append(table(["ir_measures", "trec_eval", "parameters"], rows))
    lines += [
        "",
        "## trec_eval's `all_trec`, through pytrec_eval",
        "",
        "`--measures all_trec` is trec_eval's `-m all_trec`. Measures not in the first table "
        "are computed by pytrec_eval on leakeval's ranking. Summed in the `all` row: "
        + ", ".join(f"`{n}`" for n in _pytrec_families("sum"))
        + "; geometric means: "
        + ", ".join(f"`{n}`" for n in _pytrec_families("geometric"))
        + "; a query the run misses (trec_eval -c) scores 0 on every measure but "
        + ", ".join(
            f"`{n}` ({_unranked(f)})"
            for n, f in measures.PYTREC_FAMILIES.items()
            if f.unranked != 0
        )
        + "; refused by name (text, not numbers): "
        + ", ".join(f"`{n}`" for n in sorted(measures.TEXT_MEASURES))
        + ".",
        "",
        ", ".join(f"`{n}`" for n in measures.ALL_TREC),
        "",
        "## Defaults",
        "",
        "Scored when none are named: "
        + ", ".join(f"`{n}`" for n in measures.DEFAULT_MEASURES)
        + ". The dashboard scores "
        + ", ".join(f"`{n}`" for n in measures.DASHBOARD_MEASURES)
        + " once per experiment and conventions.",
        "",
    ]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The `leakeval` command's parser, found as the CLI module's function that returns one
    (whatever it is called)."""
    import leakeval_core.cli as cli

    for function in vars(cli).values():
        if (
            inspect.isfunction(function)
            and function.__module__ == cli.__name__
            and "ArgumentParser" in str(inspect.signature(function).return_annotation)
            and not inspect.signature(function).parameters
        ):
            return function()
    raise DocsError("no function in leakeval_core.cli returns the ArgumentParser")


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("leakeval",), summary=""):
    """(command path, its parser, its one-line help) for the command and every subcommand."""
    yield path, parser, summary or parser.description or ""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name), helps.get(name, ""))


def flags(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)
    ]


def cli_page() -> str:
    parser = build_parser()
    formatter = parser._get_formatter()
    lines = [
        "# Command line",
        "",
        "Generated from the `leakeval` command's own parsers: every subcommand and flag, with "
        "the help `leakeval COMMAND --help` prints. Bad input exits with status 2 and one "
        "line, `leakeval: FILE:LINE: what is wrong`; `--debug` shows the traceback of an "
        "unexpected internal error.",
        "",
    ]
    for path, sub, summary in commands(parser):
        lines += [f"{'#' * max(2, len(path))} `{' '.join(path)}`", ""]
        if summary:
            stop = "" if summary.endswith((".", "?", "!")) else "."
            lines += [summary[0].upper() + summary[1:] + stop, ""]
        if sub.description and sub.description != summary:
            lines += [sub.description, ""]
        lines += ["```", sub.format_usage().strip(), "```", ""]
        rows = []
        for action in flags(sub):
            names = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.dest}`"
            if action.choices and not isinstance(action.choices, dict):
                arg = ", ".join(str(c) for c in action.choices)
            elif action.nargs == 0:
                arg = ""
            else:
                arg = str(action.metavar or action.dest.upper())
            text = formatter._expand_help(action) if action.help else ""
            rows.append([names, arg, " ".join(text.split())])
        if rows:
            lines += [table(["flag", "argument", "help"], rows), ""]
    return "\n".join(lines)


def api_names() -> list[tuple[str, str]]:
    """(name, the identifier mkdocstrings documents it under) for `leakeval_core.api.__all__`,
    resolved where each name is defined today, so module renames never need this page
    edited."""
    import importlib
    import pkgutil

    api = importlib.import_module("leakeval_core.api")
    out = []
    for name in api.__all__:
        obj = getattr(api, name)
        module = getattr(obj, "__module__", None) if callable(obj) else None
        if module is None:  # a constant: the api module that binds it
            for info in sorted(pkgutil.iter_modules(api.__path__), key=lambda i: i.name):
                mod = importlib.import_module(f"{api.__name__}.{info.name}")
                if vars(mod).get(name) is obj:
                    module = mod.__name__
                    break
        out.append((name, f"{module}.{getattr(obj, '__qualname__', name)}"))
    return out


def api_page() -> str:
    import importlib

    api = importlib.import_module("leakeval_core.api")
    intro = (api.__doc__ or "").strip()
    lines = [
        "# Python API",
        "",
        "Generated from the docstrings of every name in `leakeval_core.api.__all__`; "
        "`import leakeval_core as le` exports the verbs and results most studies need "
        "(`le.score`, `le.compare`, `le.audit`, `le.Study`, `le.View`, ...).",
        "",
        intro,
        "",
    ]
    for _, identifier in api_names():
        lines += [f"::: {identifier}", "    options:", "      heading_level: 2", ""]
    return "\n".join(lines)


GENERATED: dict[str, Callable[[], str]] = {
    "reference/measures.md": measures_page,
    "reference/cli.md": cli_page,
    "reference/api.md": api_page,
}
