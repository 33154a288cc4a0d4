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
# The defaults of each class's hyper-parameters that decide a score, for a
# checkpoint that does not save them (unbabel-comet's classes' own).
_REGRESSION = {
    "encoder_model": "XLM-RoBERTa",
    "pretrained_model": "xlm-roberta-large",
    "pool": "avg",
    "layer": "mix",
    "layer_transformation": "softmax",
    "layer_norm": True,
    "hidden_sizes": [3072, 1024],
    "activations": "Tanh",
    "final_activation": None,
}
_UNIFIED = {
    **_REGRESSION,
    "pretrained_model": "microsoft/infoxlm-large",
    "layer_transformation": "sparsemax",
    "sent_layer": "mix",
    "word_layer": 24,
    "input_segments": ["mt", "src", "ref"],
    "word_level_training": False,
    "error_labels": ["minor", "major"],
}
DEFAULTS: dict[str, dict[str, Any]] = {
    "regression_metric": _REGRESSION,
    "referenceless_regression_metric": {**_REGRESSION, "hidden_sizes": [2048, 1024]},
    "unified_metric": _UNIFIED,
    "xcomet_metric": {
        **_UNIFIED,
        "encoder_model": "XLM-RoBERTa-XL",
        "pretrained_model": "facebook/xlm-roberta-xl",
        "layer_norm": False,
        "word_layer": 36,
        "hidden_sizes": [2560, 1280],
        "word_level_training": True,
        "error_labels": ["minor", "major", "critical"],
    },
}
# Where PyTorch Lightning keeps the hyper-parameters in a checkpoint, oldest first.
HPARAMS_KEYS = ("hparams", "module_arguments", "hyper_parameters")
DIGEST_HEX = 16  # the digest of model.ckpt named in identities and signatures
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")


@dataclass
class Checkpoint:
    """A checkpoint read: where it was, its hyper-parameters, its weights."""

    name: str  # what the user gave
    path: Path  # model.ckpt
    hparams: dict[str, Any]  # what decides the model: the checkpoint's, over the defaults
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
    """``hparams.yaml`` of the checkpoint directory (beside ``checkpoints/``).

    unbabel-comet takes only the class from it: the model is built from the
    hyper-parameters saved in ``model.ckpt`` (see ``read_checkpoint``)."""
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


def read_ckpt(model: str, ckpt: Path) -> dict[str, Any]:
    """``model.ckpt``, read as weights only: its weights and hyper-parameters."""
    torch = require_comet_extra("torch")
    try:
        loaded = torch.load(ckpt, map_location="cpu", weights_only=True, mmap=True)
    except Exception as exc:  # a truncated zip, a pickle, not a checkpoint at all
        problem = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise corrupt(model, f"{ckpt.name} cannot be read as a checkpoint: {problem}") from None
    state = loaded.get("state_dict") if isinstance(loaded, dict) else None
    if not isinstance(state, dict) or not state:
        raise corrupt(model, f"{ckpt.name} holds no state_dict")
    return loaded


def model_hparams(model: str, class_identifier: str, loaded: dict[str, Any]) -> dict[str, Any]:
    """The hyper-parameters unbabel-comet builds the model with: those saved
    in the checkpoint over the class's defaults; a ``sparsemax_patch`` layer
    mix runs softmax, as unbabel-comet 2.2.7 runs it."""
    hparams = dict(DEFAULTS[class_identifier])
    for key in HPARAMS_KEYS:
        saved = loaded.get(key) or {}
        if not isinstance(saved, dict):
            raise corrupt(model, f"model.ckpt: {key} is not a mapping")
        hparams.update(saved)
    if hparams.get("layer_transformation") == "sparsemax_patch":
        hparams["layer_transformation"] = "softmax"
    hparams["class_identifier"] = class_identifier
    return hparams


def read_checkpoint(model: str, local_only: bool = True) -> Checkpoint:
    """The checkpoint ``model`` names, read (``ModelError`` when it cannot be)."""
    ckpt = checkpoint_file(model, local_only)
    if not ckpt.is_file():
        raise ModelError(f"COMET model {model}: {ckpt} is missing")
    identifier = read_hparams(model, ckpt)["class_identifier"]
    loaded = read_ckpt(model, ckpt)
    return Checkpoint(
        name=model,
        path=ckpt,
        hparams=model_hparams(model, identifier, loaded),
        class_identifier=identifier,
        digest=digest_of(ckpt),
        state_dict=loaded["state_dict"],
    )
