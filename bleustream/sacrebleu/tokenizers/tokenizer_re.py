"""SacreBLEU's ``tokenizers.tokenizer_re``: ``TokenizerRegexp``, the regular
expressions 13a and zh end with."""

from __future__ import annotations

from bleustream.tokenizers.objects import TokenizerRegexp

__all__ = ["TokenizerRegexp"]
