"""Detection quality on human judgments: every method, grouped cross-validation by topic.

    python bench/detection_bench.py [LABELS] [--fit] [--nested] [--floor] [--json OUT]

LABELS defaults to ../shared/labels/spire22-near-duplicates.dev.tsv. Prints, per method:
ROC and PR AUC, different-topic pairs rejected at 90% and 95% recall, cross-validated
precision/recall/F1 at the thresholds chosen on the other folds, the shipped threshold, and
category agreement, for every method installed. `--fit` refits each installed hybrid on
every pair and prints the values `leakeval_core/leakage/hybrid.py` ships (MODELS), with the
grouped CV of each C, and writes the keys of the pairs they were fitted on (FITTED_PAIRS)
beside it.

`--nested` reports the figures the README quotes instead: for each method, every choice
behind it (signals, the definition word list's halves, C, the encoder for `ensemble` and
`all`) made inside the training folds of a topic-grouped nested CV
(`leakeval_fit/detector_selection.py`); the outer folds' pooled ROC AUC with a 95% interval
from resampling topics, its spread over re-drawn outer splits, the different needs rejected
at 90% / 95% recall, precision and recall at thresholds chosen inside the training folds,
and which candidate each outer fold chose.

`--floor` chooses the lexical floor under the encoders (`leakeval_fit/encoder_floor.py`)
inside the training folds and reports the held-out near-duplicates it keeps.

Each mode writes its figures to bench/results/ (detection_bench.json, detection_bench-nested.json,
detection_bench-relations.json, detection_bench-floor.json), which the docs render.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import record

from leakeval_core.leakage import hybrid
from leakeval_core.leakage.detection_options import (
    available_methods,
    encoder_installed,
    encoder_of,
    is_hybrid,
)
from leakeval_core.leakage.detection_quality import evaluate_detection, labelled_scores
from leakeval_core.leakage.labels import read_labels
from leakeval_core.leakage.similarity import match

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT.parent / "shared" / "labels" / "spire22-near-duplicates.dev.tsv"
REPEATS = 5


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("labels", nargs="?", default=str(LABELS))
    parser.add_argument("--fit", action="store_true", help="refit the shipped hybrid model")
    parser.add_argument("--nested", action="store_true", help="nested CV of every method")
    parser.add_argument(
        "--repeats", type=int, default=REPEATS, help="outer splits re-drawn (--nested)"
    )
    parser.add_argument(
        "--signals", help="parquet of the pairs' signals: read if present, else written (--nested)"
    )
    parser.add_argument(
        "--relations", action="store_true", help="nested CV of the category rule vs a fitted one"
    )
    parser.add_argument(
        "--fit-relation", action="store_true", help="refit the shipped title relation"
    )
    parser.add_argument(
        "--floor", action="store_true", help="the encoders' lexical floor, chosen inside folds"
    )
    parser.add_argument("--json", help="write every method's figures here")
    args = parser.parse_args()
    labels = read_labels(args.labels)
    config = vars(args) | {"pairs": len(labels.table), "topics": labels.table.topic.nunique()}
    note = (
        f"{args.repeats} outer splits, not the default {REPEATS}: a smaller configuration, as "
        "the nested CV of every method takes over 15 minutes at 3 on two shared cores."
        if args.repeats < REPEATS and (args.nested or args.relations)
        else ""
    )
    if args.relations:
        results = {
            "relations": relations(labels, args.repeats),
            "categories": matched_categories(labels, args.repeats),
        }
        record.write("detection_bench-relations", results, config=config, note=note)
        return
    if args.fit_relation:
        fit_title_relation(labels)
        return
    if args.floor:
        record.write("detection_bench-floor", floor(labels, args.repeats), config=config)
        return
    if args.fit:
        refit(labels)
    if args.nested:
        rows = nested(labels, args.repeats, args.signals)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
        record.write("detection_bench-nested", rows, config=config, note=note)
        return
    rows = []
    print(f"{args.labels}: {len(labels.table)} pairs, {labels.table.topic.nunique()} topics")
    print(
        "method          ROC AUC  PR AUC  rej@90  rej@95  thresh   P(cv)  R(cv)  F1(cv)  category"
    )
    for method in available_methods():
        start = time.perf_counter()
        q = evaluate_detection(labels, method)
        rows.append(q.as_dict())
        print(
            f"{method:14s}  {q.roc_auc:7.3f}  {q.pr_auc:6.3f}  {q.rejected_at_90:6.2f}  "
            f"{q.rejected_at_95:6.2f}  {q.threshold:6.3f}  {q.precision:6.3f}  {q.recall:5.3f}"
            f"  {q.f1:6.3f}  {q.category_agreement:8.3f}   ({time.perf_counter() - start:.1f} s)"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    record.write("detection_bench", rows, config=config)


def floor(labels, repeats: int) -> dict:
    """The lexical floor under the encoders (`leakeval_fit.encoder_floor`): chosen on the
    training topics of each fold of `repeats` grouped 5-fold splits, with the held-out
    near-duplicates it keeps; and the floor the rule gives on every pair, which ships."""
    from leakeval_core.leakage.detection_options import ENCODER_FLOOR
    from leakeval_fit.detector_selection import grouped_folds
    from leakeval_fit.encoder_floor import KEEP, choose_floor, held_out_floors

    lexical = evaluate_detection(labels, "lexical").scored.similarity.to_numpy()
    y = labels.table.near_duplicate.to_numpy(dtype=int)
    groups = labels.table.topic.to_numpy()
    folds = [
        fold
        for seed in range(repeats)
        for fold in held_out_floors(lexical, y == 1, grouped_folds(y, groups, 5, seed))
    ]
    kept = sum(f["kept"] for f in folds) / sum(f["near_duplicates"] for f in folds)
    chosen = choose_floor(lexical, y == 1)
    print(
        f"floor keeping {KEEP:.0%} of the training folds' near-duplicates: "
        f"{sorted({f['floor'] for f in folds})} over {len(folds)} folds; the held-out "
        f"near-duplicates kept: {kept:.2%} (fewest in a fold: "
        f"{min(f['kept'] / f['near_duplicates'] for f in folds):.2%}); on every pair: "
        f"{chosen} (shipped: {ENCODER_FLOOR}); lowest judged near-duplicate: "
        f"{lexical[y == 1].min():.3f}"
    )
    return {
        "keep": KEEP,
        "folds": folds,
        "held_out_kept": kept,
        "floor": chosen,
        "shipped": ENCODER_FLOOR,
        "lowest_near_duplicate": float(lexical[y == 1].min()),
        "near_duplicates_under_floor": int((lexical[y == 1] < chosen).sum()),
    }


def relations(labels, repeats: int) -> list[dict]:
    """Agreement with the annotators' relation of near-duplicates to the topic's title and to
    the matched variant: the rule alone, and the rule or a fitted model chosen inside the
    training folds (`leakage.relations`), on the same outer folds."""
    from leakeval_core.leakage import relations as rel
    from leakeval_core.leakage.text import normalize
    from leakeval_fit import relation_selection as nested_rel

    near = labels.table[labels.table.near_duplicate == 1]
    out = []
    print(
        "text     pairs  split  rule   [95% CI]         chosen inside  [95% CI]         "
        "chosen - rule [95% CI]"
    )
    for field in ("title", "variant"):
        rows = near[near[f"{field}_relation"] != ""].reset_index(drop=True)
        features = rel.relation_features(normalize(rows[field]), normalize(rows.train_text))
        truth, groups = rows[f"{field}_relation"].to_numpy(), rows.topic.to_numpy()
        for seed in range(repeats):
            rule = nested_rel.nested_relations(
                features, truth, groups, seed=seed, candidates=(None,)
            )
            chosen = nested_rel.nested_relations(features, truth, groups, seed=seed)
            r_low, r_high = nested_rel.agreement_interval(rule)
            c_low, c_high = nested_rel.agreement_interval(chosen)
            d_low, d_high = nested_rel.agreement_interval(chosen, against=rule)
            print(
                f"{field:8s} {len(rows):5d}  {seed:5d}  {rule.agreement():.3f} "
                f"[{r_low:.3f}, {r_high:.3f}]  {chosen.agreement():.3f}          "
                f"[{c_low:.3f}, {c_high:.3f}]  {chosen.agreement() - rule.agreement():+.3f} "
                f"[{d_low:+.3f}, {d_high:+.3f}]  {', '.join(chosen.chosen)}"
            )
            out.append(
                {
                    "field": field,
                    "pairs": len(rows),
                    "split": seed,
                    "rule": rule.agreement(),
                    "rule_interval": [r_low, r_high],
                    "chosen": chosen.agreement(),
                    "chosen_interval": [c_low, c_high],
                    "difference": chosen.agreement() - rule.agreement(),
                    "difference_interval": [d_low, d_high],
                    "choices": list(chosen.chosen),
                }
            )
    return out


def matched_categories(labels, repeats: int) -> dict:
    """Category agreement as `evaluate_detection` measures it (each near-duplicate against
    the text it matched best: by the rule against a variant, by the title relation against
    a title), with the title relation refitted inside each outer fold (C chosen inside it)
    and only held-out topics scored: the shipped figure is in-sample for title matches."""
    from sklearn.metrics import cohen_kappa_score

    from leakeval_core.leakage import relations as rel
    from leakeval_core.leakage.text import normalize
    from leakeval_fit.detector_selection import grouped_folds
    from leakeval_fit.relation_selection import choose_c, fit_relation

    near = labels.table[labels.table.near_duplicate == 1]
    titles = near[near.title_relation != ""].reset_index(drop=True)
    title_features = rel.relation_features(normalize(titles.title), normalize(titles.train_text))
    title_truth, title_topics = titles.title_relation.to_numpy(), titles.topic.to_numpy()
    quality = evaluate_detection(labels, "lexical")  # the category does not depend on it
    scored = quality.scored[quality.scored.near_duplicate == 1].reset_index(drop=True)
    features = rel.relation_features(normalize(scored.test_text), normalize(scored.train_text))
    truth, topics = scored.relation.to_numpy(), scored.topic.to_numpy()
    on_title = (scored.field == "title").to_numpy()
    print(
        f"category agreement as evaluate_detection measures it: {quality.category_agreement:.3f}"
        f" (Cohen's kappa {cohen_kappa_score(truth, scored.category):.3f}) with the shipped title"
        f" relation ({on_title.sum()} of {len(scored)} matched a title)"
    )
    nested_agreement = []
    for seed in range(repeats):
        predicted = features.rule.to_numpy().astype(object)
        per_fold = []
        for _, held in grouped_folds(truth, topics, 5, seed):
            fit = ~np.isin(title_topics, topics[held])
            c, _ = choose_c(title_features[fit], title_truth[fit], title_topics[fit], seed=seed)
            rows = held[on_title[held]]
            if c is not None and len(rows):
                model = fit_relation(title_features[fit], title_truth[fit], c)
                predicted[rows] = model.predict(features.iloc[rows])
            per_fold.append((predicted[held] == truth[held]).mean())
        print(f"  nested, split {seed}: {np.mean(per_fold):.3f} (mean over held-out folds)")
        nested_agreement.append(float(np.mean(per_fold)))
    return {
        "shipped_agreement": quality.category_agreement,
        "shipped_kappa": float(cohen_kappa_score(truth, scored.category)),
        "matched_title": int(on_title.sum()),
        "near_duplicates": len(scored),
        "nested_agreement_per_split": nested_agreement,
    }


def fit_title_relation(labels) -> None:
    """The shipped TITLE_RELATION: C chosen by grouped CV on every judged title relation (the
    procedure `--relations` measures), then fitted on them all. Prints the literal."""
    from leakeval_core.leakage import relations as rel
    from leakeval_core.leakage.text import normalize
    from leakeval_fit.relation_selection import choose_c, fit_relation

    near = labels.table[labels.table.near_duplicate == 1]
    rows = near[near.title_relation != ""].reset_index(drop=True)
    features = rel.relation_features(normalize(rows.title), normalize(rows.train_text))
    truth = rows.title_relation.to_numpy()
    c, inner = choose_c(features, truth, rows.topic.to_numpy())
    print(f"chosen: {'the rule' if c is None else f'C = {c:g}'} (inner agreement {inner:.3f})")
    if c is None:
        return
    model = fit_relation(features, truth, c)

    def numbers(values) -> str:
        return "(" + ", ".join(f"{v:.4f}" for v in values) + ",)"

    print("TITLE_RELATION = RelationModel(")
    print(f"    mean={numbers(model.mean)},")
    print(f"    scale={numbers(model.scale)},")
    print("    weights=(")
    for row in model.weights:
        print(f"        {numbers(row)},")
    print("    ),")
    print(f"    intercepts={numbers(model.intercepts)},")
    print(f"    classes={model.classes!r},")
    print(")")


def nested(labels, repeats: int, signals: str | None) -> list[dict]:
    from collections import Counter

    from sklearn.metrics import average_precision_score

    from leakeval_fit import detector_selection as selection

    encoders = tuple(e for e in ("minilm", "mpnet") if encoder_installed(e))
    start = time.perf_counter()
    if signals and Path(signals).exists():
        features = pd.read_parquet(signals)
    else:
        features = selection.signal_table(labels, encoders)
        if signals:
            features.to_parquet(signals)
    y = labels.table.near_duplicate.to_numpy(dtype=int)
    groups = labels.table.topic.to_numpy()
    print(
        f"{len(y)} pairs ({int((y == 0).sum())} different), {len(set(groups))} topics; "
        f"signals in {time.perf_counter() - start:.0f} s"
    )
    print(
        "family          cands  ROC AUC [95% topics]     repeats mean±sd  PR AUC  rej@90  "
        "rej@95   P(fold) R(fold)  Brier"
    )
    families = ["lexical"] + [
        f"{kind}{'' if e == 'minilm' else '-' + e}"
        for e in encoders
        for kind in ("semantic", "hybrid")
    ]
    families += ["ensemble", "all"] if len(encoders) > 1 else ["all"]
    rows, firsts = [], {}
    for family in families:
        start = time.perf_counter()
        candidates = selection.candidate_space(family, encoders)
        runs = [
            selection.nested_cross_validation(
                candidates, features, y, groups, seed=seed, lexical=features.lexical.to_numpy()
            )
            for seed in range(repeats)
        ]
        first = firsts[family] = runs[0]
        low, high = selection.topic_bootstrap(first)
        aucs = np.array([r.roc_auc() for r in runs])
        fold = first.at_fold_thresholds()
        chosen = Counter(name for r in runs for name in r.chosen).most_common(3)
        row = {
            "family": family,
            "candidates": len(candidates),
            "roc_auc": first.roc_auc(),
            "roc_auc_interval": [low, high],
            "roc_auc_repeats_mean": float(aucs.mean()),
            "roc_auc_repeats_sd": float(aucs.std(ddof=1)) if repeats > 1 else 0.0,
            "pr_auc": float(average_precision_score(y, first.scores)),
            "brier": first.brier(),
            "rejected_at_90": first.rejected_at(0.90),
            "rejected_at_95": first.rejected_at(0.95),
            **{f"fold_{k}": v for k, v in fold.items()},
            "chosen": chosen,
        }
        rows.append(row)
        print(
            f"{family:14s}  {len(candidates):5d}  {row['roc_auc']:.3f} [{low:.3f}, {high:.3f}]"
            f"   {aucs.mean():.3f}±{row['roc_auc_repeats_sd']:.3f}     {row['pr_auc']:.3f}  "
            f"{row['rejected_at_90']:6.2f}  {row['rejected_at_95']:6.2f}   "
            f"{fold['precision']:.3f}   {fold['recall']:.3f}   {row['brier']:.3f} "
            f"({time.perf_counter() - start:.0f} s)"
        )
        for name, count in chosen:
            print(f"      chosen {count}x: {name}")
    print("paired differences of ROC AUC, same outer folds, 95% interval over topics:")
    for a, b in PAIRED:
        if a in firsts and b in firsts:
            low, high = selection.topic_bootstrap(firsts[a], against=firsts[b])
            diff = firsts[a].roc_auc() - firsts[b].roc_auc()
            rows.append({"paired": [a, b], "difference": diff, "interval": [low, high]})
            print(f"  {a} - {b}: {diff:+.3f} [{low:+.3f}, {high:+.3f}]")
    return rows


PAIRED = (
    ("hybrid", "semantic"),
    ("hybrid-mpnet", "semantic-mpnet"),
    ("semantic-mpnet", "semantic"),
    ("ensemble", "hybrid-mpnet"),
    ("all", "semantic-mpnet"),
)
"""Is a fitted method better than its encoder's cosine, mpnet than MiniLM, the ensemble than
its best part, choosing everything inside than fixing mpnet's cosine?"""


