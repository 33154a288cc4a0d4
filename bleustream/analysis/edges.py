"""compare-mt's default bucket edges and how edges are written (``10:20:30``),
as plain data and one function: what the command line's options need,
without the analyses (``buckets.py`` keeps the ``Edges`` that place values)."""

from __future__ import annotations

# compare-mt 0.2.10's default cutoffs, by analysis.
LENGTH_EDGES: tuple[float, ...] = (10, 20, 30, 40, 50, 60)
LENGTH_DIFF_EDGES: tuple[float, ...] = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)
SENTENCE_BLEU_EDGES: tuple[float, ...] = (10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0)
FREQUENCY_EDGES: tuple[float, ...] = (1, 2, 3, 4, 5, 10, 100, 1000)


def parse_edges(text: str) -> tuple[float, ...]:
    """Edges written as compare-mt writes them: numbers joined by ``:``
    (``10:20:30``), increasing; whole numbers stay ``int``."""
    edges: list[float] = []
    for part in text.split(":"):
        part = part.strip()
        try:
            value: float = int(part)
        except ValueError:
            try:
                value = float(part)
            except ValueError:
                message = f"not a number: {part!r} (edges are numbers joined by ':')"
                raise ValueError(message) from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"not a finite number: {part!r}")
        edges.append(value)
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"edges must increase: {text!r}")
    return tuple(edges)
