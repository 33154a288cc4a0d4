"""Seeded adversarial text for the differential tests against SacreBLEU.

Everything here is deterministic given a seed.  The pieces are chosen to hit
every rule of every tokenizer:

* 13a / zh: every ASCII punctuation mark, digits next to ``.`` ``,`` ``-``,
  HTML entities (well-formed and broken), ``<skipped>``, line breaks (in the
  tokenizer-only lines), and the edges of SacreBLEU's "Chinese" ranges,
  including the ranges its two-character range bounds really test;
* intl: punctuation, symbols and numbers from every Unicode block, with
  numbers that are not ASCII digits next to punctuation;
* all: odd white space (and characters that look like white space but are
  not), combining marks, case pairs whose lowercase changes the length,
  empty and blank segments, repeated n-grams (so clipping matters) and
  references whose lengths tie around the hypothesis length.

The character pools by general category follow the ``regex`` module (what
SacreBLEU's ``intl`` and bleustream's pinned ``intl`` table know), so they
hold characters newer than Python's own ``unicodedata``.
"""

# ruff: noqa: RUF001, RUF100  (look-alike characters are the point of this test data)

from __future__ import annotations

import random
import re
import string
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from functools import cache

import regex
from sacrebleu.tokenizers.tokenizer_zh import _UCODE_RANGES

ALL_CODE_POINTS = range(sys.maxunicode + 1)

ASCII_PUNCTUATION = string.punctuation  # all 32 ASCII punctuation marks

# Digits next to the characters the 13a rules look at (and a few non-ASCII
# numbers next to punctuation for intl, where \p{N} is not just 0-9).
DIGIT_PIECES = (
    "3.5", "1,000", "2-3", "a.b", "...", ",,", ".5", "5.", "5,", ",5", "-5", "5-",
    "1.2.3", "1-2-3", "1,2,3", "0.", ".0.", "9-", "--", "1--2", "1..2", "1,.2",
    "1.,2", "a,b", "a-b", "a.", ".a", "U.S.", "e.g.", "12:30", "50%", "$5", "5'",
    "'5", "1/2", "-1.5e-3", "1,", ",1,", "3.14,", "10-15", "x-1", "1-x", "..5",
    "5..", ",.,", ".,.", "0", "00", "٣.٥", "١,٢", "١-٢", "½.", "²,3", "Ⅻ-", "꘡.꘢",
    "1٫5", "１．５", "3。5", "7‐8", "9–10", "2—3", "1⁄2", "⑴,",
)  # fmt: skip

ENTITY_PIECES = (
    "&amp;", "&quot;", "&lt;", "&gt;", "&amp", "&&lt;", "&amp;lt;", "&amp;amp;",
    "&apos;", "&", "&;", "&lt", "&gt;&lt;", "&quot", "&#39;", "&nbsp;", "&AMP;",
    "&&", "a&b", "&amp;quot;", "&lt;skipped&gt;",
)  # fmt: skip

SKIPPED_PIECES = (
    "<skipped>", "<skipped", "skipped>", "<skipped><skipped>", "<<skipped>>",
    "-<skipped>", "<skip<skipped>ped>", "<SKIPPED>", "<skipped>.",
)  # fmt: skip

# White space for str.split() (and so for every tokenizer).
ODD_WHITESPACE = (
    "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680",
    "\u2000", "\u2001", "\u2007", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f",
    "\u3000", "  ", " \t ",
)  # fmt: skip
# Characters that look like white space but are not, for str.split().
NOT_WHITESPACE = ("\ufeff", "\u200b", "\u180e", "\u2060", "\x00", "\x7f", "\u200d")
# Only for the tokenizer tests: a line break inside a segment would split it.
# What one field of a paste line cannot hold: its separators, and lone
# surrogates, which no UTF-8 input decodes to.
NOT_IN_A_FIELD = re.compile("[\t\n\r\ud800-\udfff]")

LINE_BREAKS = ("\n", "\r", "\r\n", "-\n", "\n-", "a-\nb", "1-\n2")

