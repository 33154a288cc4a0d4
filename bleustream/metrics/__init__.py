"""The metrics: the pure core. Statistics of a segment, how they add, and scores from sums.

Nothing here reads files, parses arguments or writes to a stream."""
