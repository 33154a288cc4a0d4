"""``--analyze``: the command line's options of the analyses as
``AnalysisSettings``; the run itself is ``run.analyze``'s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bleustream.analysis.buckets import Edges
from bleustream.analysis.edges import parse_edges
from bleustream.analysis.settings import AnalysisSettings
from bleustream.metrics.seeds import parse_seed


def settings_of(values: Mapping[str, Any]) -> AnalysisSettings:
    """The analysis settings the command line's options give (the file of
    word frequencies, named here, is read when the analysis begins)."""
    frequency_file = None
    if values["freq_counts"]:
        frequency_file = ("counts", values["freq_counts"])
    elif values["freq_corpus"]:
        frequency_file = ("corpus", values["freq_corpus"])
    low, high = (int(x) for x in values["ngram_orders"].split(":"))
    return AnalysisSettings(
        length_edges=Edges(parse_edges(values["length_edges"])),
        length_diff_edges=Edges(parse_edges(values["length_diff_edges"])),
        sentence_bleu_edges=Edges(parse_edges(values["sentence_bleu_edges"]), whole=False),
        frequency_edges=Edges(parse_edges(values["frequency_edges"])),
        frequency_file=frequency_file,
        ngram_orders=(low, high),
        ngrams_listed=values["ngrams"],
        examples=values["examples"],
        samples=values["analyze_n"],
        seed=parse_seed(values["seed"]),
    )
