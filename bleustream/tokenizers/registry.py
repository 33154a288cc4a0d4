"""Tokenizers: a line of text in, a list of tokens out.

Each tokenizer reproduces the tokens SacreBLEU 2.x produces for the same
line (its ``tokenizer(line).split()``), quirks included.  The plain rule of
each tokenizer is a chain of regular expressions; the fast paths below skip
or replace steps when a line holds no character a step cares about.  The
differential tests prove every fast path equal to SacreBLEU's plain rules.

``TOKENIZERS`` maps the name used on the command line to the function;
adding a tokenizer is adding an entry.  The MeCab and SentencePiece
tokenizers live in their own modules and load their optional packages on
their first line; ``tokenizer_signature`` gives what SacreBLEU's signature
says for each, and ``default_tokenizer`` SacreBLEU's choice for a language
pair.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from typing import Callable

from bleustream.errors import UsageError
from bleustream.kernels import native
from bleustream.tokenizers import mecab as tokenizer_mecab
from bleustream.tokenizers import spm as tokenizer_spm

Tokenizer = Callable[[str], "list[str]"]

# --------------------------------------------------------------------------
# 13a: mteval-v13a.pl, the WMT default
# --------------------------------------------------------------------------

# The rules are regular-expression substitutions that put spaces around a
# character.  Where the replacement is " <char> " with no other change, the
# substitution is written as ``" ".join(pattern.split(line))`` with the
# character captured: split and join run in C, while re.sub with a group
# reference in its template calls back into Python for every match.

# The rules are compiled on the first line the pure tokenizers see
# (``_MtevalRules``): the compiled kernels need none of them.
#
# Rule 1 puts spaces around these wherever they stand: SacreBLEU's class
# [\{-\~\[-\`\ -\&\(-\+\:-\@\/], i.e. all ASCII punctuation but ' , - . and
# the space.  (The class also holds the space itself; spacing a space out
# changes no token and no neighbour the later rules look at.)
_RULE1_CHARS = '{|}~[\\]^_`!"#$%&()*+:;<=>?@/'
_DIGITS = "0123456789"


def _has_digit(line: str) -> bool:
    """Whether the line holds an ASCII digit: ten C-level substring tests
    take a third of the time of a regular-expression search."""
    return any(map(line.__contains__, _DIGITS))


def _adjacent_periods(line: str) -> bool:
    """Whether two periods or commas stand side by side (``[.,][.,]``), with
    commas read as periods: a quarter of the time of the regular expression."""
    if "," in line:
        line = line.replace(",", ".")
    return ".." in line


_EDGES = ".,-"


class _MtevalRules:
    """13a's rules, and zh's split, compiled."""

    def __init__(self) -> None:
        self.rule1 = re.compile(f"([{re.escape(_RULE1_CHARS)}])").split
        # Without an ASCII digit on the line, rules 2 and 3 below separate
        # every period and comma from both neighbours and rule 4 never
        # fires: all four rules collapse into one split.
        self.rule1_no_digit = re.compile(f"([{re.escape(_RULE1_CHARS)}.,])").split
        # Rules 2 and 3, as SacreBLEU writes them: a period or comma is
        # separated from a preceding non-digit (rule 2), then from a
        # following non-digit (rule 3).  Each match consumes the neighbour,
        # so in a run of periods and commas ("...", ".,") whether one is
        # separated depends on the one before.
        self.rule2 = re.compile(r"([^0-9])([\.,])").sub
        self.rule3 = re.compile(r"([\.,])([^0-9])").sub
        # Rule 4: a dash preceded by a digit, written to start with the dash
        # so that the search skips ahead to each dash (the digit is never a
        # dash, so no match can consume another's character).
        self.rule4 = re.compile(r"(-)(?<=[0-9]-)").split
        # With no two periods or commas side by side nothing is consumed
        # twice, and the four rules collapse into one split even with digits
        # on the line: rule 1 puts spaces only next to non-digits and rules 2
        # and 3 only next to a period or comma, so no rule changes what a
        # later rule's digit test sees.  A period or comma is then separated
        # unless a digit stands on both sides of it, and a dash when a digit
        # precedes it.  (The pattern reads a missing neighbour as a
        # non-digit, as 13a's padding spaces read; zh has no padding, so a
        # period, comma or dash at either end of the line takes the rules
        # one by one, with 13a's padding there.)
        self.all_rules = re.compile(
            f"([{re.escape(_RULE1_CHARS + '.,-')}]"
            r"(?!(?<=[0-9][.,])[0-9])"  # not a period or comma between two digits
            r"(?<![^0-9]-))"  # not a dash after a non-digit
        ).split
        zh_class = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _ZH_RANGES)
        self.zh_split = re.compile(f"([{zh_class}])").split


@cache
def _mteval_rules() -> _MtevalRules:
    return _MtevalRules()


def _mteval_post(line: str, pad: bool = False) -> list[str]:
    """The language-dependent part of 13a, shared with ``zh``.

    ``pad``: the line as SacreBLEU's 13a sees it has a space added at each
    end.  Only the period and comma rules can see the padding, and only as
    a non-digit neighbour: the one split below reads a missing neighbour so
    too, so only the rules one by one need the spaces.
    """
    rules = _mteval_rules()
    if not _has_digit(line):
        return " ".join(rules.rule1_no_digit(line)).split()
    if _adjacent_periods(line) or line[:1] in _EDGES or line[-1:] in _EDGES:
        if pad:
            line = f" {line} "
        line = rules.rule3(r" \1 \2", rules.rule2(r"\1 \2 ", " ".join(rules.rule1(line))))
        if "-" in line:
            line = " ".join(rules.rule4(line))
        return line.split()
    return " ".join(rules.all_rules(line)).split()


def py_tokenize_13a(line: str) -> list[str]:
    """mteval-v13a tokenization, as SacreBLEU's ``13a``."""
    if "<" in line and "<skipped>" in line:  # one byte search first: quicker
        line = line.replace("<skipped>", "")
    if "\n" in line:
        line = line.replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = (
            line.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    return _mteval_post(line, pad=True)


# --------------------------------------------------------------------------
# zh: every Chinese character is a token, the rest is tokenized as 13a
# --------------------------------------------------------------------------

# SacreBLEU's table of "Chinese" code-point ranges.  It compares a single
# character with these strings, and some of them are two characters long
# ("\u20000" is U+2000 followed by "0", not U+20000), so the ranges it
# actually tests differ from the ones the comments intended.  _ZH_RANGES
# below derives what the comparison really accepts.
_ZH_TABLE = (
    ("\u3400", "\u4db5"),
    ("\u4e00", "\u9fa5"),
    ("\u9fa6", "\u9fbb"),
    ("\uf900", "\ufa2d"),
    ("\ufa30", "\ufa6a"),
    ("\ufa70", "\ufad9"),
    ("\u20000", "\u2a6d6"),
    ("\u2f800", "\u2fa1d"),
    ("\uff00", "\uffef"),
    ("\u2e80", "\u2eff"),
    ("\u3000", "\u303f"),
    ("\u31c0", "\u31ef"),
    ("\u2f00", "\u2fdf"),
    ("\u2ff0", "\u2fff"),
    ("\u3100", "\u312f"),
    ("\u31a0", "\u31bf"),
    ("\ufe10", "\ufe1f"),
    ("\ufe30", "\ufe4f"),
    ("\u2600", "\u26ff"),
    ("\u2700", "\u27bf"),
    ("\u3200", "\u32ff"),
    ("\u3300", "\u33ff"),
)


def _string_range(start: str, end: str) -> tuple[int, int]:
    """The code points c with ``start <= c <= end`` as Python compares strings.

    A single character equal to the first character of a longer string
    sorts before it, so a two-character start excludes its first character
    and a two-character end includes it.
    """
    low = ord(start[0]) + (1 if len(start) > 1 else 0)
    return low, ord(end[0])


_ZH_RANGES = tuple(_string_range(s, e) for s, e in _ZH_TABLE)


def is_zh_char(char: str) -> bool:
    """True for a character SacreBLEU's ``zh`` tokenizer splits off alone."""
    code = ord(char)
    return any(a <= code <= b for a, b in _ZH_RANGES)


def py_tokenize_zh(line: str) -> list[str]:
    """SacreBLEU's ``zh``: Chinese characters apart, the rest as 13a (no padding)."""
    return _mteval_post(" ".join(_mteval_rules().zh_split(line.strip())))


# --------------------------------------------------------------------------
# intl: mteval-v14 international tokenization, by Unicode general category
# --------------------------------------------------------------------------

# SacreBLEU asks the third-party ``regex`` module for \p{N}, \p{P} and
# \p{S}.  Python's ``unicodedata`` follows the Unicode version of the running
# interpreter, older than regex's and different from one Python to the next,
# so the classes come from ``intl_table``: regex's own ranges, generated by
# tools/gen_intl_table.py.  intl then tokenizes alike on every Python.


def _class_body(ranges: tuple[tuple[int, int], ...], limit: int) -> str:
    """A regular-expression class body: the ``ranges`` clipped to ``limit``."""
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ((a, min(b, limit)) for a, b in ranges if a <= limit)
    )