def refit(labels) -> None:
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    side, pairs, lexical = labelled_scores(labels)
    y = pairs.near_duplicate.to_numpy()
    groups = pairs.test_qid.to_numpy()
    for method in filter(is_hybrid, available_methods()):
        matches = match(side.table, pairs, method, lexical)
        features = hybrid.pair_features(matches, side.topics, pairs)
        for c in (0.01, 0.1, 1.0, 10.0):
            scores = np.zeros(len(y))
            for train, test in GroupKFold(5).split(features, y, groups):
                scores[test] = hybrid.score(
                    features.iloc[test], hybrid.fit(features.iloc[train], y[train], c)
                )
            print(f"{method} C={c}: grouped 5-fold ROC AUC {roc_auc_score(y, scores):.4f}")
        model = hybrid.fit(features, y)
        print(f'    "{encoder_of(method)}": HybridModel(')
        for name in ("mean", "scale", "weights"):
            print(f"        {name}=({', '.join(f'{v:.4f}' for v in getattr(model, name))}),")
        print(f"        intercept={model.intercept:.4f},\n    ),")
    keys = hybrid.pair_keys(labels.table.topic, labels.table.train_text)
    out = Path(hybrid.__file__).with_name(hybrid.FITTED_PAIRS)
    out.write_text("\n".join(sorted(set(keys))) + "\n")
    print(f"keys of the {len(keys)} fitted pairs written to {out}")


if __name__ == "__main__":
    main()
