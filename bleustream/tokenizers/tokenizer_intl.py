"""SacreBLEU's ``tokenizers.tokenizer_intl``: ``TokenizerV14International``, on
bleustream's intl."""

from __future__ import annotations

from bleustream.tokenizers import registry
from bleustream.tokenizers.tokenizer_base import Tokens

__all__ = ["TokenizerV14International"]


class TokenizerV14International(Tokens):
    """mteval-v14's international tokenization (``intl``)."""

    _signature = "intl"

    def __init__(self) -> None:
        self._tokenize = registry.tokenize_intl
