"""Where the sentence encoders run: the accelerator torch sees, or the CPU.

Embedding is most of a semantic detection's time, and a GPU does it many times faster, so
`auto` (the default) takes CUDA, then Apple's MPS, then the CPU. A device named outright that
torch cannot see is one clear error, never a silent fall back to the CPU: a researcher who
asked for their GPU must not wait hours believing it is used. Each detection records the
encoder and the device it ran on (the pairs file's sidecar, the caption of every leaked
flag), since two devices can differ in the last digits of a similarity.

No torch here at import: naming a device or building the CLI parser stays cheap, and
lexical detection never needs it.
"""

from __future__ import annotations

from functools import cache
from typing import Literal, get_args

from leakeval_core.errors import LeakevalError

__all__ = [
    "DEVICES",
    "ENCODER_MODELS",
    "Device",
    "check_device",
    "detection_source",
    "embedded",
    "ran_on",
    "resolve_device",
]

Device = Literal["auto", "cpu", "cuda", "mps"]
DEVICES: tuple[str, ...] = get_args(Device)
ENCODER_MODELS = {"minilm": "all-MiniLM-L6-v2", "mpnet": "all-mpnet-base-v2"}
"""Each encoder (`semantic.ENCODERS`) by the model it loads, as records name it."""

GPU_INSTALL = (
    "install the torch build for your accelerator (https://pytorch.org/get-started/locally/; "
    "docs/leakage.md, 'Detection on a GPU')"
)


def check_device(device: str) -> None:
    """A device name that is none of DEVICES is one clear error naming them."""
    if device not in DEVICES:
        raise LeakevalError(f"unknown device {device!r}; use {', '.join(DEVICES)}")


@cache
def resolve_device(device: str = "auto") -> str:
    """The torch device `device` runs on here: `auto` the first of CUDA, MPS and the CPU that
    torch sees; a named accelerator only where torch sees it."""
    check_device(device)
    if device == "cpu":
        return "cpu"
    import torch

    seen = {
        "cuda": torch.cuda.is_available(),
        "mps": torch.backends.mps.is_available(),
    }
    if device == "auto":
        return next((name for name, there in seen.items() if there), "cpu")
    if not seen[device]:
        build = getattr(torch, "__version__", "")
        raise LeakevalError(
            f"device {device!r}: torch {build} sees no {device.upper()} device on this "
            f"machine; use --device auto or cpu, or {GPU_INSTALL}"
        )
    return device


def ran_on(encoder: str | None, device: str) -> dict[str, str]:
    """What a detection records of where it embedded: the encoder's model and the device it
    resolved to; nothing for lexical detection, which embeds nothing."""
    if encoder is None:
        return {}
    return {"encoder": ENCODER_MODELS[encoder], "device": resolve_device(device)}


def detection_source(method: str, log: str, record: dict) -> str:
    """How every caption names pairs detected in `log`: the method, and where its encoder
    ran (`ran_on`'s record, from the detection or the pairs file's sidecar)."""
    return f"{method} detection{embedded(record)} against {log}"


def embedded(record: dict) -> str:
    """ " (all-mpnet-base-v2 on cuda)" for a record that names its encoder and device;
    nothing for lexical detection or a record that predates them."""
    if not record.get("encoder") or not record.get("device"):
        return ""
    return f" ({record['encoder']} on {record['device']})"
