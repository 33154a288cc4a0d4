"""The metrics: the pure core. Statistics of a segment, how they add, and scores from sums.

Nothing here reads files, parses arguments or writes to a stream.  SacreBLEU's
classes are here under its names (``from bleustream.metrics import BLEU``)."""

from bleustream.metrics.metric_classes import BLEU, CHRF, TER
from bleustream.metrics.scores import BLEUScore, CHRFScore, Score, Signature, TERScore

__all__ = ["BLEU", "CHRF", "TER", "BLEUScore", "CHRFScore", "Score", "Signature", "TERScore"]
