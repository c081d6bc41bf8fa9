"""Where the encoders run: `auto` takes the accelerator torch sees, a named device that is
absent is one clear error, and every record of a detection says where it embedded."""

import json

import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.leakage import devices
from leakeval_core.leakage.detection_options import DetectionOptions
from leakeval_core.leakage.table import experiment_options, leakage_key
from tests.support import needs_encoder, write

pytestmark = pytest.mark.detection


@pytest.fixture
def fresh_resolution():
    """`resolve_device` is asked once per process; each case here asks anew."""
    devices.resolve_device.cache_clear()
    yield
    devices.resolve_device.cache_clear()


def test_auto_resolves_to_the_cpu_on_this_machine(fresh_resolution):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() or torch.backends.mps.is_available():
        pytest.skip("this machine has an accelerator")
    assert devices.resolve_device("auto") == "cpu"
    assert devices.resolve_device() == "cpu"


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(True, False, "cuda"), (False, True, "mps"), (True, True, "cuda"), (False, False, "cpu")],
)
def test_auto_takes_the_accelerator_torch_sees(fresh_resolution, monkeypatch, cuda, mps, expected):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    assert devices.resolve_device("auto") == expected
    if expected != "cpu":
        assert devices.resolve_device(expected) == expected


@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_a_named_device_that_is_absent_is_one_clear_error(fresh_resolution, monkeypatch, device):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    with pytest.raises(
        LeakevalError, match=rf"device '{device}': torch .* sees no {device.upper()}"
    ):
        devices.resolve_device(device)


def test_an_unknown_device_is_refused_where_it_is_named():
    with pytest.raises(LeakevalError, match="unknown device 'tpu'; use auto, cpu, cuda, mps"):
        DetectionOptions(device="tpu")


def test_lexical_detection_records_no_encoder_and_never_asks_torch(monkeypatch):
    monkeypatch.setattr(devices, "resolve_device", lambda device: pytest.fail("asked torch"))
    assert devices.ran_on(None, "cuda") == {}
    assert devices.detection_source("lexical", "log.tsv", {}) == "lexical detection against log.tsv"


def test_the_device_is_no_part_of_a_cache_key(tmp_path):
    """A cache entry serves every device: the pairs are the detection's, not the device's."""
    root = _experiment(tmp_path)
    experiment = load_experiment(root)
    keys = {leakage_key(experiment, DetectionOptions(device=d)) for d in devices.DEVICES}
    assert len(keys) == 1
    assert leakage_key(experiment, DetectionOptions(method="semantic")) not in keys


def test_an_experiment_names_its_device_and_a_wrong_one_is_located(tmp_path):
    root = _experiment(tmp_path, '\n[leakage]\nmethod = "lexical"\ndevice = "cpu"\n')
    assert experiment_options(load_experiment(root)).device == "cpu"
    root = _experiment(tmp_path / "bad", '\n[leakage]\nmethod = "lexical"\ndevice = "gpu"\n')
    lines = (root / "experiment.toml").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.startswith("device"))
    with pytest.raises(ParseError, match=rf"experiment.toml:{line}: leakage.device 'gpu'"):
        experiment_options(load_experiment(root))


def test_the_sidecar_and_the_caption_say_where_the_encoder_ran(tmp_path, capsys):
    needs_encoder("minilm")
    topics = write(tmp_path / "topics.tsv", "301\tinternational organized crime\n")
    log = write(tmp_path / "log.tsv", "7\tInternational organized crime!\n8\tcheap flights\n")
    out = tmp_path / "pairs.csv"
    argv = ["leakage", "--topics", str(topics), "--train-queries", str(log), "--out", str(out)]
    assert main([*argv, "--method", "semantic", "--device", "auto"]) == 0
    said = capsys.readouterr().err
    sidecar = json.loads(out.with_name("pairs.csv.json").read_text())
    here = devices.resolve_device("auto")
    assert (sidecar["encoder"], sidecar["device"]) == ("all-MiniLM-L6-v2", here)
    assert f"semantic detection (all-MiniLM-L6-v2 on {here}) against log.tsv" in said
    from leakeval_core.leakage.given import read_pairs

    assert read_pairs(out).source == f"pairs.csv (all-MiniLM-L6-v2 on {here})"
    assert pd.read_csv(out).train_qid.astype(str).tolist() == ["7"]


def test_an_absent_device_stops_the_command_before_it_reads_the_log(tmp_path, capsys, monkeypatch):
    """The error comes first: a researcher who asked for a GPU must not wait for a log to be
    compared on the CPU and then be told."""
    torch = pytest.importorskip("torch")
    devices.resolve_device.cache_clear()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    topics = write(tmp_path / "topics.tsv", "301\tcrime\n")
    out = tmp_path / "pairs.csv"
    argv = ["leakage", "--topics", str(topics), "--train-queries", str(tmp_path / "absent.tsv")]
    code = main([*argv, "--method", "semantic", "--device", "cuda", "--out", str(out)])
    devices.resolve_device.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("leakeval: device 'cuda': torch") and "Traceback" not in err[0]
    assert not out.exists()


def _experiment(root, extra: str = ""):
    write(root / "qrels.txt", "301 0 d1 1\n")
    write(root / "topics.tsv", "301\tcrime\n")
    write(root / "log.tsv", "7\tcrime\n")
    write(root / "runs" / "bm25.run", "301 Q0 d1 1 1.0 bm25\n")
    write(
        root / "experiment.toml",
        '[collections.c]\ntopics = "topics.tsv"\nqrels = "qrels.txt"\n'
        '[training_queries]\npath = "log.tsv"\n'
        '[runs]\npattern = "runs/{system}.run"\n' + extra,
    )
    return root
