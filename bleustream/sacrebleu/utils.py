"""SacreBLEU's ``utils``: its test-set functions, ``smart_open`` and ``SACREBLEU_DIR``.

The test-set functions call SacreBLEU's own (the extra
``bleustream[testsets]``, see ``bleustream.sacrebleu.dataset``): its registry,
downloader and cache (``$SACREBLEU``, else ``~/.sacrebleu``), so a cache
that SacreBLEU filled serves bleustream too, and the other way round.  The
command line's ``-t``, ``--echo``, ``--list`` and ``--download`` use the
same functions.  ``smart_open`` and ``SACREBLEU_DIR`` are bleustream's; any
other public name of SacreBLEU's ``utils`` (``print_test_set``,
``download_file``, ``my_log``...) is SacreBLEU's own, read from the extra
when first asked for.
"""

from __future__ import annotations

import gzip
from typing import IO, Any

from bleustream.sacrebleu.dataset import registry
from bleustream.tokenizers.spm import sacrebleu_dir

__all__ = [
    "SACREBLEU_DIR",
    "download_test_set",
    "get_available_testsets",
    "get_available_testsets_for_langpair",
    "get_langpairs_for_testset",
    "get_reference_files",
    "get_source_file",
    "smart_open",
]

# SacreBLEU's cache: $SACREBLEU, else ~/.sacrebleu, read once as SacreBLEU does.
SACREBLEU_DIR = sacrebleu_dir()


def smart_open(file: str, mode: str = "rt", encoding: str = "utf-8") -> IO[Any]:
    """A text file, gzip-compressed when its name ends in ``.gz``, with
    lines ended by ``\\n`` only (SacreBLEU's ``smart_open``)."""
    if file.endswith(".gz"):
        return gzip.open(file, mode=mode, encoding=encoding, newline="\n")  # type: ignore[no-any-return]
    return open(file, mode=mode, encoding=encoding, newline="\n")


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


def __getattr__(name: str) -> Any:
    """SacreBLEU's other public names of ``utils``, from the testsets extra."""
    if not name.startswith("_"):
        theirs = registry()[1]
        if hasattr(theirs, name):
            return getattr(theirs, name)
    raise AttributeError(f"module 'bleustream.sacrebleu.utils' has no attribute {name!r}")
