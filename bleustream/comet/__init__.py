"""COMET, CometKiwi and XCOMET from the user's own checkpoint, run by
bleustream's own loader on PyTorch and transformers (not unbabel-comet,
not PyTorch Lightning): segment scores equal to unbabel-comet 2.2.7's at
fp32 (docs/comet.md).

The interface the rest of bleustream uses, and nothing else:

- ``load_model(model, device=, max_length=, local_only=)``: a checkpoint
  directory in unbabel-comet's layout (``checkpoints/model.ckpt`` beside
  ``hparams.yaml``), its ``model.ckpt``, or a Hugging Face model id found in
  the local Hugging Face cache; a ``CometModel``.
- ``CometModel``: ``score_batch``, ``spans_batch`` (unified models with
  word-level tags), ``truncated()``, and what names the scores (``identity``,
  ``signature_fields``).
- ``ModelError``: a checkpoint that is missing, unreadable or of an unknown
  kind, a model id with no local copy: one line naming the model and what
  to do.

PyTorch, transformers and PyYAML are imported only when a model loads; a
missing one is the one-line error naming the ``comet`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bleustream.comet.errors import ModelError

if TYPE_CHECKING:
    from bleustream.comet.model import CometModel

__all__ = ["CometModel", "ModelError", "load_model"]


def load_model(
    model: str,
    *,
    device: str = "cpu",
    max_length: int | None = None,
    local_only: bool = True,
) -> CometModel:
    """The COMET model ``model`` (a checkpoint directory, its ``model.ckpt``
    or a Hugging Face model id), on ``device``, its inputs cut at
    ``max_length`` tokens (the encoder's own limit when None, never above
    it).  With ``local_only`` nothing is downloaded: a model id must be in
    the local Hugging Face cache."""
    from bleustream.comet.checkpoint import require_comet_extra

    for module in ("torch", "transformers", "yaml"):
        require_comet_extra(module)
    from bleustream.comet.model import load

    return load(model, device=device, max_length=max_length, local_only=local_only)


def __getattr__(name: str) -> object:
    if name == "CometModel":
        from bleustream.comet.model import CometModel

        return CometModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
