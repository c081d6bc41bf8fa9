"""JSON nested hundreds of thousands of levels deep is one line naming the file, never a
RecursionError (which the CLI called an internal error and the dashboard a traceback)."""

from __future__ import annotations

import pytest

from leakeval_core.errors import ParseError
from leakeval_core.io import trec
from leakeval_core.leakage.given import read_pairs
from tests.support import write

DEEP = 200_000
TOO_DEEP = "invalid JSON: nested too deeply"


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("objects.json", '{"301":' * DEEP + "1" + "}" * DEEP, 1),
        ("arrays.json", '{"301": {"d": ' + "[" * DEEP + "]" * DEEP + "}}", 1),
        ("second.jsonl", '{"qid": "1", "docno": "d", "score": 1}\n{"qid": ' + "[" * DEEP, 2),
    ],
)
def test_a_deeply_nested_run_is_one_error_naming_the_file(name, text, line):
    with pytest.raises(ParseError) as raised:
        trec.read_run_table((name, text.encode()))
    assert str(raised.value).startswith(f"{name}:{line}: {TOO_DEEP}")


def test_a_deeply_nested_first_line_is_read_as_a_mapping_and_refused():
    """Too deep to be a JSON line, it is taken for a mapping, whose reader names the line."""
    text = '{"qid": "1", "docno": "d", "score": 1, "x": ' + "[" * DEEP + "]" * DEEP + "}\n"
    with pytest.raises(ParseError, match=r"^first\.jsonl:1: "):
        trec.read_run_table(("first.jsonl", text.encode()))


def test_a_deeply_nested_sidecar_is_one_error_naming_it(tmp_path):
    pairs = write(tmp_path / "pairs.csv", "test_qid,train_qid,similarity\n301,t1,0.9\n")
    write(tmp_path / "pairs.csv.json", "[" * DEEP + "]" * DEEP)
    with pytest.raises(ParseError, match=rf"pairs\.csv\.json: not JSON: {TOO_DEEP[14:]}"):
        read_pairs(pairs)
