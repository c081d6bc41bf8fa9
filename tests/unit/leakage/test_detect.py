import tracemalloc

import numpy as np
import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError
from leakeval_core.io import query_files
from leakeval_core.leakage.detect import detect, topic_texts
from leakeval_core.leakage.detection_options import DetectionOptions, encoder_of
from leakeval_core.leakage.relations import categorize
from leakeval_core.leakage.text import normalize, stem
from tests.support import needs_encoder, realdata, write

pytestmark = pytest.mark.detection  # `make check` leaves these out


def test_normalize():
    raw = pd.Series(["  Hello,   WORLD!! ", "ﬁsh—tank", "Straße_x"])
    assert normalize(raw).tolist() == ["hello world", "fish tank", "strasse x"]


@pytest.mark.parametrize(
    ("topic", "train", "category"),
    [
        ("black bear attacks", "black bear attacks", "identical"),
        ("black bear attacks", "what are black bear attacks", "reformulation"),
        ("black bear attacks", "attacks by black bears", "identical"),
        ("educational standards", "standards in education", "identical"),
        ("U.S. invasion of Panama", "us invasion of panama", "identical"),
        ("three gorges", "3 gorges", "identical"),
        ("agoraphobia", "what is agoraphobia", "reformulation"),
        ("black bear attacks", "black bear attacks in alaska", "specialization"),
        ("black bear attacks", "black bear", "generalization"),
        ("black bear attacks", "what is a black bear", "generalization"),
        ("hubble telescope achievements", "hubble telescope location", "reformulation"),
        ("Best Retirement Country", "best retirement countries", "identical"),
        ("taxes on social security", "social security tax", "identical"),
        ("women in parliaments", "woman in parliament", "identical"),
        ("china one child policy", "china's one child policy", "identical"),
        ("Harriet Tubman 20 dollar bill", "harriet tubman twenty dollar bill", "identical"),
        ("gas tax in the United States", "usa gas tax", "identical"),
        ("gasoline tax in united states", "gasoline tax by state", "reformulation"),
        ("poverty and health care", "healthcare and poverty", "identical"),
        ("poverty and health care issues", "poverty and healthcare", "generalization"),
        ("black bear attacks worldwide", "black bear attacks 2018", "specialization"),
        ("winter olympics 2014", "winter olympics 2018", "reformulation"),
    ],
)
def test_category_rules(topic, train, category):
    assert categorize(*normalize(pd.Series([topic, train])).tolist()) == category


@pytest.mark.parametrize(
    ("words", "meet"),
    [
        (("countries", "country"), True),
        (("policies", "policy"), True),
        (("movies", "movie"), True),
        (("calories", "calorie"), True),
        (("headaches", "headache"), True),
        (("taxes", "tax"), True),
        (("replacing", "replacement", "replace"), True),
        (("children", "child"), True),
        (("legalisation", "legalization", "legalizing"), True),
        (("economy", "economic"), True),
        (("news", "new"), False),
        (("cookies", "cooking"), False),
        (("city", "cite"), False),
        (("store", "story"), False),
        (("police", "policy"), False),
        (("apple", "apply"), False),
        (("part", "party"), False),
        (("treat", "treaty"), False),
        (("plan", "plane"), True),  # the price of dropping a final e: rare, and kept
    ],
)
def test_stem_folds_inflections(words, meet):
    assert (len({stem(w) for w in words}) == 1) is meet


PLANTED = {
    # topic qid: (training text, category)
    "301": ("international organized-crime!", "identical"),
    "336": ("black bear attacks statistics", "specialization"),
    "302": ("poliomyelitis", "generalization"),
    "307": ("new hydroelectric projects china", "specialization"),
    "321": ("WOMEN IN PARLIAMENTS", "identical"),
    "347": ("wildlife extinction", "identical"),
}


def test_real_robust04_against_real_msmarco_with_planted_duplicates():
    topics = query_files.read_topics(realdata("robust04", "topics.txt"))
    log = query_files.read_queries(realdata("msmarco", "doctrain-queries.sample.csv"))
    planted = pd.DataFrame(
        {"qid": [f"P{q}" for q in PLANTED], "text": [text for text, _ in PLANTED.values()]}
    )
    rng = np.random.default_rng(0)
    positions = rng.choice(len(log), size=len(planted), replace=False)
    mixed = (
        pd.concat([log, planted], ignore_index=True)
        .iloc[np.argsort(np.r_[np.arange(len(log)), positions + 0.5])]
        .reset_index(drop=True)
    )
    pairs = detect(topic_texts(topics), mixed, DetectionOptions(chunk_size=4_000))
    for qid, (text, category) in PLANTED.items():
        found = pairs[(pairs.test_qid == qid) & (pairs.train_qid == f"P{qid}")]
        assert len(found) == 1, (qid, text)
        row = found.iloc[0]
        assert row.category == category, (qid, row.category)
        assert row.similarity >= 0.8, (qid, row.similarity)
        best = pairs[pairs.test_qid == qid].similarity.max()
        assert row.similarity == best, (qid, "not the top candidate")


