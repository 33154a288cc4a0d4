"""BLEU of token IDs: a training loop's batch, scored without text.

``token_bleu(hyps, [refs, ...])`` gives each hypothesis' sentence BLEU, the
number SacreBLEU's ``sentence_bleu`` gives for the same ids written as
space-separated words with ``tokenize="none"`` (two ids are the same word
exactly when they are the same integer).  Its rows are BLEU's rows
(``bleu.bleu_of_row`` scores them; the compiled ``bleu_scores`` does the
same arithmetic in C), counted here from integer buffers: the batches are
read by ``token_ids.id_stream``, and the rows counted by ``token_rows``,
the compiled kernel (``_native/token_bleu.c``, which releases the GIL, so
``threads=N`` splits a batch over N threads and cores) or its pure twin
``py_token_rows``, which the module ends by binding.

Scores are percentages, as SacreBLEU's.  Token-ID scores depend on the
vocabulary: scores of two tokenizers' ids are not comparable.
"""

from __future__ import annotations

import os
import threading
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, count
from typing import Any, Callable, NamedTuple

from bleustream.kernels import native
from bleustream.metrics import bleu
from bleustream.metrics.ngrams import segment_row
from bleustream.metrics.token_ids import IdStream, id_stream, int_of

Row = tuple[int, ...]
Stream = tuple[Any, array, array]
RowKernel = Callable[[Stream, Sequence[Stream], int, "int | None", int, int], list[Row]]


class TokenBleu(NamedTuple):
    """``token_bleu(..., corpus=True)``: each sentence's BLEU and the batch's."""

    scores: array  # array('d'), one sentence BLEU per hypothesis
    corpus: float  # the corpus BLEU of the batch, with the same settings


def _sentences(stream: Stream, start: int, stop: int, pad: int | None) -> list[list[int]]:
    """Sentences start .. stop - 1 of a stream, as lists, without pads; its
    buffer read flat, in C order, as the C kernel reads it."""
    data, starts, lens = stream
    view = memoryview(data)
    if view.ndim != 1:
        view = view.cast("B").cast(view.format[-1])
    out = []
    for i in range(start, stop):
        ids: list[int] = view[starts[i] : starts[i] + lens[i]].tolist()
        out.append(ids if pad is None else [t for t in ids if t != pad])
    return out


def py_token_rows(
    hyps: Stream, refs: Sequence[Stream], max_order: int, pad: int | None, start: int, stop: int
) -> list[Row]:
    """The BLEU rows ``(hyp_len, ref_len, *matches, *totals)`` of sentences
    ``start .. stop - 1`` of the streams (``IdStream``s; tokens equal to
    ``pad`` dropped): ``ngrams.segment_row`` of their id lists."""
    if not refs:
        raise ValueError("token_rows: no reference stream")
    streams = [_sentences(stream, start, stop, pad) for stream in (hyps, *refs)]
    return [
        segment_row(hyp, list(segment_refs), max_order)
        for hyp, *segment_refs in zip(*_numbered(streams))
    ]


def _numbered(streams: list[list[list[int]]]) -> list[list[list[int]]]:
    """The streams' ids numbered 0, 1, 2 ... in the order they first
    appear (equal ids, equal numbers: the same rows).  Python's hash of an
    int is the int (mod 2**61 - 1) and of a tuple a fixed function of its
    items' hashes, so a caller can choose ids whose n-gram tuples all share
    one hash, and each set or dict insertion of them walks past all the
    others (a reference of 32,000 such ids took 22 s against itself,
    random ones 0.1 s); tuples of small consecutive numbers leave nothing
    to choose."""
    ids = chain.from_iterable(chain.from_iterable(streams))
    number = dict(zip(dict.fromkeys(ids), count())).__getitem__
    return [[list(map(number, sentence)) for sentence in stream] for stream in streams]


def c_token_rows(
    hyps: Stream, refs: Sequence[Stream], max_order: int, pad: int | None, start: int, stop: int
) -> list[Row]:
    """``py_token_rows`` in C, with the GIL released while it counts."""
    assert native is not None
    return native.token_rows(hyps, refs, max_order, pad, start, stop)  # type: ignore[no-any-return]


def settings_of(
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = bleu.DEFAULT_MAX_ORDER,
) -> bleu.Settings:
    """BLEU's settings for token ids: ``tokenize="none"``, SacreBLEU's keywords."""
    if bleu.SMOOTH_DEFAULTS.get(smooth_method) is None:
        smooth_value = None  # SacreBLEU ignores a value given to a method that takes none
    order = _whole(max_ngram_order, "max_ngram_order", bleu.MAX_ORDER)
    return bleu.Settings(
        tokenize="none",
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=bool(effective_order),
        max_order=order,
    )


def _whole(value: Any, what: str, most: int | None = None) -> int:
    """A count given as any integer (an int, a NumPy integer: anything with
    ``__index__``), at least 1 and at most ``most``; a bool, a float or
    another number is a ValueError."""
    try:
        number = int_of(value)
    except TypeError:
        number = 0
    if not 1 <= number <= (number if most is None else most):
        bounds = "of at least 1" if most is None else f"from 1 to {most}"
        raise ValueError(f"{what} must be an int {bounds}, not {value!r}")
    return number


