"""SacreBLEU's ``tokenizers.tokenizer_none``: ``NoneTokenizer``, the line as it is."""

from __future__ import annotations

from bleustream.tokenizers.objects import NoneTokenizer

__all__ = ["NoneTokenizer"]
