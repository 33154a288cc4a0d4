"""Where a COMET model is and what its checkpoint holds.

A model is named by a checkpoint directory in unbabel-comet's layout
(``checkpoints/model.ckpt`` with ``hparams.yaml`` beside ``checkpoints/``),
by its ``model.ckpt`` (as ``comet-score --model`` takes it), or by a Hugging
Face model id (``Unbabel/wmt22-comet-da``), looked up in the local Hugging
Face cache and, only when the caller allows it, downloaded.

The checkpoint is read with ``torch.load(weights_only=True)``: tensors and
plain containers only, so a checkpoint can run no code when it is read.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bleustream.comet.errors import ModelError, corrupt
from bleustream.extras import require

# unbabel-comet's class identifiers (hparams.yaml), with the family each is.
FAMILIES = {
    "regression_metric": "regression",
    "referenceless_regression_metric": "referenceless",
    "unified_metric": "unified",
    "xcomet_metric": "unified",
}
DIGEST_HEX = 16  # the digest of model.ckpt named in identities and signatures
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")


@dataclass
class Checkpoint:
    """A checkpoint read: where it was, its hyper-parameters, its weights."""

    name: str  # what the user gave
    path: Path  # model.ckpt
    hparams: dict[str, Any]
    class_identifier: str
    digest: str  # sha256 of model.ckpt, its first DIGEST_HEX hex digits
    state_dict: dict[str, Any]

    @property
    def family(self) -> str:
        return FAMILIES[self.class_identifier]


def require_comet_extra(module: str) -> Any:
    """``module`` (torch, transformers, yaml) or the one line naming the extra."""
    return require(module, "COMET", module, "comet")


def checkpoint_file(model: str, local_only: bool) -> Path:
    """The ``model.ckpt`` that ``model`` names (see the module's text)."""
    path = Path(model).expanduser()
    if path.is_file():
        return path
    if path.is_dir():
        ckpt = path / "checkpoints" / "model.ckpt"
        if not ckpt.is_file():
            raise ModelError(
                f"COMET model {model}: no checkpoints/model.ckpt in that directory "
                "(a COMET checkpoint directory holds checkpoints/model.ckpt and hparams.yaml)"
            )
        return ckpt
    if not _HUB_ID.fullmatch(model) or model.startswith("."):
        raise ModelError(f"COMET model {model}: no such file or directory")
    return Path(hub_snapshot(model, local_only)) / "checkpoints" / "model.ckpt"


def hub_snapshot(model: str, local_only: bool) -> str:
    """The directory of model id ``model`` in the Hugging Face cache."""
    hub = require_comet_extra("huggingface_hub")
    try:
        return hub.snapshot_download(repo_id=model, local_files_only=local_only)
    except Exception:  # the hub's errors differ by release: none is a traceback here
        if local_only:
            raise ModelError(
                f"COMET model {model}: not a checkpoint directory, and no copy in the "
                "Hugging Face cache; download it once (huggingface-cli download "
                f"{model}) or give the path of its checkpoint directory"
            ) from None
        raise ModelError(
            f"COMET model {model}: not a checkpoint directory, and it could not be "
            "downloaded from the Hugging Face Hub; check the name and the network"
        ) from None


def digest_of(path: Path) -> str:
    """The first ``DIGEST_HEX`` hex digits of the file's sha256."""
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()[:DIGEST_HEX]


def read_hparams(model: str, ckpt: Path) -> dict[str, Any]:
    """``hparams.yaml`` of the checkpoint directory (beside ``checkpoints/``)."""
    yaml = require_comet_extra("yaml")
    hparams_file = ckpt.resolve().parents[1] / "hparams.yaml"
    if not hparams_file.is_file():
        raise corrupt(model, f"no hparams.yaml in {hparams_file.parent}")
    try:
        hparams = yaml.safe_load(hparams_file.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        problem = str(exc).splitlines()[0]
        raise corrupt(model, f"hparams.yaml cannot be read: {problem}") from None
    if not isinstance(hparams, dict):
        raise corrupt(model, "hparams.yaml holds no mapping of hyper-parameters")
    identifier = hparams.get("class_identifier")
    if identifier not in FAMILIES:
        known = ", ".join(FAMILIES)
        raise corrupt(
            model, f"hparams.yaml: unknown class_identifier {identifier!r} (known: {known})"
        )
    return hparams


def read_state_dict(model: str, ckpt: Path) -> dict[str, Any]:
    """The weights of ``model.ckpt``, read as weights only."""
    torch = require_comet_extra("torch")
    try:
        loaded = torch.load(ckpt, map_location="cpu", weights_only=True, mmap=True)
    except Exception as exc:  # a truncated zip, a pickle, not a checkpoint at all
        problem = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise corrupt(model, f"{ckpt.name} cannot be read as a checkpoint: {problem}") from None
    state = loaded.get("state_dict") if isinstance(loaded, dict) else None
    if not isinstance(state, dict) or not state:
        raise corrupt(model, f"{ckpt.name} holds no state_dict")
    return state


def read_checkpoint(model: str, local_only: bool = True) -> Checkpoint:
    """The checkpoint ``model`` names, read (``ModelError`` when it cannot be)."""
    ckpt = checkpoint_file(model, local_only)
    if not ckpt.is_file():
        raise ModelError(f"COMET model {model}: {ckpt} is missing")
    hparams = read_hparams(model, ckpt)
    return Checkpoint(
        name=model,
        path=ckpt,
        hparams=hparams,
        class_identifier=hparams["class_identifier"],
        digest=digest_of(ckpt),
        state_dict=read_state_dict(model, ckpt),
    )