def _streams(
    hyps: Any, refs: Any, lengths: Any, ref_lengths: Any
) -> tuple[IdStream, list[IdStream]]:
    if hasattr(refs, "__array__") or isinstance(refs, (str, bytes, memoryview)):
        raise TypeError("references must be a list of reference streams, e.g. [ref_ids]")
    if not isinstance(refs, Sequence) or not refs:
        raise ValueError("references must be a non-empty list of reference streams")
    if ref_lengths is None:
        ref_lengths = [None] * len(refs)
    elif len(ref_lengths) != len(refs):
        raise ValueError(f"{len(ref_lengths)} ref_lengths for {len(refs)} reference streams")
    hyp_stream = id_stream(hyps, lengths, "hypotheses")
    streams = [
        id_stream(stream, stream_lengths, f"references[{k}]")
        for k, (stream, stream_lengths) in enumerate(zip(refs, ref_lengths))
    ]
    n = len(hyp_stream.starts)
    for k, stream in enumerate(streams):
        if len(stream.starts) != n:
            raise ValueError(
                f"{n} hypotheses, but reference stream {k} has {len(stream.starts)} sentences"
            )
    return hyp_stream, streams


def _rows(
    hyps: IdStream, refs: list[IdStream], max_order: int, pad: int | None, threads: int
) -> list[Row]:
    n = len(hyps.starts)
    if threads <= 1 or n < 2:
        return token_rows(hyps, refs, max_order, pad, 0, n)
    cuts = [n * k // threads for k in range(threads + 1)]
    with _pool(threads) as pool:
        parts = list(
            pool.map(
                lambda k: token_rows(hyps, refs, max_order, pad, cuts[k], cuts[k + 1]),
                range(threads),
            )
        )
    return [row for part in parts for row in part]


# The pool of the last ``threads=N`` batch, kept for the next: a training
# loop scores a batch every step, and starting threads costs about as much
# as counting a small batch.  Python threads may score batches at once with
# different N: a batch with another N puts a new pool in the kept one's
# place, and a pool is shut down once it is neither kept nor in use (its
# users are counted), never under a batch that is mapping on it.  A forked
# child has none of the threads.
_POOL: dict[int, Any] = {}
_USERS: dict[Any, int] = {}
_POOL_LOCK = threading.Lock()


def _forget_pools() -> None:
    global _POOL_LOCK
    _POOL.clear()
    _USERS.clear()
    _POOL_LOCK = threading.Lock()  # another thread may have held it at the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


@contextmanager
def _pool(threads: int) -> Iterator[Any]:
    """A pool of ``threads`` threads, the kept one or a new one in its
    place, held for the ``with`` block."""
    with _POOL_LOCK:
        pool = _POOL.get(threads)
        if pool is None:
            from concurrent.futures import ThreadPoolExecutor

            for old in _POOL.values():
                if old not in _USERS:
                    old.shutdown(wait=False)
            _POOL.clear()
            pool = _POOL[threads] = ThreadPoolExecutor(threads, thread_name_prefix="token_bleu")
        _USERS[pool] = _USERS.get(pool, 0) + 1
    try:
        yield pool
    finally:
        with _POOL_LOCK:
            _USERS[pool] -= 1
            if not _USERS[pool]:
                del _USERS[pool]
                if _POOL.get(threads) is not pool:
                    pool.shutdown(wait=False)


def _check_pad(pad_id: Any) -> int | None:
    if pad_id is None:
        return None
    try:
        pad = int_of(pad_id)
    except TypeError:
        raise TypeError(f"pad_id must be an int, not {type(pad_id).__name__}") from None
    if not -(2**63) <= pad < 2**63:
        raise ValueError("pad_id must be from -2**63 to 2**63 - 1")
    return pad


def _scores(rows: list[Row], settings: bleu.Settings) -> list[float]:
    """Each row's sentence BLEU: in one C call where the kernels have it."""
    return bleu.score_values_batch(settings)(rows)


def token_bleu(
    hyps: Any,
    refs: Sequence[Any],
    *,
    lengths: Any = None,
    ref_lengths: Sequence[Any] | None = None,
    pad_id: int | None = None,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = bleu.DEFAULT_MAX_ORDER,
    threads: int = 1,
    corpus: bool = False,
) -> array | TokenBleu:
    """Sentence BLEU of each hypothesis of token ids, as ``array('d')``.

    ``hyps`` and each reference stream of ``refs`` (SacreBLEU's layout:
    ``[refs]``, or ``[refs_a, refs_b]`` for two references a sentence) are a
    2-D integer array (NumPy, a PyTorch CPU tensor, anything with the buffer
    protocol or ``__array__``) or a sequence of id sequences.  ``lengths``
    (and ``ref_lengths``, one per stream, each None or lengths) cut rows to
    their sentences; every id equal to ``pad_id`` is dropped, wherever it
    is.  Score ``i`` equals SacreBLEU's ``sentence_bleu`` of the ids of
    hypothesis ``i`` and its references written as space-separated words,
    with ``tokenize="none"`` and these settings, to the last bit.  With
    ``corpus=True`` a ``TokenBleu(scores, corpus)``, where ``corpus`` is the
    BLEU of the batch as ``BLEU(tokenize="none", **settings).corpus_score``
    gives it (note: ``corpus_bleu``'s own default is
    ``use_effective_order=False``).  ``threads=N`` counts on N threads.
    """
    settings = settings_of(smooth_method, smooth_value, effective_order, max_ngram_order)
    threads = _whole(threads, "threads")
    pad = _check_pad(pad_id)
    hyp_stream, streams = _streams(hyps, refs, lengths, ref_lengths)
    rows = _rows(hyp_stream, streams, settings.max_order, pad, threads)
    scores = array("d", _scores(rows, settings))
    if not corpus:
        return scores
    total = [sum(column) for column in zip(*rows)] if rows else [0] * (2 + 2 * settings.max_order)
    return TokenBleu(scores, bleu.bleu_of_row(tuple(total), settings).score)


# -- the twins, bound once: C where bleustream.kernels chose it ---------------
token_rows: RowKernel = py_token_rows if native is None else c_token_rows
