"""SacreBLEU's ``tokenizers.tokenizer_none``: ``NoneTokenizer``, the line as it is."""

from __future__ import annotations

from bleustream.tokenizers.tokenizer_base import BaseTokenizer

__all__ = ["NoneTokenizer"]


class NoneTokenizer(BaseTokenizer):
    """No tokenization (``none``): BLEU splits the line on white space."""

    def signature(self) -> str:
        return "none"

    def __call__(self, line: str) -> str:
        return line
