"""SacreBLEU's ``tokenizers.tokenizer_char``: ``TokenizerChar``.

SacreBLEU's joins every character of the line, white space included, with
spaces; BLEU then splits on white space, which leaves bleustream's ``char``
tokens (``registry.tokenize_char``).  The call returns SacreBLEU's text.
"""

from __future__ import annotations

from bleustream.tokenizers.tokenizer_base import BaseTokenizer

__all__ = ["TokenizerChar"]


class TokenizerChar(BaseTokenizer):
    """Every character a token (``char``)."""

    def signature(self) -> str:
        return "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)
