"""Batches of token IDs, read as flat integer buffers.

A batch is one stream of sentences of integer token IDs, given as

- a 2-D integer array, one sentence a row: anything with the buffer
  protocol (a NumPy array, a ``memoryview``) or with ``__array__`` (a
  PyTorch CPU tensor, read through NumPy without importing PyTorch), with
  ``lengths`` (sentence ``i`` is ``row[:lengths[i]]``) or without (whole rows);
- or a sequence of sentences, each a sequence of ints or a 1-D integer
  array (``array.array``, NumPy, a tensor), with optional ``lengths`` too.

``id_stream`` turns one into an ``IdStream``: a flat C-contiguous buffer of
integers in native byte order, and each sentence's start and length in it
(``array('q')``), which the C kernel reads without a Python object per token
and the pure twin reads as lists.  A list of lists of ints is packed by the
compiled ``id_lists`` when the kernels are loaded (anything else in it, and
every other sequence, takes the checked Python path).  Padding ids are dropped later, by the
counting, on both paths alike.

Every integer item size, signedness and byte order is accepted (an array
in the other byte order is read into a native copy); bool and float
arrays, bool items, 3-D arrays and ids outside 64 signed bits
(``[-2**63, 2**63 - 1]``, so uint64 values past ``2**63 - 1``) are a
``TypeError`` or ``ValueError`` here, before either kernel runs.  Only the
ids a sentence holds are checked: those past its length are never read.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, NamedTuple

from bleustream.kernels import native

INT64_MAX = 2**63 - 1
# The native format of each (item size, signed) an id buffer may have.
_NATIVE = {(1, True): "b", (2, True): "h", (4, True): "i", (8, True): "q"}
_NATIVE.update({(size, False): code.upper() for (size, _), code in list(_NATIVE.items())})
_NATIVE_ORDER = ("@", "=", "<" if sys.byteorder == "little" else ">")
_ORDERS = "@=<>!"
_SIGNED, _UNSIGNED = "bhilqn", "BHILQN"


class IdStream(NamedTuple):
    """A batch's ids: sentence ``i`` is ``data[starts[i] : starts[i] + lens[i]]``."""

    data: Any  # a flat, C-contiguous buffer of integers
    starts: array
    lens: array


def _ids_view(obj: Any, what: str) -> memoryview | None:
    """A memoryview of an array's ids, or None when ``obj`` is no array."""
    if isinstance(obj, (str, bytes, bytearray)):
        raise TypeError(f"{what}: token ids must be integers, not {type(obj).__name__}")
    try:
        view = memoryview(obj)
    except TypeError:
        if not hasattr(obj, "__array__"):
            return None
        view = memoryview(obj.__array__())
    fmt = view.format
    code = fmt[1:] if fmt[:1] in _ORDERS else fmt
    if code == "?":
        raise TypeError(f"{what}: token ids must be integers, not bool")
    if len(code) != 1 or code not in _SIGNED + _UNSIGNED:
        raise TypeError(f"{what}: token ids must be integers, not an array of format {fmt!r}")
    return view


def _flat(view: memoryview) -> memoryview:
    """The ids of ``view`` in C order, 1-D, in their native format and byte
    order (a copy, byte-swapped, of an array in the other order)."""
    native = _NATIVE[(view.itemsize, view.format[-1] in _SIGNED)]
    if not view.nbytes:
        return memoryview(array(native))
    if view.format[:1] in _ORDERS and view.format[0] not in _NATIVE_ORDER:
        swapped = array(native, view.tobytes())
        swapped.byteswap()
        return memoryview(swapped)
    if view.c_contiguous:
        return view.cast("B").cast(native)
    return memoryview(view.tobytes()).cast(native)


def _check_range(flat: memoryview, starts: Sequence[int], lens: Sequence[int], what: str) -> None:
    """uint64 ids past ``2**63 - 1`` within the sentences refused (the
    only format that holds any): those past a sentence's length are never read."""
    if flat.format != "Q":
        return
    for i, (start, length) in enumerate(zip(starts, lens)):
        if length and max(flat[start : start + length]) > INT64_MAX:
            raise ValueError(f"{what}: sentence {i} has a token id past 2**63 - 1")