WORDS = (
    "the", "The", "THE", "cat", "Cat", "sat", "on", "mat", "a", "A", "Katze",
    "straße", "STRASSE", "İstanbul", "ΣΊΣΥΦΟΣ", "ǅemal", "ﬁne", "\u212a", "Ω",
    "ÉCOLE", "école", "e\u0301cole", "naïve", "Ⅻ", "ǈ", "Ǆ", "ﬃ", "ß", "ẞ",
)  # fmt: skip

# Code points the zh tokenizer's quirky two-character range bounds make
# interesting, besides the edges of every range (computed below).
ZH_QUIRK_POINTS = (
    0x2000, 0x2001, 0x2A6D, 0x2A6E, 0x2F80, 0x2F81, 0x2FA1, 0x2FA2,
    0x20000, 0x2A6D6, 0x1FFFF, 0x20001, 0x2A6D5, 0x2A6D7, 0x2F800, 0x2FA1D,
    0x2F7FF, 0x2FA1E,
)  # fmt: skip

CJK_BLOCKS = (
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs (beyond SacreBLEU's 9FBB too)
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0xFF00, 0xFFEF),  # half-width and full-width forms
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # hiragana, katakana (not "Chinese" for zh)
    (0xAC00, 0xD7A3),  # hangul syllables
    (0x20000, 0x2A6DF),  # CJK Extension B
    (0x2F800, 0x2FA1F),  # CJK Compatibility Supplement
    (0x2E80, 0x2FFF),  # radicals, Kangxi, ideographic description
    (0x3100, 0x33FF),  # bopomofo ... CJK compatibility
    (0xFE10, 0xFE4F),  # vertical forms, CJK compatibility forms
    (0x2600, 0x27BF),  # miscellaneous symbols, dingbats
)


@cache
def all_code_points_string() -> str:
    """Every code point, surrogates included, in order: index == code point."""
    return "".join(map(chr, ALL_CODE_POINTS))


@cache
def python_categories() -> tuple[str, ...]:
    """``unicodedata.category`` of every code point, indexed by code point."""
    return tuple(map(unicodedata.category, all_code_points_string()))


@cache
def unicode_version_disagreements() -> frozenset[int]:
    """Code points whose N/P/S membership differs between ``regex`` and ``unicodedata``.

    SacreBLEU's ``intl`` asks the ``regex`` module (its own, often newer,
    Unicode version), and bleustream's table pins regex's classes; Python's
    ``unicodedata`` knows only the running interpreter's version.  These
    are the code points an ``intl`` built from ``unicodedata`` would get
    wrong.
    """
    text = all_code_points_string()
    out: set[int] = set()
    for prefix in "NPS":
        by_regex = {m.start() for m in regex.finditer(rf"\p{{{prefix}}}", text)}
        by_python = {cp for cp, cat in enumerate(python_categories()) if cat[0] == prefix}
        out |= by_regex ^ by_python
    return frozenset(out)


@cache
def code_points_by_category_prefix(prefix: str) -> tuple[int, ...]:
    """All code points whose general category starts with ``prefix`` (e.g. "P").

    As the ``regex`` module (SacreBLEU's ``intl``) knows them: newer than
    Python's ``unicodedata``.
    """
    text = all_code_points_string()
    return tuple(m.start() for m in regex.finditer(rf"\p{{{prefix}}}", text))


@cache
def zh_edge_points() -> tuple[int, ...]:
    """Code points at and next to the edges of SacreBLEU's zh ranges.

    Taken from SacreBLEU's own table (not bleustream's), for both the first
    character of each bound and, for the two-character bounds such as
    "\\u20000", the code point the table's comment meant.
    """
    points: set[int] = set(ZH_QUIRK_POINTS)
    for bounds in _UCODE_RANGES:
        for bound in bounds:
            centres = [ord(bound[0])]
            if len(bound) > 1:  # "\u20000" is U+2000 + "0"; U+20000 was meant
                centres.append(int(f"{ord(bound[0]):04x}{bound[1:]}", 16))
            for centre in centres:
                points.update(centre + d for d in (-2, -1, 0, 1, 2))
    return tuple(sorted(p for p in points if 0 <= p <= sys.maxunicode))


