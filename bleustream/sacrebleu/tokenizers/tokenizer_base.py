"""SacreBLEU's ``tokenizers.tokenizer_base``: ``BaseTokenizer``, what every
SacreBLEU tokenizer offers."""

from __future__ import annotations

from bleustream.tokenizers.objects import BaseTokenizer

__all__ = ["BaseTokenizer"]