class _IntlRules:
    """The compiled ``intl`` rules for the code points up to ``limit``.

    SacreBLEU's rules: (1) a punctuation mark preceded by a non-number is
    separated from it, (2) then one followed by a non-number, each match
    consuming the neighbour; (3) every symbol is separated.  The fast paths
    follow the same reasoning as 13a's periods and commas.
    """

    def __init__(self, limit: int) -> None:
        from bleustream.tokenizers import intl_table  # the pure path's tables, when used

        number, punct, symbol = (
            _class_body(ranges, limit)
            for ranges in (intl_table.NUMBER, intl_table.PUNCTUATION, intl_table.SYMBOL)
        )
        self.has_number = re.compile(f"[{number}]").search
        # Without numbers every punctuation mark is separated.
        self.split_punct_symbol = re.compile(f"([{punct}{symbol}])").split
        self.has_punct = re.compile(f"[{punct}]").search
        self.adjacent_punct = re.compile(f"[{punct}][{punct}]").search
        self.rule1 = re.compile(f"([^{number}])([{punct}])").sub
        self.rule2 = re.compile(f"([{punct}])([^{number}])").sub
        # Without adjacent punctuation, rules 1 and 2 separate a mark when
        # the character before or after it exists and is not a number.
        self.rules12 = re.compile(f"([{punct}](?:(?<=[^{number}][{punct}])|(?=[^{number}])))").split
        self.split_symbol = re.compile(f"([{symbol}])").split

    def tokenize(self, line: str) -> list[str]:
        if not self.has_number(line):
            return " ".join(self.split_punct_symbol(line)).split()
        if self.has_punct(line):
            if self.adjacent_punct(line):
                line = self.rule2(r" \1 \2", self.rule1(r"\1 \2 ", line))
            else:
                line = " ".join(self.rules12(line))
        return " ".join(self.split_symbol(line)).split()


