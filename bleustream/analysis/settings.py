"""What an analysis is asked for: bucket edges, where word frequencies come
from, n-gram orders, how many examples, and the bootstrap's samples and seed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bleustream.analysis.buckets import (
    FREQUENCY_EDGES,
    LENGTH_DIFF_EDGES,
    LENGTH_EDGES,
    SENTENCE_BLEU_EDGES,
    Edges,
)

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345
DEFAULT_EXAMPLES = 10
DEFAULT_NGRAMS_LISTED = 50
# The sentence buckets: their name in the document, and what they measure.
SENTENCE_KINDS = ("length", "length_diff", "sentence_bleu")


@dataclass(frozen=True)
class AnalysisSettings:
    """The settings of one analysis; the defaults are compare-mt 0.2.10's."""

    length_edges: Edges = field(default_factory=lambda: Edges(LENGTH_EDGES))
    length_diff_edges: Edges = field(default_factory=lambda: Edges(LENGTH_DIFF_EDGES))
    sentence_bleu_edges: Edges = field(
        default_factory=lambda: Edges(SENTENCE_BLEU_EDGES, whole=False)
    )
    frequency_edges: Edges = field(default_factory=lambda: Edges(FREQUENCY_EDGES))
    # Word frequencies given up front (a training corpus or counts file);
    # None: counted in the references.
    frequencies: Mapping[str, int] | None = field(default=None, compare=False)
    frequency_source: str = "references"
    # Where the frequencies are read from when the analysis begins: a
    # ("counts", path) file of ``word<TAB>count`` lines or a ("corpus", path)
    # training corpus (``run.analyze.with_frequencies``); None: as above.
    frequency_file: tuple[str, str] | None = None
    ngram_orders: tuple[int, int] = (1, 4)
    alpha: float = 1.0
    ngrams_listed: int = DEFAULT_NGRAMS_LISTED
    examples: int = DEFAULT_EXAMPLES
    samples: int = DEFAULT_SAMPLES  # 0: no intervals, nothing kept per segment
    seed: int | None = DEFAULT_SEED  # None: fresh entropy

    def edges(self, kind: str) -> Edges:
        return {
            "length": self.length_edges,
            "length_diff": self.length_diff_edges,
            "sentence_bleu": self.sentence_bleu_edges,
        }[kind]
