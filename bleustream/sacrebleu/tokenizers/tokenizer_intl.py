"""SacreBLEU's ``tokenizers.tokenizer_intl``: ``TokenizerV14International``,
on bleustream's intl."""

from __future__ import annotations

from bleustream.tokenizers.objects import TokenizerV14International

__all__ = ["TokenizerV14International"]
