"""SacreBLEU's ``tokenizers.tokenizer_ko_mecab``: ``TokenizerKoMecab`` and the
``FAIL_MESSAGE`` it raises (a ``RuntimeError``) when the ``ko`` extra is missing."""

from __future__ import annotations

from bleustream.tokenizers import mecab
from bleustream.tokenizers.objects import TokenizerKoMecab

__all__ = ["FAIL_MESSAGE", "TokenizerKoMecab"]

FAIL_MESSAGE = mecab.fail_message("ko-mecab")