def test_similarity_is_max_over_fields_and_one_row_per_pair():
    topics = pd.DataFrame(
        {
            "qid": ["1"],
            "title": ["solar panels"],
            "description": ["how efficient are solar panels at night"],
            "narrative": [""],
        }
    )
    log = pd.DataFrame(
        {"qid": ["a", "b"], "text": ["how efficient are solar panels at night", "solar panels"]}
    )
    pairs = detect(topic_texts(topics), log)
    assert pairs.train_qid.tolist() == ["a", "b"] or pairs.train_qid.tolist() == ["b", "a"]
    assert set(pairs.similarity) == {1.0}
    # the similarity is the best over every text (the description for a); the field and
    # category are against the short text matched best, the title (what annotators judge)
    by_train = pairs.set_index("train_qid")
    assert (
        by_train.loc["a", "field"] == "title" and by_train.loc["a", "category"] == "specialization"
    )
    assert by_train.loc["b", "category"] == "identical"


def test_memory_stays_bounded_by_the_chunk(tmp_path):
    """350 topic texts x 100k queries dense would be 280 MB (float64); chunking keeps it far
    below."""
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(5_000)])
    log = pd.DataFrame(
        {
            "qid": np.arange(100_000).astype(str),
            "text": [" ".join(w) for w in rng.choice(words, (100_000, 4))],
        }
    )
    topics = pd.DataFrame(
        {
            "qid": np.arange(350).astype(str),
            "title": [" ".join(rng.choice(words, 3)) for _ in range(350)],
            "description": "",
            "narrative": "",
        }
    )
    side = topic_texts(topics, ("title",))
    chunks = (log.iloc[i : i + 5_000] for i in range(0, len(log), 5_000))
    tracemalloc.start()
    pairs = detect(side, chunks, DetectionOptions(chunk_size=5_000, top_k=5))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert pairs.groupby("test_qid").size().max() <= 5
    assert peak < 150e6, f"peak {peak / 1e6:.0f} MB"


def test_empty_inputs_are_clear_errors():
    topics = pd.DataFrame({"qid": ["1"], "title": ["x"], "description": [""], "narrative": [""]})
    with pytest.raises(LeakevalError, match="empty"):
        detect(topic_texts(topics), pd.DataFrame({"qid": [], "text": []}))
    with pytest.raises(LeakevalError, match="unknown topic field"):
        topic_texts(topics, ("body",))


