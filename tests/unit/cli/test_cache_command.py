"""`leakeval cache`: what the on-disk cache holds, within LEAKEVAL_CACHE_MB."""

import json

from leakeval_core.cli import main
from tests.support import baseline_experiment


def usage(capsys) -> dict:
    assert main(["cache", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cache_says_its_size_and_entries_and_stays_within_its_limit(tmp_path, monkeypatch, capsys):
    """Every conventions setting a reader picks is kept, within LEAKEVAL_CACHE_MB: the
    least recently used go first."""
    experiment = baseline_experiment(tmp_path / "x")
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    out = str(tmp_path / "out.csv")

    def scores(depth: int) -> None:
        assert main(["scores", str(experiment), "--depth", str(depth), "--out", out]) == 0

    scores(1)
    one = usage(capsys)["bytes"]  # one setting's tables and output
    limit_mb = 4.5 * one / 2**20
    monkeypatch.setenv("LEAKEVAL_CACHE_MB", str(limit_mb))
    for depth in range(2, 16):
        scores(depth)
        held = usage(capsys)
        assert 0 < held["bytes"] <= held["limit_bytes"] == int(limit_mb * 2**20)
    assert held["temporary"] == {"files": 0, "bytes": 0}
    assert set(held["kinds"]) == {
        "experiment-queries",
        "experiment-runs",
        "experiment-scores",
        "scores-output",
    }
    assert held["entries"] == sum(k["entries"] for k in held["kinds"].values()) <= 4 * 5
    assert main(["cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"{tmp_path / 'cache'}: {held['entries']} entries, "
        f"{held['bytes'] / 2**10:.1f} kB of {held['limit_bytes'] / 2**10:.1f} kB "
        "(LEAKEVAL_CACHE_MB)"
    )
    kept = held["kinds"]["scores-output"]
    assert kept["bytes"] > 2**10
    assert [
        "scores-output",
        str(kept["entries"]),
        "entries",
        f"{kept['bytes'] / 2**10:.1f}",
        "kB",
    ] in [line.split() for line in lines[1:]]
    assert main(["cache", "clear"]) == 0
    assert f"removed {held['entries']} cached file(s)" in capsys.readouterr().err
    assert usage(capsys)["entries"] == 0


def test_a_bad_cache_limit_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LEAKEVAL_CACHE_MB", "lots")
    assert main(["scores", str(baseline_experiment(tmp_path / "x"))]) == 2
    assert capsys.readouterr().err == (
        "leakeval: LEAKEVAL_CACHE_MB='lots': not a size in megabytes; give a positive number "
        "such as 1024 (the default), or unset it\n"
    )


def test_one_entry_is_one_entry(tmp_path, monkeypatch, capsys):
    """The count agrees with its noun, in the total and by kind."""
    from leakeval_core.experiment.cache import Cache

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    Cache().put_bytes("scores-output", "k", b"x")
    assert main(["cache"]) == 0
    first, kind = capsys.readouterr().out.splitlines()[:2]
    assert ": 1 entry, " in first
    assert kind.split()[:3] == ["scores-output", "1", "entry"]
