"""Docid hashes tell apart docids that differ in a few characters, as a collection's do."""

import numpy as np
import pyarrow as pa

from leakeval_core.io.hashing import hash_width, string_hashes


def test_docids_alike_but_for_a_few_characters_hash_apart():
    """TREC docids share their shape and differ in a few digits of two words: a product
    carries a word's difference upward only, so without folding the high bits back these
    collided (FR940810-2-00127 and FR940819-2-00128, 95 of Robust04's 174,787 docids).
    Collisions cost only time, as matches are confirmed on the strings, but each is a
    round of the search for every run."""
    docids = [
        f"FR94{month:02d}{day:02d}-{part}-{number:05d}"
        for month in range(1, 13)
        for day in range(1, 29)
        for part in range(3)
        for number in range(0, 600, 3)
    ] + ["FR940810-2-00127", "FR940819-2-00128"]
    values = pa.array(docids)
    hashes = string_hashes(values, hash_width(values))
    assert len(np.unique(hashes)) == len(docids)
