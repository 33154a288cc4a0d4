"""SacreBLEU's ``tokenizers.tokenizer_spm``: ``TokenizerSPM`` and its three
named models, on bleustream's SentencePiece tokenizers (``spm``; the
``spm`` extra, models in SacreBLEU's cache), with SacreBLEU's table of the
models and its cache's ``SACREBLEU_DIR``."""

from __future__ import annotations

from typing import Any

from bleustream.tokenizers import spm
from bleustream.tokenizers.objects import (
    Flores101Tokenizer,
    Flores200Tokenizer,
    TokenizerSPM,
    spBLEU1KTokenizer,
)

__all__ = [
    "SPM_MODELS",
    "Flores101Tokenizer",
    "Flores200Tokenizer",
    "TokenizerSPM",
    "spBLEU1KTokenizer",
]

# SacreBLEU's table of the models by key: download address and signature.
SPM_MODELS = {
    key: {"url": model.url, "signature": model.signature} for key, model in spm.MODELS.items()
}


def __getattr__(name: str) -> Any:
    if name == "SACREBLEU_DIR":  # SacreBLEU's cache, where the models are
        return spm.sacrebleu_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
