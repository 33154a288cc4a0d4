"""``-d/--detail``: SacreBLEU's scores of a test set's parts, after the scores.

For one system scored against a test set (``-t``), each original language
(``--origlang``, or every one the test set's raw files name), and within
it all domains and then each domain (``--subset``, or every one the set
has), as SacreBLEU's ``print_subset_results`` prints them::

    origlang=de domain=ALL: sentences=1498   BLEU = 31.4

The lines of each part are the ones SacreBLEU's own ``filter_subset``
keeps; each part is scored by a run of its own over the same files (stdin
is kept in a temporary file for them), so each number is bleustream's
corpus score of those lines.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import replace
from typing import Any, BinaryIO

from bleustream.cli import testsets
from bleustream.errors import EXIT_OK, UsageError
from bleustream.run import RunOptions, run

# SacreBLEU's words, on stdout after the scores, when there are no parts.
NO_PARTS = "No subset information found. Consider using --origlang argument.\n"


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


def parts(values: dict[str, Any]) -> list[tuple[str, frozenset[int]]]:
    """Each part's key, as SacreBLEU writes it, with the numbers of its lines."""
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
    return out


def detail_text(
    run_options: RunOptions,
    values: dict[str, Any],
    stdin: Callable[[], BinaryIO | None],
    report: Callable[[str], None],
) -> str:
    """The lines ``-d`` adds (SacreBLEU's words when a test set has no parts)."""
    if _stdin_systems(run_options, stdin):
        return ""  # several systems, from stdin's fields: SacreBLEU adds nothing
    found = parts(values) if values.get("test_set") else []
    if not found:
        return NO_PARTS
    results: dict[str, list[tuple[int, str, float]]] = {}
    for key, kept in found:
        # Each part as SacreBLEU scores it: the corpus score alone, whatever
        # -b or a test asked of the main score.
        part = replace(
            run_options.with_reading(keep_lines=kept),
            format="jsonl",
            every=0,
            progress=False,
            score_only=False,
            test=None,
        )
        out = io.BytesIO()
        status = run(part, stdin(), out, report)  # type: ignore[arg-type]
        if status != EXIT_OK:
            raise UsageError(f"--detail: the part {key} could not be scored")
        for line in out.getvalue().decode("utf-8").splitlines():
            record = json.loads(line)
            if record.get("type") == "corpus":
                results.setdefault(key, []).append(
                    (record["segments"], record["metric"], record["score"])
                )
    left = max(len(key) for key in results) + 1
    names = max(len(name) for _, name, _ in next(iter(results.values())))
    width = run_options.width
    return "".join(
        f"{key:<{left}}: sentences={n:<6} {name:<{names}} = {score:.{width}f}\n"
        for key, scores in results.items()
        for n, name, score in scores
    )


def _stdin_systems(run_options: RunOptions, stdin: Callable[[], BinaryIO | None]) -> bool:
    """Whether stdin's tab-separated fields are several systems (its first line says)."""
    if not run_options.stdin_splits:
        return False
    stream = stdin()
    if stream is None:
        return False
    try:
        return b"\t" in stream.readline()
    finally:
        stream.close()


def replayable(stdin: BinaryIO | None, values: dict[str, Any]) -> Callable[[], BinaryIO | None]:
    """A function giving stdin anew for each run: when the hypotheses come
    from stdin, it is kept in a temporary file (removed at exit) that every
    part reads again."""
    if stdin is None or values["input"] != ["-"]:
        return lambda: stdin
    import atexit

    handle, path = tempfile.mkstemp(prefix="bleustream-detail-")
    atexit.register(os.remove, path)
    with os.fdopen(handle, "wb") as kept:
        shutil.copyfileobj(stdin, kept)
    return lambda: open(path, "rb")
