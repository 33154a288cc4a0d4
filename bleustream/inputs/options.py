"""What reading the input needs to know of a run's options, and no more.

``bleustream.run.RunOptions`` holds every option of a run, this part of
it as its ``reading``, which the input layer and the worker processes take
(it pickles small and names nothing above this layer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bleustream.errors import UsageError
from bleustream.frozen import Factory, Frozen
from bleustream.inputs.formats import LOG_FORMATS, check_usage
from bleustream.inputs.lines import check_encoding, check_num_refs


class ReadOptions(Frozen):
    """The options that say what to read and how."""

    refs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ("-",)  # one per system (stats: shards)
    encoding: str = "utf-8"
    encoding_errors: str = "strict"
    skip_bad_lines: bool = False
    input_format: str = "paste"
    fairseq_hyp: str = "D"
    keyed_refs: str | None = None
    systems: int = 1  # paste input: hypotheses per line
    # Hypotheses on stdin with REF files: the systems in each line's
    # tab-separated fields, as SacreBLEU reads them, the first line's number
    # (0: not read so; a tab is then text).
    stdin_systems: int = 0
    num_refs: int = 1  # references per line of the one reference file
    # A test set's --origlang/--subset: the numbers of the lines scored.
    keep_lines: frozenset[int] | None = None
    sentence_level: bool = False
    # --compat sacrebleu: stdin's hypotheses read as SacreBLEU's command line
    # reads them (universal newlines), and its uneven fields refused with
    # SacreBLEU's words and status.
    compat: bool = False
    # Merging statistics: by metric name, the score-only settings that the
    # command line (or config file) sets over those the records carry.
    scoring_overrides: Mapping[str, Mapping[str, Any]] = Factory(dict)
    # Reading statistics: by metric name, the counting settings given; each
    # must agree with the records (``stats_reader.check_counting_given``).
    counting_given: Mapping[str, Mapping[str, Any]] = Factory(dict)
    # --src: the source segments, one a line, for a metric that reads them (COMET).
    src: str | None = None

    def __post_init__(self) -> None:
        # Each rule about what may be read together is checked here, once,
        # wherever the options come from (the command line, a config file,
        # Python).
        check_encoding(self.encoding)
        check_usage(self.input_format, len(self.refs), self.keyed_refs)
        if self.input_format == "paste" and self.refs:
            check_num_refs(self.num_refs, len(self.refs))
        elif self.num_refs > 1:
            raise UsageError("--num-refs applies to a REF file read in lockstep")
        if len(self.inputs) > 1 and self.input_format in LOG_FORMATS:
            raise UsageError(f"--input-format {self.input_format} reads one system")

    @property
    def input(self) -> str:
        return self.inputs[0]

    @property
    def sacrebleu_refusals(self) -> bool:
        """Whether SacreBLEU's refusals replace bleustream's
        (``inputs.sacrebleu_lengths``): compat mode, with REF files read in
        lockstep with the hypotheses (SacreBLEU's only input)."""
        return self.compat and bool(self.refs) and self.input_format == "paste"

    @property
    def stdin_universal_newlines(self) -> bool:
        """Whether standard input ends a line at a lone ``\\r`` too: under
        ``--compat sacrebleu``, where it holds hypotheses read with REF files,
        as SacreBLEU reads them."""
        return (
            self.compat and self.input_format == "paste" and bool(self.refs) and "-" in self.inputs
        )
