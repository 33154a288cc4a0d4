"""SacreBLEU's ``tokenizers.tokenizer_ter``: ``TercomTokenizer``, on bleustream's
TER tokenizer (``ter_normalize.tercom_tokenizer``)."""

from __future__ import annotations

from bleustream.tokenizers.ter_normalize import SIGNATURE, tercom_tokenizer
from bleustream.tokenizers.tokenizer_base import BaseTokenizer

__all__ = ["TercomTokenizer"]


class TercomTokenizer(BaseTokenizer):
    """TER's normalization and tokenization, with SacreBLEU's four settings."""

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
    ) -> None:
        self._normalized = normalized
        self._no_punct = no_punct
        self._asian_support = asian_support
        self._case_sensitive = case_sensitive
        self._tokenize = tercom_tokenizer(normalized, no_punct, asian_support, case_sensitive)

    def signature(self) -> str:
        return SIGNATURE

    def __call__(self, sent: str) -> str:
        return self._tokenize(sent)
