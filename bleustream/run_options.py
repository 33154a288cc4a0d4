"""The typed options of a run: what the command line and the config file
resolve to, checked, and all that ``bleustream.run.run`` reads of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bleustream.metrics import Spec
from bleustream.resampling import Test


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs to know, checked and typed."""

    specs: tuple[Spec, ...]
    refs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ("-",)  # one per system (stats: shards)
    format: str = "text"
    width: int = 1
    score_only: bool = False
    sentence_level: bool = False
    every: int = 0
    encoding: str = "utf-8"
    encoding_errors: str = "strict"
    skip_bad_lines: bool = False
    input_format: str = "paste"
    fairseq_hyp: str = "D"
    keyed_refs: str | None = None
    allow_unpaired: bool = False
    systems: int = 1  # paste input: hypotheses per line
    jobs: int = 1  # worker processes counting segments
    num_refs: int = 1  # references per line of the one reference file
    test: Test | None = None  # confidence intervals or a paired test
    progress: bool = False  # progress lines on the progress stream
    # Merging statistics: by metric name, the score-only settings that the
    # command line (or config file) sets over those the records carry.
    scoring_overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def input(self) -> str:
        return self.inputs[0]
