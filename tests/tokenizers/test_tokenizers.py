"""Every rule-based tokenizer against SacreBLEU's: adversarial lines, every code point, fast paths.

The oracle is SacreBLEU's tokenizer output split on white space.  ``intl``
is checked on every code point, the ones newer than Python's own Unicode
version included: its classes come from a table of the ``regex`` module's
(tests/tokenizers/test_intl_table.py checks the table itself).  The MeCab and
SentencePiece tokenizers are in tests/tokenizers/test_tokenizers_extra.py.
"""

# ruff: noqa: RUF001, RUF100  (look-alike characters are the point of this test data)

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from functools import cache

import pytest
import regex

import bleustream.tokenizers.registry as tok
from bleustream.tokenizers.registry import TOKENIZERS
from tests.helpers.adversarial import (
    ALL_CODE_POINTS,
    ASCII_PUNCTUATION,
    DIGIT_PIECES,
    ENTITY_PIECES,
    LINE_BREAKS,
    NOT_WHITESPACE,
    ODD_WHITESPACE,
    SKIPPED_PIECES,
    Adversary,
    all_code_points_string,
    code_points_by_category_prefix,
    python_categories,
    zh_edge_points,
)
from tests.helpers.oracle import ORACLE_TOKENIZERS, TOKENIZER_NAMES, oracle_tokens


def mismatches(name: str, lines: Iterable[str], limit: int = 8) -> list[str]:
    """Lines on which bleustream's tokens differ from SacreBLEU's (at most ``limit``)."""
    ours = TOKENIZERS[name]
    out = []
    for line in lines:
        expected = oracle_tokens(name, line)
        got = ours(line)
        if got != expected:
            out.append(f"{line!r}: bleustream {got!r} != SacreBLEU {expected!r}")
            if len(out) >= limit:
                break
    return out


def test_registry_names() -> None:
    """The rule-based tokenizers are registered under SacreBLEU's names and signatures."""
    assert set(TOKENIZER_NAMES) <= set(TOKENIZERS)
    for name in TOKENIZER_NAMES:
        assert ORACLE_TOKENIZERS[name].signature() == name
        assert tok.tokenizer_signature(name) == name
        assert TOKENIZERS[name]("a b") == ["a", "b"]


# --------------------------------------------------------------------------
# (a) generated adversarial lines
# --------------------------------------------------------------------------

ADVERSARIAL_SEEDS = (1, 2, 3)
LINES_PER_SEED = 1200


@cache
def adversarial_lines(seed: int) -> tuple[str, ...]:
    return tuple(Adversary(seed).lines(LINES_PER_SEED, line_breaks=True))


@pytest.mark.parametrize("seed", ADVERSARIAL_SEEDS, ids=lambda s: f"seed{s}")
@pytest.mark.parametrize("name", TOKENIZER_NAMES)
def test_adversarial_lines(name: str, seed: int) -> None:
    assert mismatches(name, adversarial_lines(seed)) == []


def test_adversarial_lines_hold_what_the_rules_react_to() -> None:
    """The generator really produces the cases of every rule (so (a) can fail)."""
    text = "".join(adversarial_lines(ADVERSARIAL_SEEDS[0]))
    for needle in ["&amp;", "&quot;", "&lt;", "&gt;", "<skipped>", "-\n", "\n", "\r", "\u3000"]:
        assert needle in text, repr(needle)
    for needle in ["3.5", "1,000", "2-3", ".5", "5.", ",,", "...", "\ufeff", "\xa0"]:
        assert needle in text, repr(needle)
    assert set(ASCII_PUNCTUATION) <= set(text)
    assert any(ord(c) > 0xFFFF for c in text)
    assert any(tok.is_zh_char(c) for c in text)


@pytest.mark.parametrize("name", [n for n in TOKENIZER_NAMES if n != "none"])
def test_adversarial_lines_make_the_rules_fire(name: str) -> None:
    """On many lines the tokens differ from a plain white-space split."""
    lines = adversarial_lines(ADVERSARIAL_SEEDS[0])
    assert sum(oracle_tokens(name, line) != line.split() for line in lines) > 100


# --------------------------------------------------------------------------
# (b) every code point, in several contexts
# --------------------------------------------------------------------------