class Adversary:
    """A seeded source of adversarial pieces, lines and corpora."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # -- single pieces ----------------------------------------------------

    def _char_from(self, pool: Sequence[int]) -> str:
        return chr(self.rng.choice(pool))

    def _char_in_blocks(self, blocks: Sequence[tuple[int, int]]) -> str:
        low, high = self.rng.choice(blocks)
        return chr(self.rng.randint(low, high))

    def any_code_point(self) -> str:
        return chr(self.rng.randrange(sys.maxunicode + 1))

    def word(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.5:
            return rng.choice(WORDS)
        if kind < 0.8:
            return "".join(rng.choice("abcAB") for _ in range(rng.randint(1, 3)))
        return "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(1, 8)))

    def piece(self, line_breaks: bool = False) -> str:
        """One adversarial piece: a word, a mark, a number, an entity, ..."""
        rng = self.rng
        choices: list[tuple[float, object]] = [
            (30, self.word),
            (10, lambda: rng.choice(ASCII_PUNCTUATION)),
            (4, lambda: "".join(rng.choice(ASCII_PUNCTUATION) for _ in range(rng.randint(2, 4)))),
            (12, lambda: rng.choice(DIGIT_PIECES)),
            (4, lambda: str(rng.randint(0, 10 ** rng.randint(1, 6)))),
            (5, lambda: rng.choice(ENTITY_PIECES)),
            (3, lambda: rng.choice(SKIPPED_PIECES)),
            (8, lambda: self._char_in_blocks(CJK_BLOCKS)),
            (3, lambda: "".join(self._char_in_blocks(CJK_BLOCKS) for _ in range(3))),
            (4, lambda: self._char_from(zh_edge_points())),
            (4, lambda: self._char_from(code_points_by_category_prefix("P"))),
            (4, lambda: self._char_from(code_points_by_category_prefix("S"))),
            (4, lambda: self._char_from(code_points_by_category_prefix("N"))),
            (3, lambda: self.word() + self._char_from(code_points_by_category_prefix("M"))),
            (2, lambda: rng.choice(NOT_WHITESPACE)),
            (2, self.any_code_point),
        ]
        if line_breaks:
            choices.append((4, lambda: rng.choice(LINE_BREAKS)))
        weights = [w for w, _ in choices]
        make = rng.choices([f for _, f in choices], weights)[0]
        return make()  # type: ignore[operator]

    def separator(self, odd_whitespace: bool = True) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.7:
            return " "
        if r < 0.9 or not odd_whitespace:
            return ""  # glue pieces: "a" + "." + "5" is where the rules bite
        return rng.choice(ODD_WHITESPACE)

    def pieces(self, n: int, line_breaks: bool = False) -> list[str]:
        out = [self.piece(line_breaks) for _ in range(n)]
        if n >= 3 and self.rng.random() < 0.3:  # repeated n-grams
            start = self.rng.randrange(n - 1)
            run = out[start : start + self.rng.randint(2, 3)]
            out[start:start] = run * self.rng.randint(1, 3)
        return out

    def join(self, pieces: Sequence[str], odd_whitespace: bool = True) -> str:
        if not pieces:
            return ""
        parts = [pieces[0]]
        for p in pieces[1:]:
            parts.append(self.separator(odd_whitespace))
            parts.append(p)
        line = "".join(parts)
        r = self.rng.random()
        if r < 0.1:
            line = self.rng.choice(ODD_WHITESPACE) + line
        elif r < 0.2:
            line = line + self.rng.choice((*ODD_WHITESPACE, " "))
        return line

    # -- lines and corpora ----------------------------------------------------

    def line(self, line_breaks: bool = False, max_pieces: int = 25) -> str:
        """A line for the tokenizer tests (with line breaks if asked)."""
        r = self.rng.random()
        if r < 0.03:
            return ""
        if r < 0.05:
            return self.rng.choice(ODD_WHITESPACE)
        return self.join(self.pieces(self.rng.randint(1, max_pieces), line_breaks))

    def lines(self, n: int, line_breaks: bool = False) -> Iterator[str]:
        for _ in range(n):
            yield self.line(line_breaks)

    def mutate(self, pieces: list[str]) -> list[str]:
        """A reference made from the hypothesis, so that n-grams match."""
        rng = self.rng
        out = list(pieces)
        for _ in range(rng.randint(0, 4)):
            op = rng.random()
            if op < 0.25 and out:
                del out[rng.randrange(len(out))]
            elif op < 0.5:
                out.insert(rng.randint(0, len(out)), self.piece())
            elif op < 0.7 and out:
                out[rng.randrange(len(out))] = self.piece()
            elif op < 0.85 and len(out) > 1:
                i = rng.randrange(len(out) - 1)
                out[i], out[i + 1] = out[i + 1], out[i]
            elif out:
                i = rng.randrange(len(out))
                out[i] = out[i].swapcase()
        return out

    def _tie_segment(self, n_refs: int) -> tuple[str, list[str]]:
        """Single-letter words: the same length under every tokenizer.

        The references are as far below as above the hypothesis length, so
        the closest reference length is a tie that must go to the shorter.
        """
        rng = self.rng
        n = rng.randint(0, 12)
        hyp = [rng.choice("abAB") for _ in range(n)]
        d = rng.randint(1, 3)
        lengths = [max(n - d, 0), n + d]
        lengths += [rng.randint(0, n + 4) for _ in range(max(n_refs - 2, 0))]
        rng.shuffle(lengths)
        refs = []
        for length in lengths[:n_refs]:
            ref = [rng.choice([*hyp, "a", "b", "c"]) for _ in range(length)]
            refs.append(" ".join(ref))
        return " ".join(hyp), refs

    def segment(self, n_refs: int) -> tuple[str, list[str]]:
        """One hypothesis and ``n_refs`` references (no line breaks)."""
        rng = self.rng
        r = rng.random()
        if r < 0.12:
            return self._tie_segment(n_refs)
        if r < 0.15:
            return "", [self.line() for _ in range(n_refs)]
        if r < 0.17:
            hyp = self.line()
            return hyp, ["" for _ in range(n_refs)]
        if r < 0.19:
            return "", ["" for _ in range(n_refs)]
        pieces = self.pieces(rng.randint(1, 30))
        hyp = self.join(pieces)
        refs = []
        for _ in range(n_refs):
            s = rng.random()
            if s < 0.1:
                refs.append(hyp)
            elif s < 0.2:
                refs.append(self.line())
            else:
                refs.append(self.join(self.mutate(pieces)))
        return hyp, refs

    def corpus(self, n_segments: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
        """Hypotheses and reference streams, SacreBLEU's ``corpus_score`` layout."""
        hyps: list[str] = []
        streams: list[list[str]] = [[] for _ in range(n_refs)]
        for _ in range(n_segments):
            hyp, refs = self.segment(n_refs)
            hyps.append(hyp)
            for stream, ref in zip(streams, refs):
                stream.append(ref)
        return hyps, streams

    def paste_corpus(self, n_segments: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
        """``corpus``, with what a paste line's field cannot hold made a space."""
        hyps, streams = self.corpus(n_segments, n_refs)
        return (
            [NOT_IN_A_FIELD.sub(" ", h) for h in hyps],
            [[NOT_IN_A_FIELD.sub(" ", r) for r in stream] for stream in streams],
        )


def distinct_segments(n: int, seed: int = 0) -> Iterator[tuple[str, list[str]]]:
    """``n`` distinct (hypothesis, [reference]) pairs, generated lazily.

    Each segment combines a few pieces of a fixed pool of adversarial pieces
    (cheap enough for tens of thousands of segments, even under tracemalloc)
    and carries its index, so no two hypotheses are equal.  Nothing is kept
    between items.
    """
    adversary = Adversary(seed)
    pool = [adversary.piece() for _ in range(401)]
    size = len(pool)
    for i in range(n):
        a, b = pool[i % size], pool[(i * 7 + 3) % size]
        yield f"{a} {i} {b}", [f"{b} {i}"]
