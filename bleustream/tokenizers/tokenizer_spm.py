"""SacreBLEU's ``tokenizers.tokenizer_spm``: ``TokenizerSPM`` and its three
named models, on bleustream's SentencePiece tokenizers (``spm``; the
``spm`` extra, models in SacreBLEU's cache)."""

from __future__ import annotations

from typing import Any

from bleustream.tokenizers import spm
from bleustream.tokenizers.tokenizer_base import Tokens

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


class TokenizerSPM(Tokens):
    """A SentencePiece tokenizer by SacreBLEU's key (``spm`` is ``flores101``)."""

    def __init__(self, key: str = "spm") -> None:
        self.name = spm.signature(key)
        self._signature = self.name
        self._tokenize = spm.TOKENIZERS[key]
        spm.encoder(key)  # the model, loaded now as SacreBLEU's is


class Flores200Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores200")


class Flores101Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores101")


class spBLEU1KTokenizer(TokenizerSPM):  # SacreBLEU's name
    def __init__(self) -> None:
        super().__init__("spBLEU-1K")


def __getattr__(name: str) -> Any:
    if name == "SACREBLEU_DIR":  # SacreBLEU's cache, where the models are
        return spm.sacrebleu_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
