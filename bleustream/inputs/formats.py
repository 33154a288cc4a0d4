"""The input formats' names and the reference options each takes: what
the parser offers (``--input-format``, ``--fairseq-hyp``) and checks,
without loading the log readers (``inputs/logs.py``), which a run of paste
input never needs."""

from __future__ import annotations

from bleustream.errors import UsageError

LOG_FORMATS = ("fairseq", "nbest", "keyed")
INPUT_FORMATS = ("paste", *LOG_FORMATS)
FAIRSEQ_HYPS = ("D", "H")


def check_usage(input_format: str, nrefs: int, keyed_refs: str | None) -> None:
    """Raise ``UsageError`` for reference options the input format cannot use."""
    if keyed_refs is not None and input_format != "keyed":
        raise UsageError("--keyed-refs needs --input-format keyed")
    if input_format == "nbest" and nrefs == 0:
        raise UsageError(
            "--input-format nbest needs reference files: n-best ids are their line numbers"
        )
    if input_format == "keyed":
        if keyed_refs is not None and nrefs:
            raise UsageError("give references either as --keyed-refs or as REF files, not both")
        if keyed_refs is None and not nrefs:
            raise UsageError(
                "--input-format keyed needs references: REF files (ids are their "
                "0-based line numbers) or --keyed-refs FILE"
            )
