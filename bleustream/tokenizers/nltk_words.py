"""NLTK's ``word_tokenize``, as Texygen's Self-BLEU tokenizes (``-tok nltk``).

NLTK is an optional extra (``bleustream[nltk]``), and ``word_tokenize``
needs NLTK's Punkt data (``python -m nltk.downloader punkt_tab``); without
either, the first call is a ``UsageError`` that says how to install it.
"""

from __future__ import annotations

from typing import Callable

from bleustream.errors import UsageError

NLTK_EXTRA = "pip install 'bleustream[nltk]'"
PUNKT = "python -m nltk.downloader punkt_tab"


def nltk_tokenizer() -> Callable[[str], list[str]]:
    """``nltk.word_tokenize``, checked once to have its data."""
    try:
        from nltk import word_tokenize
    except ImportError:
        raise UsageError(f"-tok nltk needs NLTK: {NLTK_EXTRA}") from None
    try:
        word_tokenize("A test.")
    except LookupError:
        raise UsageError(f"-tok nltk needs NLTK's Punkt data: {PUNKT}") from None
    return word_tokenize  # type: ignore[no-any-return]
