"""SacreBLEU's ``tokenizers.tokenizer_13a``: ``Tokenizer13a``, on bleustream's 13a."""

from __future__ import annotations

from bleustream.tokenizers.objects import Tokenizer13a

__all__ = ["Tokenizer13a"]