# A context (joiner, suffix) builds lines j + c1 + j + c2 + j ... + suffix:
# every code point then has j on both sides.  "\t" isolates it (white space
# to every tokenizer but no 13a punctuation, which keeps SacreBLEU's 13a
# fast), "1" puts it between digits, "." between periods (so both "{c}."
# and ".{c}"), "a" between letters.  The suffix U+10000 (a letter beyond the
# Basic Multilingual Plane) makes bleustream's intl use its full-range
# character classes for the BMP code points too, not only its BMP ones;
# between periods, membership in each of N, P and S shows in the tokens.
# zh's SacreBLEU implementation is a Python loop per character, the slowest
# oracle, and what zh adds to 13a per code point is only its "Chinese"
# classification: the digit context shows it for every code point (a
# Chinese character is split from the digits).
ASTRAL = "\U00010000"
CONTEXTS = {
    "13a": (("\t", ""), ("1", ""), (".", ""), ("a", "")),
    "intl": (("\t", ""), ("a", ""), ("1", ""), (".", ""), (".", ASTRAL)),
    "zh": (("1", ""),),
    "char": (("\t", ""), ("a", "")),
    "none": (("\t", ""), ("a", "")),
}
CONTEXT_NAMES = {
    "\t": "between-tabs",
    "1": "between-digits",
    ".": "between-periods",
    "a": "between-letters",
}
CHUNK = 8192


def _locate(name: str, joiner: str, suffix: str, chunk: Sequence[int]) -> list[str]:
    """The code points of a failing chunk that fail on their own."""
    lines = (f"{joiner}{chr(cp)}{joiner}{suffix}" for cp in chunk)
    return mismatches(name, lines)


@pytest.mark.parametrize(
    ("name", "joiner", "suffix"),
    [
        pytest.param(
            name, joiner, suffix, id=f"{name}-{CONTEXT_NAMES[joiner]}{'+astral' if suffix else ''}"
        )
        for name, contexts in CONTEXTS.items()
        for joiner, suffix in contexts
    ],
)
def test_every_code_point(name: str, joiner: str, suffix: str) -> None:
    text = all_code_points_string()
    points = ALL_CODE_POINTS
    ours, oracle = TOKENIZERS[name], ORACLE_TOKENIZERS[name]
    failures: list[str] = []
    for start in range(0, len(points), CHUNK):
        chunk = points[start : start + CHUNK]
        line = joiner + joiner.join(text[cp] for cp in chunk) + joiner + suffix
        if ours(line) != oracle(line).split():
            located = _locate(name, joiner, suffix, chunk)
            failures.append(
                f"chunk U+{chunk[0]:04X}..U+{chunk[-1]:04X} differs; alone: {located or 'none'}"
            )
            if len(failures) >= 4:
                break
    assert failures == []


def _edge_code_points() -> list[int]:
    """Code points worth trying at the very start and end of a line."""
    points = set(range(0x100))
    points |= set(range(0x2000, 0x2070)) | set(range(0x3000, 0x3040))
    points |= {cp for cp, cat in enumerate(python_categories()) if cat in ("Zs", "Zl", "Zp", "Cc")}
    points |= {ord(c) for c in "".join(ODD_WHITESPACE + NOT_WHITESPACE)}
    points |= set(zh_edge_points())
    points |= set(code_points_by_category_prefix("P"))
    points |= set(code_points_by_category_prefix("N"))
    points |= set(code_points_by_category_prefix("S")[::16])
    points |= set(range(0, sys.maxunicode + 1, 1999))
    return sorted(points)


EDGE_CONTEXTS = ("{c}", "{c}1", "1{c}", "{c}a", "a{c}", "{c}.", ".{c}", "{c}{c}", "{c}-1")


@pytest.mark.parametrize("name", TOKENIZER_NAMES)
def test_code_points_at_line_edges(name: str) -> None:
    """Line start and end: intl's rule 1 needs a character before, zh strips and does not pad."""
    lines = [ctx.format(c=chr(cp)) for cp in _edge_code_points() for ctx in EDGE_CONTEXTS]
    assert mismatches(name, lines) == []


