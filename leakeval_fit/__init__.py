"""Fitting and choosing detectors from labelled pairs: research code, not the runtime.

Nested, topic-grouped cross-validation over candidate detectors (`detector_selection`) and
over the title relation (`relation_selection`, which also fits it). `bench/detection_bench.py`
runs them to choose what ships (the hybrids' weights, `leakage.relations.TITLE_RELATION`)
and to report how well the choice generalises. `leakeval_core` and `leakeval_app` never
import this package; the architecture test holds them to it.
"""