# Python's re matches a class of Basic Multilingual Plane characters through
# a bitmap, but tests a class with any character beyond U+FFFF range by
# range, some twenty times slower.  Lines without such characters (nearly
# all) use classes limited to the BMP; the full classes are built the first
# time a line needs them.
_HAS_ASTRAL = re.compile("[\U00010000-\U0010ffff]").search
_intl_rules: dict[int, _IntlRules] = {}


def _intl(limit: int) -> _IntlRules:
    rules = _intl_rules.get(limit)
    if rules is None:
        rules = _intl_rules[limit] = _IntlRules(limit)
    return rules


def tokenize_intl(line: str) -> list[str]:
    """SacreBLEU's ``intl`` (mteval-v14 international) tokenization."""
    limit = sys.maxunicode if _HAS_ASTRAL(line) else 0xFFFF
    return _intl(limit).tokenize(line)


# --------------------------------------------------------------------------
# char and none
# --------------------------------------------------------------------------


def tokenize_char(line: str) -> list[str]:
    """Every non-white-space character is a token."""
    return list("".join(line.split()))


def tokenize_none(line: str) -> list[str]:
    """Tokens are what white space separates."""
    return line.split()


# -- the twins, bound once: C where bleustream.kernels chose it ---------------
# (before the registry, which is made of them).  The compiled kernels
# tokenize 13a and zh to the same tokens as the functions above, which stay
# the readable reference.
tokenize_13a: Tokenizer = py_tokenize_13a if native is None else native.tokenize_13a
tokenize_zh: Tokenizer = py_tokenize_zh if native is None else native.tokenize_zh


# --------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------

TOKENIZERS: dict[str, Tokenizer] = {
    "13a": tokenize_13a,
    "intl": tokenize_intl,
    "zh": tokenize_zh,
    "char": tokenize_char,
    "none": tokenize_none,
    **tokenizer_mecab.TOKENIZERS,
    **tokenizer_spm.TOKENIZERS,
}

DEFAULT_TOKENIZER = "13a"

# SacreBLEU's tokenizer for a target language when none is chosen, and
# the language's name in its advice when another one is.
LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
LANGUAGE_NAMES = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}


def tokenizer_advice(target: str, tokenize: str) -> str | None:
    """SacreBLEU's advice when tokenizer ``tokenize`` is chosen for a target
    language that has a tokenizer of its own, another one; else None."""
    wanted = LANGUAGE_TOKENIZERS.get(target)
    if wanted is None or tokenize == wanted:
        return None
    return f"Consider using the '{wanted}' or 'spm' tokenizer for {LANGUAGE_NAMES[target]}."


def tokenizer_signature(name: str) -> str:
    """What SacreBLEU's BLEU signature says for tokenizer ``name`` (its ``tok:`` field).

    The tokenizer's own signature, not always its name: MeCab's carry the
    version of MeCab (asking loads it, and can raise its UsageError), and
    ``spm`` says ``flores101``.
    """
    if name in tokenizer_mecab.SPECS:
        return tokenizer_mecab.signature(name)
    if name in tokenizer_spm.MODELS:
        return tokenizer_spm.signature(name)
    if name not in TOKENIZERS:
        raise UsageError(f"unknown tokenizer {name!r} (known: {', '.join(sorted(TOKENIZERS))})")
    return name


def default_tokenizer(language_pair: str | None) -> str:
    """The tokenizer SacreBLEU picks for ``-l SRC-TRG`` when ``-tok`` is not given.

    As SacreBLEU: the target is the part after the first dash (``en-ja`` ->
    ``ja``, ``en-zh-x`` -> ``zh``); ``zh``, ``ja`` and ``ko`` have their own
    tokenizer, every other target (or no pair) gets 13a.  A pair without a
    dash is a UsageError where SacreBLEU would crash.
    """
    if not language_pair:  # SacreBLEU ignores an empty -l too
        return DEFAULT_TOKENIZER
    if "-" not in language_pair:
        raise UsageError(
            f"-l {language_pair!r}: expected a language pair SOURCE-TARGET, such as en-de"
        )
    target = language_pair.split("-")[1]
    return LANGUAGE_TOKENIZERS.get(target, DEFAULT_TOKENIZER)
