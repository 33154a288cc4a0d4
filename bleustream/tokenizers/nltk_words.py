"""NLTK's ``word_tokenize``, as Texygen's Self-BLEU tokenizes (``-tok nltk``).

NLTK is an optional extra (``bleustream[nltk]``), and ``word_tokenize``
needs NLTK's Punkt data (``python -m nltk.downloader punkt_tab``); without
either, the first call is a ``UsageError`` that says how to install it.
"""

from __future__ import annotations

from typing import Callable

from bleustream.errors import UsageError
from bleustream.extras import require

PUNKT = "python -m nltk.downloader punkt_tab"


def nltk_tokenizer() -> Callable[[str], list[str]]:
    """``nltk.word_tokenize``, checked once to have its data."""
    word_tokenize = require("nltk", "-tok nltk", "NLTK", "nltk").word_tokenize
    try:
        word_tokenize("A test.")
    except LookupError:
        raise UsageError(f"-tok nltk needs NLTK's Punkt data: {PUNKT}") from None
    return word_tokenize  # type: ignore[no-any-return]
