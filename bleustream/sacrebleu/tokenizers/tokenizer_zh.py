"""SacreBLEU's ``tokenizers.tokenizer_zh``: ``TokenizerZh``, on bleustream's zh."""

from __future__ import annotations

from bleustream.tokenizers.objects import TokenizerZh

__all__ = ["TokenizerZh"]
