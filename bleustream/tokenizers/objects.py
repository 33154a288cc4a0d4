"""SacreBLEU's tokenizer objects, on bleustream's tokenizers.

A SacreBLEU tokenizer is an object called with a line that returns the
line tokenized, its tokens joined by single spaces, and whose
``signature()`` is what BLEU's signature says for it.  These classes are
SacreBLEU's (``Tokenizer13a``, ``TercomTokenizer``...), each on the
tokenizer of the same name here (``registry``, ``ter_normalize``,
``mecab``, ``spm``): what a metric object's ``tokenizer`` attribute is,
and what ``bleustream.sacrebleu.tokenizers.tokenizer_*`` give under
SacreBLEU's module names.  ``made(name)`` is the object of a BLEU
tokenizer's name, as SacreBLEU's ``BLEU`` makes it.
"""

from __future__ import annotations

from typing import Callable

from bleustream.tokenizers import mecab, registry, spm
from bleustream.tokenizers.ter_normalize import SIGNATURE, tercom_tokenizer

__all__ = [
    "BaseTokenizer",
    "Flores101Tokenizer",
    "Flores200Tokenizer",
    "NoneTokenizer",
    "TercomTokenizer",
    "Tokenizer13a",
    "TokenizerChar",
    "TokenizerJaMecab",
    "TokenizerKoMecab",
    "TokenizerRegexp",
    "TokenizerSPM",
    "TokenizerV14International",
    "TokenizerZh",
    "made",
    "spBLEU1KTokenizer",
]


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


class Tokenizer13a(Tokens):
    """mteval-v13a's tokenization, BLEU's default (``13a``)."""

    _signature = "13a"

    def __init__(self) -> None:
        self._tokenize = registry.tokenize_13a


class TokenizerV14International(Tokens):
    """mteval-v14's international tokenization (``intl``)."""

    _signature = "intl"

    def __init__(self) -> None:
        self._tokenize = registry.tokenize_intl


class TokenizerZh(Tokens):
    """Every Chinese character a token, the rest as 13a (``zh``)."""

    _signature = "zh"

    def __init__(self) -> None:
        self._tokenize = registry.tokenize_zh


class TokenizerChar(BaseTokenizer):
    """Every character a token (``char``).

    SacreBLEU's joins every character of the line, white space included,
    with spaces; BLEU then splits on white space, which leaves bleustream's
    ``char`` tokens (``registry.tokenize_char``).  The call returns
    SacreBLEU's text.
    """

    def signature(self) -> str:
        return "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)


class NoneTokenizer(BaseTokenizer):
    """No tokenization (``none``): BLEU splits the line on white space."""

    def signature(self) -> str:
        return "none"

    def __call__(self, line: str) -> str:
        return line


class TokenizerRegexp(BaseTokenizer):
    """The language-dependent part of 13a (``re``): the regular expressions
    13a and zh end with (``registry._mteval_post``)."""

    def signature(self) -> str:
        return "re"

    def __call__(self, line: str) -> str:
        return " ".join(registry._mteval_post(line))


class TercomTokenizer(BaseTokenizer):
    """TER's normalization and tokenization, with SacreBLEU's four settings."""

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
    ) -> None:
        self._normalized = normalized
        self._no_punct = no_punct
        self._asian_support = asian_support
        self._case_sensitive = case_sensitive
        self._tokenize = tercom_tokenizer(normalized, no_punct, asian_support, case_sensitive)

    def signature(self) -> str:
        return SIGNATURE

    def __call__(self, sent: str) -> str:
        return self._tokenize(sent)


class _Mecab(BaseTokenizer):
    """A MeCab tokenizer (the ``ja`` or ``ko`` extra): the tagger is made,
    and a missing package raised as ``RuntimeError`` with SacreBLEU's
    message naming the extra, when the tokenizer is made."""

    _name = ""

    def __init__(self) -> None:
        self._tagger = mecab.sacrebleu_tagger(self._name)

    def __call__(self, line: str) -> str:
        # MeCab's own text, as SacreBLEU returns it (white space other
        # than its separators kept); BLEU splits it into bleustream's tokens.
        return self._tagger.parse(line.strip()).strip()  # type: ignore[no-any-return]

    def signature(self) -> str:
        return mecab.signature(self._name)


class TokenizerJaMecab(_Mecab):
    """Japanese words as MeCab with IPAdic cuts them."""

    _name = "ja-mecab"


class TokenizerKoMecab(_Mecab):
    """Korean morphemes as MeCab-ko with mecab-ko-dic cuts them."""

    _name = "ko-mecab"


class TokenizerSPM(Tokens):
    """A SentencePiece tokenizer by SacreBLEU's key (``spm`` is ``flores101``;
    the ``spm`` extra, models in SacreBLEU's cache)."""

    def __init__(self, key: str = "spm") -> None:
        self.name = spm.signature(key)
        self._signature = self.name
        self._tokenize = spm.TOKENIZERS[key]
        spm.encoder(key)  # the model, loaded now as SacreBLEU's is


class Flores200Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores200")


class Flores101Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores101")


class spBLEU1KTokenizer(TokenizerSPM):  # SacreBLEU's name
    def __init__(self) -> None:
        super().__init__("spBLEU-1K")


# SacreBLEU's tokenizer class of each BLEU tokenizer name (its ``metrics.bleu._TOKENIZERS``).
CLASSES: dict[str, type[BaseTokenizer]] = {
    "none": NoneTokenizer,
    "zh": TokenizerZh,
    "13a": Tokenizer13a,
    "intl": TokenizerV14International,
    "char": TokenizerChar,
    "ja-mecab": TokenizerJaMecab,
    "ko-mecab": TokenizerKoMecab,
    "spm": TokenizerSPM,
    "flores101": Flores101Tokenizer,
    "flores200": Flores200Tokenizer,
    "spBLEU-1K": spBLEU1KTokenizer,
}


def made(name: str) -> BaseTokenizer:
    """SacreBLEU's tokenizer object of BLEU's tokenizer ``name``."""
    return CLASSES[name]()
