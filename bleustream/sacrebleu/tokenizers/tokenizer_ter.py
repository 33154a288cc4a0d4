"""SacreBLEU's ``tokenizers.tokenizer_ter``: ``TercomTokenizer``, on bleustream's TER tokenizer."""

from __future__ import annotations

from bleustream.tokenizers.objects import TercomTokenizer

__all__ = ["TercomTokenizer"]
