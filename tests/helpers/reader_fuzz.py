"""The block reader (``inputs.blocks``) against the line reader
(``inputs.lines``) on random bytes: the differential fuzz of the reader,
used by ``tests/inputs/test_blocks.py`` and ``tools/fuzz_kernels.py``.

An input is a hypothesis stream and one or two reference streams (or one
paste stream) of random lines: words in several scripts, white space at
the ends (tabs, ``\\r`` before the line end, U+3000), empty lines, bad
UTF-8 (a stray continuation byte, ``0xff``, a sequence cut short before
the line end), tabs inside (paste fields, standard input's systems), a
last line with or without its line end, streams of different lengths.
Each reader gives its segments, or the error it stops at, and the two
must be equal, with the blocks some random size from one byte up (every
boundary falls inside a line, inside a character, on a line end).
"""

from __future__ import annotations

import io
import random
from typing import Any

from bleustream.errors import BleustreamError
from bleustream.inputs import blocks
from bleustream.inputs.lines import LineSource, lockstep_segments, paste_segments
from bleustream.metrics.protocol import decode_blocks

WORDS = ("a", "the", "cat.", "é", "中文", "ß", "-", "'s", "3,5", "Ⅻ", "😀", "\u3000", "x" * 40)
BAD = (b"\xff", b"\x80", b"\xe4\xb8", b"\xc3", b"\xed\xa0\x80")
ENDS = (b"", b" ", b"\t", b"\r", b" \t ", "\u3000".encode())


def random_line(rng: random.Random, tabs: bool) -> bytes:
    """One line's bytes, without its line end."""
    words = [rng.choice(WORDS) for _ in range(rng.choice((0, 1, 3, 8, 30)))]
    line = " ".join(words).encode()
    if tabs and rng.random() < 0.9:
        line += b"\t" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 5))).encode()
    if rng.random() < 0.03:
        at = rng.randint(0, len(line))
        line = line[:at] + rng.choice(BAD) + line[at:]
    if rng.random() < 0.01:
        line += b"\t"  # a tab at the end: stripped, or a field
    return line + rng.choice(ENDS)


def random_stream(rng: random.Random, n: int, tabs: bool = False) -> bytes:
    lines = [random_line(rng, tabs) for _ in range(n)]
    data = b"\n".join(lines)
    return data + b"\n" if lines and rng.random() < 0.8 else data


def _outcome(segments: Any) -> list[Any]:
    """Each segment as (hypothesis, references, line), then the error that
    stopped the reader, by its class, words, source and line."""
    got: list[Any] = []
    try:
        for segment in segments:
            got.append(segment)
    except BleustreamError as exc:
        got.append((type(exc).__name__, exc.message, exc.source, exc.line))
    return got


def _source(name: str, data: bytes) -> LineSource:
    return LineSource(name, io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]


def by_lines(streams: list[bytes], paste: bool) -> list[Any]:
    """The line reader's outcome (its segments as the block reader's)."""
    sources = [_source(f"s{i}", data) for i, data in enumerate(streams)]
    segments = paste_segments(sources[0]) if paste else lockstep_segments(sources[0], sources[1:])
    return [
        (s.hyp, list(s.refs), s.line) if isinstance(s, tuple) and hasattr(s, "hyp") else s
        for s in _outcome(segments)
    ]


def by_blocks(streams: list[bytes], paste: bool, block_bytes: int) -> list[Any]:
    """The block reader's outcome, its blocks cut into segments."""
    saved = blocks.BLOCK_BYTES
    blocks.BLOCK_BYTES = block_bytes
    try:
        sources = [_source(f"s{i}", data) for i, data in enumerate(streams)]
        readers = [blocks._Lines(source, "strict") for source in sources]
        if paste:  # as block_sums reads them: by fields, else decoded to say where
            made = _paste_segments(readers[0])
        else:  # each raw block decoded as the reader decodes one that is not text
            raw = blocks._lockstep(readers[0], readers[1:])
            made = (block for got in raw for block in blocks._decoded(readers, got))

        def segments() -> Any:
            for hyps, refs, first in made:
                for i, hyp in enumerate(hyps):
                    yield hyp, list(refs[i]), first + i

        return _outcome(segments())
    finally:
        blocks.BLOCK_BYTES = saved


def _paste_segments(reader: Any) -> Any:
    """The blocks of paste input as the metrics see them: a block's fields'
    blocks decoded (``protocol.decode_blocks``, as ``sum_block`` decodes
    them), or the block decoded by the reader where they cannot be."""
    for columns, block, first, fields in blocks._paste_blocks(reader):
        decoded = None if columns is None else decode_blocks(columns[0], columns[1])
        if decoded is not None:
            yield decoded[0], decoded[1], first
        else:
            yield from blocks._decoded_paste(reader, block, first, fields)


def check_once(rng: random.Random) -> tuple[list[Any], list[Any]]:
    """One random input read both ways: (by lines, by blocks)."""
    paste = rng.random() < 0.3
    n = rng.choice((0, 1, 2, 5, 40, 300))
    if paste:
        streams = [random_stream(rng, n, tabs=True)]
    else:
        streams = [random_stream(rng, n) for _ in range(rng.choice((2, 3)))]
        if rng.random() < 0.15:  # one stream longer or shorter
            which = rng.randrange(len(streams))
            streams[which] = random_stream(rng, max(0, n + rng.choice((-2, -1, 1, 3))))
    block_bytes = rng.choice((1, 2, 3, 7, 64, 1000, 1 << 16))
    return by_lines(streams, paste), by_blocks(streams, paste, block_bytes)
