"""SacreBLEU's ``tokenizers.tokenizer_base``: ``BaseTokenizer``.

A SacreBLEU tokenizer is an object called with a line that returns the
line tokenized, its tokens joined by single spaces, and whose
``signature()`` is what BLEU's signature says for it.  The ``tokenizer_*``
modules beside this one are SacreBLEU's classes on bleustream's tokenizers
(``registry``): ``Tokens`` turns one of those, which return a list of
tokens, into such an object.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["BaseTokenizer"]


class BaseTokenizer:
    """What every SacreBLEU tokenizer offers: ``signature()`` and a call."""

    def signature(self) -> str:
        """The tokenizer's name in BLEU's signature."""
        raise NotImplementedError()

    def __call__(self, line: str) -> str:
        """The line tokenized, its tokens joined by single spaces."""
        raise NotImplementedError()


class Tokens(BaseTokenizer):
    """A SacreBLEU tokenizer on one of bleustream's, which returns tokens."""

    _tokenize: Callable[[str], list[str]]
    _signature: str

    def signature(self) -> str:
        return self._signature

    def __call__(self, line: str) -> str:
        return " ".join(self._tokenize(line))
