"""SacreBLEU's ``tokenizers.tokenizer_13a``: ``Tokenizer13a``, on bleustream's 13a."""

from __future__ import annotations

from bleustream.tokenizers import registry
from bleustream.tokenizers.tokenizer_base import Tokens

__all__ = ["Tokenizer13a"]


class Tokenizer13a(Tokens):
    """mteval-v13a's tokenization, BLEU's default (``13a``)."""

    _signature = "13a"

    def __init__(self) -> None:
        self._tokenize = registry.tokenize_13a