# --------------------------------------------------------------------------
# the zh ranges, including SacreBLEU's two-character range bounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cp", "chinese"),
    [
        (0x1FFF, False),
        (0x2000, False),  # "\u20000" sorts *after* U+2000 ...
        (0x2001, True),  # ... so that range really starts at U+2001 (a space)
        (0x2A6D, True),  # "\u2a6d6" sorts after U+2A6D: the range ends there
        (0x2A6E, False),
        (0x2F80, True),  # "\u2f800" excludes U+2F80, but Kangxi U+2F00..2FDF has it
        (0x2FA1, True),
        (0x2FA2, True),
        (0x20000, False),  # Extension B is *not* covered, despite the comment
        (0x2A6D6, False),
        (0x2F800, False),  # nor the Compatibility Supplement
        (0x4E00, True),
        (0x9FA5, True),
        (0x9FBB, True),
        (0x9FBC, False),
        (0xFF00, True),
        (0xFFEF, True),
        (0xFFF0, False),
        (0x2FFF, True),
        (0x3000, True),
        (0x3040, False),
    ],
    ids=lambda x: f"U+{x:04X}" if isinstance(x, int) and not isinstance(x, bool) else str(x),
)
def test_zh_quirk_edges(cp: int, chinese: bool) -> None:
    """Hand-derived from SacreBLEU's table, read as string comparison really reads it."""
    c = chr(cp)
    is_chinese = ORACLE_TOKENIZERS["zh"]._is_chinese_char
    assert is_chinese(c) == chinese  # the hand derivation is right
    assert tok.is_zh_char(c) == chinese
    if not c.isspace():  # a space is a token boundary either way
        line = f"x{c}y"
        expected = ["x", c, "y"] if chinese else [line]
        assert oracle_tokens("zh", line) == expected
        assert TOKENIZERS["zh"](line) == expected


def test_zh_classification_of_white_space_and_edges() -> None:
    """Tokens cannot show whether a space is "Chinese": check the classification itself.

    Every other code point's classification shows in the exhaustive
    "1{c}1" pass above (a Chinese character is split from the digits).
    """
    is_chinese = ORACLE_TOKENIZERS["zh"]._is_chinese_char
    spaces = [c for c in all_code_points_string() if c.isspace()]
    assert len(spaces) > 20
    assert [c for c in spaces if tok.is_zh_char(c) != is_chinese(c)] == []
    edges = [chr(cp) for cp in zh_edge_points()]
    assert [c for c in edges if tok.is_zh_char(c) != is_chinese(c)] == []


# --------------------------------------------------------------------------
# fast paths: each equals the plain rule
# --------------------------------------------------------------------------

# Black box: lines built to take each path of bleustream.tokenizers.registry, each
# checked against SacreBLEU (which runs the plain rules on every line).  The
# flags state what the line holds, and are asserted, so that a line cannot
# silently drift off the path it is meant to take.

# (id, line, ASCII digit, "." or ",", two of "." "," side by side, "-")
FAST_PATH_13A = [
    ("no-digit-plain", "Hello world today", False, False, False, False),
    ("no-digit-period", "Hello... World, today. U.S.A, e.g.", False, True, True, False),
    ("no-digit-dash", "well-known -- e-mail - x-", False, False, False, True),
    ("no-digit-all", ".,-a.b,c-d.", False, True, True, True),
    ("no-digit-edges", ".start and end.", False, True, False, False),
    ("no-digit-entities", "&quot;x&quot; &amp; &lt;b&gt; &amp", False, False, False, False),
    ("no-digit-punct", ASCII_PUNCTUATION, False, True, False, True),
    ("digit-plain", "room 101 and 7 dwarfs", True, False, False, False),
    ("digit-period", "3.5 5. .5 a.1 1.a 1.2.3", True, True, False, False),
    ("digit-periods-adjacent", "3.5 ...5 5.. 1..2 a.,1 1,.a", True, True, True, False),
    ("digit-comma", "1,000 5, ,5 a,1 1,a", True, True, False, False),
    ("digit-commas-adjacent", "1,,000 ,,5 5,, a,,b", True, True, True, False),
    ("digit-dash", "2-3 5- -5 a-1 1-a 1--2", True, False, False, True),
    ("digit-all", "1,000.50-2 .5-3, 9-.1", True, True, False, True),
    ("digit-all-adjacent", "1,000..50-2 .,5-3, 9-.,1", True, True, True, True),
    ("digit-edges", "5. ends.1 .5 starts", True, True, False, False),
    ("digit-edges-adjacent", "..5 ends 5..", True, True, True, False),
    ("digit-punct", "1" + ASCII_PUNCTUATION + "2", True, True, False, True),
    ("digit-newline", "1-\n2 a-\nb\n3.\n", True, True, False, True),
    ("digit-skipped", "1<skipped>.5 <skipped>2-", True, True, False, True),
    ("digit-entities", "5&amp;6 &lt;1&gt; &quot;2,3&quot;", True, True, False, False),
    ("non-ascii-digits", "٣.٥ ١,٢ ½-", False, True, False, True),
    ("fullwidth", "１．５ ３，４ ５－", False, False, False, False),
]


