"""SacreBLEU's ``metrics.helpers``: its n-gram counting functions, as it
defines them (also at the top of ``sacrebleu``).

bleustream's metrics count n-grams their own way (``ngrams``, ``chrf``),
in forms these functions do not return; these are for code that calls
SacreBLEU's helpers by name.
"""

from __future__ import annotations

from collections import Counter

__all__ = [
    "extract_all_char_ngrams",
    "extract_all_word_ngrams",
    "extract_char_ngrams",
    "extract_word_ngrams",
]


def extract_all_word_ngrams(line: str, min_order: int, max_order: int) -> tuple[Counter, int]:
    """The word n-grams of orders ``min_order`` to ``max_order`` of a line (as
    tuples of words, counted), and its number of words."""
    words = line.split()
    grams = Counter(
        tuple(words[start : start + n])
        for n in range(min_order, max_order + 1)
        for start in range(len(words) - n + 1)
    )
    return grams, len(words)


def extract_word_ngrams(tokens: list[str], n: int) -> Counter:
    """The word n-grams of order ``n`` of a list of tokens, as space-joined text, counted."""
    return Counter(" ".join(tokens[start : start + n]) for start in range(len(tokens) - n + 1))


def extract_char_ngrams(line: str, n: int, include_whitespace: bool = False) -> Counter:
    """The character n-grams of order ``n`` of a line, counted; white space
    is removed first unless ``include_whitespace``."""
    if not include_whitespace:
        line = "".join(line.split())
    return Counter(line[start : start + n] for start in range(len(line) - n + 1))


def extract_all_char_ngrams(
    line: str, max_order: int, include_whitespace: bool = False
) -> list[Counter]:
    """``extract_char_ngrams`` of every order from 1 to ``max_order``."""
    if not include_whitespace:
        line = "".join(line.split())
    return [extract_char_ngrams(line, n, include_whitespace=True) for n in range(1, max_order + 1)]
