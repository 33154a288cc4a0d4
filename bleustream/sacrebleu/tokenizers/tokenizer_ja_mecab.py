"""SacreBLEU's ``tokenizers.tokenizer_ja_mecab``: ``TokenizerJaMecab`` and the
``FAIL_MESSAGE`` it raises (a ``RuntimeError``) when the ``ja`` extra is missing."""

from __future__ import annotations

from bleustream.tokenizers import mecab
from bleustream.tokenizers.objects import TokenizerJaMecab

__all__ = ["FAIL_MESSAGE", "TokenizerJaMecab"]

FAIL_MESSAGE = mecab.fail_message("ja-mecab")
