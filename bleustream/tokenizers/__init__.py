"""Tokenizers: text to the tokens each metric counts (SacreBLEU's, by name).

``registry`` has them by name; the ``tokenizer_*`` modules are SacreBLEU's
tokenizer classes (``sacrebleu.tokenizers.tokenizer_13a.Tokenizer13a``...)
on them, and ``BaseTokenizer`` is here as in SacreBLEU (loaded when asked for).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "BaseTokenizer":
        from bleustream.tokenizers.tokenizer_base import BaseTokenizer

        return BaseTokenizer
    raise AttributeError(f"module 'bleustream.tokenizers' has no attribute {name!r}")