@pytest.mark.parametrize(
    ("line", "digit", "period_comma", "adjacent", "dash"),
    [pytest.param(*row[1:], id=row[0]) for row in FAST_PATH_13A],
)
@pytest.mark.parametrize("name", ("13a", "zh"))
def test_13a_fast_paths(
    name: str, line: str, digit: bool, period_comma: bool, adjacent: bool, dash: bool
) -> None:
    assert any(c in "0123456789" for c in line) == digit
    assert ("." in line or "," in line) == period_comma
    assert bool(regex.search(r"[.,][.,]", line)) == adjacent
    assert ("-" in line) == dash
    assert TOKENIZERS[name](line) == oracle_tokens(name, line)
    for variant in (f" {line} ", f"{line}.", f".{line}", f"{line}5", f"5{line}", f"中{line}中"):
        assert TOKENIZERS[name](variant) == oracle_tokens(name, variant), repr(variant)


# (id, line, beyond U+FFFF, \p{N}, \p{P}, two \p{P} side by side)
FAST_PATH_INTL = [
    ("no-number-plain", "Hello world", False, False, False, False),
    ("no-number-punct", "Hello, world. «quoted» ¿qué? 「括弧」", False, False, True, False),
    ("no-number-punct-adjacent", "Hello,, world!? «quoted». ¿qué?", False, False, True, True),
    ("no-number-symbol", "a+b=c $ € ™ ©", False, False, False, False),
    ("no-number-both", "a+b, c=d. €!", False, False, True, False),
    ("no-number-edges", ".start end.", False, False, True, False),
    ("number-plain", "room 101", False, True, False, False),
    ("number-punct", "1,000.50 3.5 5. .5 a.1 1.a", False, True, True, False),
    ("number-punct-adjacent", "1,,000 3.,5 5.. ..5 a.!1 1!.a (1).", False, True, True, True),
    ("number-symbol", "5$ $5 1+1=2", False, True, False, False),
    ("number-both", "5$, $5. 1+1=2!", False, True, True, False),
    ("number-both-adjacent", "5$,. $5.! 1+1=2!!", False, True, True, True),
    ("non-ascii-number", "٣.٥ ١,٢ ½. Ⅻ, ²!", False, True, True, False),
    ("number-edges", "5. .5", False, True, True, False),
    ("ascii-punct", ASCII_PUNCTUATION, False, False, True, True),
    ("digit-ascii-punct", "1" + ASCII_PUNCTUATION + "2", False, True, True, True),
    ("astral-plain", "𐀀𐀁 word", True, False, False, False),
    ("astral-punct", "𐀀, 𑁇 word. 𖩮", True, False, True, False),
    ("astral-number", "𝟘.𝟙 𐄇,1 1.𐄇", True, True, True, False),
    ("astral-number-adjacent", "𝟘..𝟙 𑁇𑁈1 1.,𐄇 a𑁇.", True, True, True, True),
    ("astral-symbol", "𝄞 1𝄞2 a𝄞b 🙂.", True, True, True, False),
]


@pytest.mark.parametrize(
    ("line", "astral", "number", "punct", "adjacent"),
    [pytest.param(*row[1:], id=row[0]) for row in FAST_PATH_INTL],
)
def test_intl_fast_paths(
    line: str, astral: bool, number: bool, punct: bool, adjacent: bool
) -> None:
    assert any(ord(c) > 0xFFFF for c in line) == astral
    assert bool(regex.search(r"\p{N}", line)) == number
    assert bool(regex.search(r"\p{P}", line)) == punct
    assert bool(regex.search(r"\p{P}\p{P}", line)) == adjacent
    assert TOKENIZERS["intl"](line) == oracle_tokens("intl", line)
    for variant in (f" {line} ", f"{line}.", f".{line}", f"{line}5", f"5{line}", f"{line}𐀀"):
        assert TOKENIZERS["intl"](variant) == oracle_tokens("intl", variant), repr(variant)


# White box: the same lines with bleustream's shortcut tests forced to
# "take the general path", one at a time and all together.  These name
# private attributes of bleustream.tokenizers.registry; if one is renamed the test
# errors (AttributeError), which means it needs updating, not that
# tokenization is wrong.


