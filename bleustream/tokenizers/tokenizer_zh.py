"""SacreBLEU's ``tokenizers.tokenizer_zh``: ``TokenizerZh``, on bleustream's zh."""

from __future__ import annotations

from bleustream.tokenizers import registry
from bleustream.tokenizers.tokenizer_base import Tokens

__all__ = ["TokenizerZh"]


class TokenizerZh(Tokens):
    """Every Chinese character a token, the rest as 13a (``zh``)."""

    _signature = "zh"

    def __init__(self) -> None:
        self._tokenize = registry.tokenize_zh