def test_leakage_command(tmp_path, capsys):
    topics = write(
        tmp_path / "t.txt",
        "<top>\n<num> Number: 7\n<title> Solar Panels\n"
        "<desc> Description:\nSolar panel efficiency.\n</top>\n",
    )
    variants = write(tmp_path / "v.tsv", "7\tsolar panel cost\n7\tpv panels\n")
    log = write(tmp_path / "log.tsv", "1\tsolar panels\n2\tcheap flights\n3\tsolar panel cost\n")
    out = tmp_path / "pairs.csv"
    assert (
        main(
            [
                "leakage",
                "--topics",
                str(topics),
                "--variants",
                str(variants),
                "--train-queries",
                str(log),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    pairs = pd.read_csv(out, dtype={"test_qid": str, "train_qid": str})
    assert list(pairs.columns) == [
        "test_qid",
        "field",
        "test_text",
        "train_qid",
        "train_text",
        "method",
        "similarity",
        "category",
        "near_duplicate",
    ]
    by_train = pairs.set_index("train_qid")
    assert by_train.loc["1", "category"] == "identical" and by_train.loc["1", "near_duplicate"]
    assert by_train.loc["3", "field"] == "variant" and by_train.loc["3", "similarity"] == 1.0
    assert "2" not in by_train.index or not by_train.loc["2", "near_duplicate"]
    assert "1 of 1 topics have a near-duplicate" in capsys.readouterr().err


def _one_topic(qid: str, title: str, description: str, narrative: str = "") -> pd.DataFrame:
    return pd.DataFrame(
        {"qid": [qid], "title": [title], "description": [description], "narrative": [narrative]}
    )


def _log(**texts: str) -> pd.DataFrame:
    """A training log of these texts, each named by its query id."""
    return pd.DataFrame({"qid": list(texts), "text": list(texts.values())})


def _hubble_topic(narrative: str = "") -> pd.DataFrame:
    """Robust04's topic 303, whose need (discoveries) shares few words with its title."""
    return _one_topic(
        "303",
        "Hubble Telescope Achievements",
        "Identify positive accomplishments of the Hubble telescope.",
        narrative,
    )


def _hubble_log() -> pd.DataFrame:
    """The need in other words (good), the title's words for another need (bad), the title."""
    return _log(
        good="what has the hubble telescope discovered",
        bad="hubble telescope location",
        same="hubble telescope achievements",
    )


def test_semantic_method_rescores_candidates():
    needs_encoder()
    topics = _one_topic("635", "doctor assisted suicides", "laws on physician assisted suicide")
    log = _log(
        a="what is physician-assisted suicide", b="doctor who episodes", c="assisted living costs"
    )
    side = topic_texts(topics)
    notes: dict[str, list[str]] = {"lexical": [], "semantic": []}
    lexical = detect(
        side, log, DetectionOptions(min_similarity=0.0), lambda d, t, w: notes["lexical"].append(w)
    ).set_index("train_qid")
    semantic = detect(
        side,
        log,
        DetectionOptions(min_similarity=0.0, method="semantic"),
        lambda d, t, w: notes["semantic"].append(w),
    ).set_index("train_qid")
    # once the log is compared the progress says the candidates are being scored, which
    # with mpnet takes longer than the comparison
    assert notes["lexical"][-1] == "training queries compared"
    assert notes["semantic"][-1] == "training queries compared; scoring the candidates (semantic)…"
    assert set(semantic.method) == {"semantic"}
    assert semantic.similarity.between(0, 1).all()
    assert semantic.similarity.idxmax() == "a"
    assert semantic.loc["a", "similarity"] > lexical.loc["a", "similarity"]
    assert semantic.loc["a", "similarity"] > 0.7 > semantic.loc["b", "similarity"]


def test_unknown_method():
    with pytest.raises(LeakevalError, match="unknown method"):
        DetectionOptions(method="fuzzy")


@pytest.mark.parametrize("method", ["hybrid", "hybrid-mpnet"])
def test_hybrid_method_ranks_the_need_above_the_title_words(method):
    needs_encoder(encoder_of(method))
    topics = _hubble_topic("Documents on discoveries and scientific results are relevant.")
    log = _hubble_log()
    # every candidate embedded: the need shares few words with the topic's title
    options = DetectionOptions(min_similarity=0.0, method=method, encoder_floor=0.0)
    pairs = detect(topic_texts(topics), log, options)
    by_train = pairs.set_index("train_qid")
    assert set(pairs.method) == {method}
    assert by_train.loc["same", "category"] == "identical"
    # Lexical similarity ranks the title-word overlap first (0.32 vs 0.23); the hybrid ranks
    # the need first (0.77 vs 0.70). Neither reaches the 0.8 threshold: this hard negative
    # is separated by the order, not by the threshold.
    assert by_train.loc["good", "similarity"] > by_train.loc["bad", "similarity"]


def test_each_text_is_encoded_once_and_the_least_recently_used_is_dropped(monkeypatch):
    needs_encoder()
    from leakeval_core.leakage import semantic

    encoded: list[list[str]] = []
    encode = semantic._encode
    monkeypatch.setattr(semantic, "_encode", lambda t, e, d: encoded.append(t) or encode(t, e, d))
    monkeypatch.setattr(semantic, "_MEMORY", {})
    first = semantic.embed(["quilts income", "how to make quilts", "quilts income"])
    again = semantic.embed(["how to make quilts", "quilt shops", "quilts income"])
    assert encoded == [["quilts income", "how to make quilts"], ["quilt shops"]]
    np.testing.assert_array_equal(again[[0, 2]], first[[1, 0]])
    np.testing.assert_array_equal(first[0], first[2])
    assert np.linalg.norm(again, axis=1) == pytest.approx(1.0, abs=1e-5)
    monkeypatch.setattr(semantic, "REMEMBERED_TEXTS", 2)
    semantic.embed(["quilting bees"])  # keeps it and the most recently used, "quilt shops"
    semantic.embed(["quilt shops", "how to make quilts"])
    assert encoded[2:] == [["quilting bees"], ["how to make quilts"]]


@pytest.mark.parametrize("method", ["semantic", "hybrid"])
def test_the_encoder_scores_only_candidates_over_the_floor_and_them_exactly(monkeypatch, method):
    """Below the lexical floor a pair scores 0 and is never embedded; above it, its score is
    the one it has when every candidate is embedded."""
    needs_encoder()
    from leakeval_core.leakage import semantic

    topics = _hubble_topic()
    log = _hubble_log()
    side = topic_texts(topics)
    every = DetectionOptions(min_similarity=0.0, method=method, encoder_floor=0.0)
    embedded = detect(side, log, every).set_index("train_qid")
    words = detect(side, log, DetectionOptions(min_similarity=0.0)).set_index("train_qid")
    floor = float(words.loc[["good", "bad"], "similarity"].max()) + 0.01
    assert floor < words.loc["same", "similarity"]
    encoded: list[str] = []
    encode = semantic._encode
    monkeypatch.setattr(semantic, "_encode", lambda t, e, d: encoded.extend(t) or encode(t, e, d))
    monkeypatch.setattr(semantic, "_MEMORY", {})
    options = DetectionOptions(min_similarity=0.0, method=method, encoder_floor=floor)
    floored = detect(side, log, options).set_index("train_qid")
    assert floored.loc[["good", "bad"], "similarity"].tolist() == [0.0, 0.0]
    assert floored.loc["same", "similarity"] == pytest.approx(
        embedded.loc["same", "similarity"], abs=1e-6
    )
    assert not {"what has the hubble telescope discovered", "hubble telescope location"} & set(
        encoded
    )
