"""SacreBLEU's test-set functions, under the names ``sacrebleu.utils`` gives them.

Each calls SacreBLEU's own (the extra ``bleustream[testsets]``, see
``bleustream.dataset``): its registry, downloader and cache (``$SACREBLEU``,
else ``~/.sacrebleu``), so a cache that SacreBLEU filled serves bleustream
too, and the other way round.  The command line's ``-t``, ``--echo``,
``--list`` and ``--download`` use the same functions.
"""

from __future__ import annotations

from typing import Any

from bleustream.dataset import registry

__all__ = [
    "download_test_set",
    "get_available_testsets",
    "get_available_testsets_for_langpair",
    "get_langpairs_for_testset",
    "get_reference_files",
    "get_source_file",
]


def get_source_file(test_set: str, langpair: str) -> str:
    """The cached source file of a test set's language pair (downloaded first if missing)."""
    return str(registry()[1].get_source_file(test_set, langpair))


def get_reference_files(test_set: str, langpair: str) -> list[str]:
    """The cached reference files of a test set's language pair (downloaded first if missing)."""
    return list(registry()[1].get_reference_files(test_set, langpair))


def download_test_set(test_set: str, langpair: str | None = None) -> Any:
    """Downloads a test set (every pair, or ``langpair``) into the cache; SacreBLEU's result."""
    return registry()[1].download_test_set(test_set, langpair)


def get_langpairs_for_testset(testset: str) -> list[str]:
    """The language pairs of a test set."""
    return list(registry()[1].get_langpairs_for_testset(testset))


def get_available_testsets() -> list[str]:
    """Every test set's name."""
    return list(registry()[1].get_available_testsets())


def get_available_testsets_for_langpair(langpair: str) -> list[str]:
    """The test sets that have a language pair."""
    return list(registry()[1].get_available_testsets_for_langpair(langpair))
