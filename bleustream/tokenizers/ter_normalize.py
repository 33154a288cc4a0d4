"""The tercom tokenizer: SacreBLEU 2.x's ``TercomTokenizer``, rule for rule.

TER's own normalization (tercom's ``Normalizer.java`` as SacreBLEU ports
it), not one of BLEU's tokenizers: lowercasing unless case-sensitive, then,
when asked, the "normalized" rules (XML entities, punctuation spaced out,
and with Asian support CJK characters split apart) and punctuation removal.

The rules are SacreBLEU's regular expressions, compiled once and applied in
its order; SacreBLEU looks each pattern up in ``re``'s cache on every call.
The quirks are kept: ``(^|^[...])`` in the kana rules only ever matches at
the start of the line, ``'s$`` never matches after the padding space, and
the "enclosed CJK" range runs to U+3F22.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Callable

# The tokenizer's name in TER's signature (``TercomTokenizer.signature()``).
SIGNATURE = "tercom"

_ASIAN_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"


def _rules(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The rules of one step, as (pattern, replacement): compiled by ``_compiled``
    when a TER run first needs them, not when the package is imported."""
    return pairs


@cache
def _compiled(name: str) -> list[tuple[Callable[..., str], str]]:
    """A step's rules as compiled ``sub`` functions with their replacements."""
    return [(re.compile(pattern).sub, repl) for pattern, repl in _STEPS[name]]


# _normalize_general_and_western, before the padding spaces are added.
_GENERAL = _rules(
    [
        (r"\n-", ""),  # end-of-line hyphenation
        (r"\n", " "),  # join lines
        (r"&quot;", '"'),
        (r"&amp;", "&"),
        (r"&lt;", "<"),
        (r"&gt;", ">"),
    ]
)
# ... and after them.
_WESTERN = _rules(
    [
        (r"([{-~[-` -&(-+:-@/])", r" \1 "),  # punctuation
        (r"'s ", r" 's "),  # possessives
        (r"'s$", r" 's"),
        (r"([^0-9])([\.,])", r"\1 \2 "),  # period and comma unless after a digit
        (r"([\.,])([^0-9])", r" \1 \2"),  # ... unless before a digit
        (r"([0-9])(-)", r"\1 \2 "),  # dash after a digit
    ]
)
# _normalize_asian.
_ASIAN = _rules(
    [
        (r"([\u4e00-\u9fff\u3400-\u4dbf])", r" \1 "),  # CJK ideographs, extension A
        (r"([\u31c0-\u31ef\u2e80-\u2eff])", r" \1 "),  # strokes, radicals
        (r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])", r" \1 "),  # compatibility
        (r"([\u3200-\u3f22])", r" \1 "),  # enclosed CJK letters and months (and on)
        (r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])", r"\1 \2 "),
        (r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])", r"\1 \2 "),
        (r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])", r"\1 \2 "),
        (_ASIAN_PUNCT, r" \1 "),
        (_FULL_WIDTH_PUNCT, r" \1 "),
    ]
)
_PUNCT = _rules([(r"[\.,\?:;!\"\(\)]", "")])
_ASIAN_PUNCT_RULES = _rules([(_ASIAN_PUNCT, ""), (_FULL_WIDTH_PUNCT, "")])
_STEPS = {
    "general": _GENERAL,
    "western": _WESTERN,
    "asian": _ASIAN,
    "punct": _PUNCT,
    "asian_punct": _ASIAN_PUNCT_RULES,
}


def _apply(rules: list[tuple[Callable[..., str], str]], sent: str) -> str:
    for sub, repl in rules:
        sent = sub(repl, sent)
    return sent


def tercom_tokenizer(
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Callable[[str], str]:
    """SacreBLEU's ``TercomTokenizer(...)``: a line in, its tokens joined by spaces out.

    The rule list is fixed here, once, so that the returned function does no
    more than the settings ask (with the defaults: lowercase and re-space).
    """
    before: list[tuple[Callable[..., str], str]] = []
    after: list[tuple[Callable[..., str], str]] = []
    if normalized:
        before = _compiled("general")
        after = _compiled("western") + (_compiled("asian") if asian_support else [])
    if no_punct:
        after = after + _compiled("punct") + (_compiled("asian_punct") if asian_support else [])

    def tokenize(sent: str) -> str:
        if not sent:
            return ""
        if not case_sensitive:
            sent = sent.lower()
        if normalized:
            sent = f" {_apply(before, sent)} "
        if after:
            sent = _apply(after, sent)
        return " ".join(sent.split())

    return tokenize
