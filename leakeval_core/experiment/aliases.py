"""The names the field uses for its collections, resolved to ir_datasets ids.

Kept apart from the loaders so that computing a cache key (digests) can resolve an alias
without importing ir_datasets or pandas.
"""

from __future__ import annotations

__all__ = ["ALIASES", "resolve_alias"]

ALIASES = {
    "robust04": "disks45/nocr/trec-robust-2004",
    "core17": "nyt/trec-core-2017",
    "core18": "wapo/v2/trec-core-2018",
    "msmarco-train": "msmarco-document/train",
    "orcas": "msmarco-document/orcas",
}


def resolve_alias(name: str) -> str:
    return ALIASES.get(name, name)