def _ints(obj: Any, what: str) -> list[int]:
    """A sequence of ints (lengths, a sentence) as a list; bools and floats refused."""
    view = _ids_view(obj, what)
    if view is not None:
        if view.ndim != 1:
            raise ValueError(f"{what}: a 1-D array, not {view.ndim}-D")
        values: list[int] = _flat(view).tolist()
        return values
    if not isinstance(obj, Sequence):
        raise TypeError(f"{what}: a sequence of ints, not {type(obj).__name__}")
    values = list(obj)
    kinds = set(map(type, values))
    if kinds - {int}:
        if bool in kinds:
            raise TypeError(f"{what}: token ids must be integers, not bool")
        try:
            values = list(map(int_of, values))
        except TypeError as exc:
            raise TypeError(f"{what}: token ids must be integers ({exc})") from None
    return values


def int_of(value: Any) -> int:
    """An int of anything with ``__index__`` (a NumPy integer, say), but no
    bool or float: a TypeError naming its type."""
    if isinstance(value, (bool, float)) or not hasattr(type(value), "__index__"):
        raise TypeError(f"not {type(value).__name__}")
    return value.__index__()  # type: ignore[no-any-return]


def _lengths(lengths: Any, n: int, row_lens: Sequence[int], what: str) -> array:
    """Each sentence's length: ``lengths`` checked against its row, or the rows'."""
    if lengths is None:
        return array("q", row_lens)
    given = _ints(lengths, f"{what} lengths")
    if len(given) != n:
        raise ValueError(f"{what}: {len(given)} lengths for {n} sentences")
    for i, (length, row) in enumerate(zip(given, row_lens)):
        if length < 0:
            raise ValueError(f"{what}: sentence {i} has a negative length ({length})")
        if length > row:
            raise ValueError(f"{what}: sentence {i}'s length {length} is past its row of {row}")
    return array("q", given)


def id_stream(batch: Any, lengths: Any = None, what: str = "hypotheses") -> IdStream:
    """The ids of one batch (see the module's docstring), checked."""
    view = _ids_view(batch, what)
    if view is not None:
        if view.ndim != 2:
            raise ValueError(
                f"{what}: a 2-D array (sentences x tokens) or a list of sentences, "
                f"not a {view.ndim}-D array"
            )
        n, width = view.shape
        flat = _flat(view)
        starts = array("q", [width * i for i in range(n)])
        lens = _lengths(lengths, n, [width] * n, what)
        _check_range(flat, starts, lens, what)
        return IdStream(flat, starts, lens)
    if not isinstance(batch, Sequence):
        kind = type(batch).__name__
        raise TypeError(f"{what}: a 2-D integer array or a sequence of sentences, not {kind}")
    packed = None if native is None else native.id_lists(batch)
    if packed is not None:  # lists of ints, packed in C
        data, row_lens = array("q"), array("q")
        data.frombytes(packed[0])
        row_lens.frombytes(packed[1])
        starts = array("q", accumulate(row_lens, initial=0))
        starts.pop()
        return IdStream(data, starts, _lengths(lengths, len(batch), row_lens, what))
    sentences = [_ints(sentence, f"{what}[{i}]") for i, sentence in enumerate(batch)]
    lens = _lengths(lengths, len(batch), [len(ids) for ids in sentences], what)
    data = array("q")
    starts = array("q")
    for i, (ids, length) in enumerate(zip(sentences, lens)):
        starts.append(len(data))
        try:
            data.extend(array("q", ids))
        except OverflowError:  # refused where the sentence reads it: past its length, dropped
            try:
                data.extend(array("q", ids[:length]))
            except OverflowError:
                raise ValueError(
                    f"{what}[{i}]: token ids must be from -2**63 to 2**63 - 1"
                ) from None
    return IdStream(data, starts, lens)