def _fast_path_lines() -> list[str]:
    lines = list(Adversary(7).lines(600, line_breaks=True))
    lines += [row[1] for row in FAST_PATH_13A] + [row[1] for row in FAST_PATH_INTL]
    lines += list(DIGIT_PIECES) + list(ENTITY_PIECES) + list(SKIPPED_PIECES) + list(LINE_BREAKS)
    # Lines with no digit at all, where the most shortcuts apply.
    lines += [line for line in Adversary(8).lines(600) if not any(c.isdigit() for c in line)]
    return lines


def _always(_line: str) -> bool:
    return True


SHORTCUTS_13A = ("_has_digit", "_adjacent_periods")
SHORTCUTS_INTL_MODULE = ("_HAS_ASTRAL",)
SHORTCUTS_INTL_RULES = ("has_number", "has_punct", "adjacent_punct")


@pytest.mark.parametrize("forced", [*[(s,) for s in SHORTCUTS_13A], SHORTCUTS_13A], ids="+".join)
def test_13a_shortcuts_forced(monkeypatch: pytest.MonkeyPatch, forced: tuple[str, ...]) -> None:
    lines = _fast_path_lines()
    fast = {name: [TOKENIZERS[name](line) for line in lines] for name in ("13a", "zh")}
    for attribute in forced:
        monkeypatch.setattr(tok, attribute, _always)
    for name in ("13a", "zh"):
        slow = [TOKENIZERS[name](line) for line in lines]
        diff = [(line, f, s) for line, f, s in zip(lines, fast[name], slow) if f != s]
        assert diff[:5] == [], name
        assert mismatches(name, lines) == []


@pytest.mark.parametrize(
    "forced",
    [
        *[(s,) for s in SHORTCUTS_INTL_MODULE + SHORTCUTS_INTL_RULES],
        SHORTCUTS_INTL_MODULE + SHORTCUTS_INTL_RULES,
    ],
    ids="+".join,
)
def test_intl_shortcuts_forced(monkeypatch: pytest.MonkeyPatch, forced: tuple[str, ...]) -> None:
    lines = _fast_path_lines()
    fast = [TOKENIZERS["intl"](line) for line in lines]
    for attribute in forced:
        if attribute in SHORTCUTS_INTL_MODULE:
            monkeypatch.setattr(tok, attribute, _always)
        else:
            for limit in (0xFFFF, sys.maxunicode):
                monkeypatch.setattr(tok._intl(limit), attribute, _always)
    slow = [TOKENIZERS["intl"](line) for line in lines]
    diff = [(line, f, s) for line, f, s in zip(lines, fast, slow) if f != s]
    assert diff[:5] == []
    assert mismatches("intl", lines) == []


# --------------------------------------------------------------------------
# hand-written cases (documentation as much as tests)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "line", "expected"),
    [
        ("13a", "Hello, world!", ["Hello", ",", "world", "!"]),
        (
            "13a",
            "It costs $3.50, i.e. 1,000-2,000.",
            ["It", "costs", "$", "3.50", ",", "i", ".", "e", ".", "1,000", "-", "2,000", "."],
        ),
        (
            "13a",
            "a&amp;b &lt;tag&gt; &quot;q&quot;",
            ["a", "&", "b", "<", "tag", ">", '"', "q", '"'],
        ),
        ("13a", "&amp;lt;", ["<"]),
        ("13a", "x<skipped>y", ["xy"]),
        ("13a", "hyph-\nenated line\nbreak", ["hyphenated", "line", "break"]),
        ("13a", "2018.", ["2018", "."]),
        ("intl", "2018.", ["2018."]),
        ("intl", "1,000.5 «x»", ["1,000.5", "«", "x", "»"]),
        ("intl", ".5", [".5"]),
        ("intl", "a.5", ["a", ".", "5"]),  # rule 1 sees the "a"
        ("zh", "我爱北京。", ["我", "爱", "北", "京", "。"]),
        ("zh", "GDP增长3.5%", ["GDP", "增", "长", "3.5", "%"]),
        ("char", "ab c\u3000d", ["a", "b", "c", "d"]),
        ("char", "", []),
        ("none", " a\u00a0b\tc ", ["a", "b", "c"]),
        ("none", "a\ufeffb", ["a\ufeffb"]),
    ],
)
def test_hand_written(name: str, line: str, expected: list[str]) -> None:
    assert oracle_tokens(name, line) == expected  # the hand derivation is right
    assert TOKENIZERS[name](line) == expected
