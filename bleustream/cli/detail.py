"""``-d/--detail``: which parts of a test set SacreBLEU scores after the scores.

For one system scored against a test set (``-t``), each original language
(``--origlang``, or every one the test set's raw files name), and within
it all domains and then each domain (``--subset``, or every one the set
has), as SacreBLEU's ``print_subset_results`` prints them::

    origlang=de domain=ALL: sentences=1498   BLEU = 31.4

The lines of each part are the ones SacreBLEU's own ``filter_subset``
keeps.  The run scores each part beside the whole as it reads
(``RunOptions.parts``: one running total per part, added to from the same
rows) and writes these lines after the scores (``run.final.parts_text``).
"""

from __future__ import annotations

from typing import Any

from bleustream.cli import testsets
from bleustream.errors import UsageError


def check(values: dict[str, Any]) -> bool:
    """Whether ``-d`` adds its lines to this run (a ``UsageError`` if it cannot).

    In SacreBLEU's mode, ``-d`` is passed over where SacreBLEU passes it
    over: with ``-sl`` and with several systems.
    """
    compat = values["compat"] == "sacrebleu"
    several = len(values["input"]) > 1 or values["systems"] > 1
    if compat and (several or values["sentence_level"]):
        return False
    if several:
        raise UsageError("--detail (-d) scores the parts of one system's test set: one system")
    if values["sentence_level"] or values["every"]:
        raise UsageError("--detail (-d) adds corpus scores: not with -sl or --every")
    if values["format"] in ("jsonl", "tsv", "stats"):
        raise UsageError(
            f"--detail (-d) adds SacreBLEU's text lines: not with -f {values['format']} "
            "(use -f text or json)"
        )
    if values["format"] == "json":
        values["format"] = "text"  # SacreBLEU's: the parts would break the JSON
    return True


def parts(values: dict[str, Any]) -> tuple[tuple[str, frozenset[int]], ...]:
    """Each part's key, as SacreBLEU writes it, with the numbers of its lines
    (none without a test set)."""
    if not values.get("test_set"):
        return ()
    _dataset, utils = testsets.registry()
    test_set, pair = values["test_set"], values["language_pair"]
    origlangs = [values["origlang"]] if values.get("origlang") else None
    origlangs = origlangs or utils.get_available_origlangs(test_set, pair)
    subsets = [values["subset"]] if values.get("subset") else None
    subsets = subsets or utils.get_available_subsets(test_set, pair)
    out = []
    for origlang in origlangs:
        for subset in [None, *subsets]:
            kept = testsets.kept_lines({**values, "origlang": origlang, "subset": subset}, True)
            if not kept:
                continue
            key = f"origlang={origlang}"
            if subset is None:
                key += " domain=ALL"
            elif subset.startswith("country:"):
                key += f" country={subset[8:]}"
            else:
                key += f" domain={subset}"
            out.append((key, kept))
    return tuple(out)
