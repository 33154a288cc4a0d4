"""SacreBLEU's ``tokenizers.tokenizer_re``: ``TokenizerRegexp``, the regular
expressions 13a and zh end with (bleustream's ``registry._mteval_post``)."""

from __future__ import annotations

from bleustream.tokenizers.registry import _mteval_post
from bleustream.tokenizers.tokenizer_base import BaseTokenizer

__all__ = ["TokenizerRegexp"]


class TokenizerRegexp(BaseTokenizer):
    """The language-dependent part of 13a (``re``)."""

    def signature(self) -> str:
        return "re"

    def __call__(self, line: str) -> str:
        return " ".join(_mteval_post(line))
