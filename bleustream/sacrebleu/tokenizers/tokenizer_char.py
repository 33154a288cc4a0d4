"""SacreBLEU's ``tokenizers.tokenizer_char``: ``TokenizerChar``, every character a token."""

from __future__ import annotations

from bleustream.tokenizers.objects import TokenizerChar

__all__ = ["TokenizerChar"]
