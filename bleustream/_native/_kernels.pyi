"""The C kernels of bleustream (bleustream/_native/*.c); each function equals
the pure-Python twin its docstring names.  Arguments are positional, and may
be given by keyword where the stub does not end them with ``/``."""

from collections.abc import Callable, Sequence
from typing import Any

from bleustream.metrics.ngrams import RefNgrams
from bleustream.metrics.scores import BLEUScore
from bleustream.metrics.ter_search import Reference

def tokenize_13a(line: str, /) -> list[str]:
    """bleustream.tokenizers.registry.py_tokenize_13a"""

def tokenize_zh(line: str, /) -> list[str]:
    """bleustream.tokenizers.registry.py_tokenize_zh"""

def hyp_row(hyp: list[str], refs: RefNgrams, max_order: int) -> tuple[int, ...]:
    """bleustream.metrics.ngrams.hyp_row"""

def hyp_row_13a(line: str, refs: RefNgrams, max_order: int) -> tuple[int, ...]:
    """hyp_row(tokenize_13a(line), refs, max_order)"""

def hyp_row_zh(line: str, refs: RefNgrams, max_order: int) -> tuple[int, ...]:
    """hyp_row(tokenize_zh(line), refs, max_order)"""

def bleu_sum_13a(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], max_order: int
) -> tuple[int, ...]:
    """bleustream.metrics.bleu.py_sum_batch: the sum over segments i of
    count(hyps[i], prepare_refs(refs[i])), tokenizer 13a, not lowercased"""

def bleu_sum_zh(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], max_order: int
) -> tuple[int, ...]:
    """bleu_sum_13a with the zh tokenizer"""

def bleu_rows_13a(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], max_order: int
) -> list[tuple[int, ...]]:
    """bleustream.metrics.bleu.py_count_batch: each segment's row of
    bleu_sum_13a"""

def bleu_rows_zh(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], max_order: int
) -> list[tuple[int, ...]]:
    """bleu_rows_13a with the zh tokenizer"""

def bleu_sum_block_13a(
    hyp_block: bytes, ref_blocks: Sequence[bytes], max_order: int
) -> tuple[tuple[str, tuple[int, ...]], int] | None:
    """bleustream.metrics.bleu.py_sum_block: bleu_sum_13a of the lines of
    blocks of UTF-8 (each split at "\n"), and how many hypotheses end in
    " ."; None where a line is not UTF-8"""

def paste_columns(block: bytes, nfields: int, /) -> list[bytes] | None:
    """bleustream.inputs.blocks.py_paste_columns"""

def chrf_sum_block(
    hyp_block: bytes,
    ref_blocks: Sequence[bytes],
    char_order: int,
    word_order: int,
    whitespace: bool,
    beta: int,
    eps_smoothing: bool,
) -> tuple[tuple[str, tuple[int, ...]], int] | None:
    """bleustream.metrics.chrf.py_sum_block: chrf_sum of the lines of blocks
    of UTF-8; None where a line is not UTF-8"""

def bleu_sum_block_zh(
    hyp_block: bytes, ref_blocks: Sequence[bytes], max_order: int
) -> tuple[tuple[str, tuple[int, ...]], int] | None:
    """bleu_sum_block_13a with the zh tokenizer"""

def chrf_ref_rows(
    hyp: str, refs: Sequence[str], char_order: int, word_order: int, whitespace: bool
) -> tuple[tuple[int, ...], ...]:
    """One chrF row per reference: the (hyp, ref, match) triplets of character
    orders 1..char_order then word orders 1..word_order, as
    bleustream.metrics.chrf's _one_reference_stats / _order_stats produce
    them.  hyp and refs already lowercased if the settings say so.  With one
    reference, rows[0] is py_count(settings)(hyp, py_prepare_refs(settings)(refs))."""

def split_words(line: str, /) -> list[str]:
    """bleustream.metrics.chrf.split_words"""

def past_newlines(buffer: bytes, pos: int, count: int, /) -> tuple[int, int]:
    """bleustream.parallel.blocks.py_past_newlines"""

def chrf_rows(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    char_order: int,
    word_order: int,
    whitespace: bool,
    beta: int,
    eps_smoothing: bool,
) -> list[tuple[int, ...]]:
    """Each segment's chrF row (``refs[i]``, the references of ``hyps[i]``):
    the best reference's, as chrf.count chooses it."""

def chrf_sum(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    char_order: int,
    word_order: int,
    whitespace: bool,
    beta: int,
    eps_smoothing: bool,
) -> tuple[int, ...]:
    """The sum of chrf_rows' rows, without a row object per segment
    (bleustream.metrics.chrf.py_sum_batch)."""

def chrf_scores(
    rows: Sequence[tuple[int, ...]],
    char_order: int,
    word_order: int,
    beta: int,
    eps_smoothing: bool,
    cls: type,
    signature: str,
    fallback: Callable[[tuple[int, ...], str], Any],
) -> list[Any]:
    """Each row's CHRFScore, as Spec(chrf, settings).score_object(row, signature)."""

def bleu_scores(
    rows: Sequence[tuple[int, ...]],
    max_order: int,
    smooth: str,
    smooth_value: float,
    effective_order: bool,
    cls: type[BLEUScore],
    signature: str,
    fallback: Callable[[tuple[int, ...], str], BLEUScore],
    /,
) -> list[BLEUScore]:
    """Spec(bleu, settings).score_object(row, signature) of each row
    (bleustream.metrics.bleu_batches.c_score_batch); smooth is exp, floor or none;
    rows the C code cannot score exactly go to fallback(row, signature)"""

def bleu_values(
    rows: Sequence[tuple[int, ...]],
    max_order: int,
    smooth: str,
    smooth_value: float,
    effective_order: bool,
    fallback: Callable[[tuple[int, ...]], float],
    /,
) -> list[float]:
    """bleustream.metrics.bleu.score(row, settings).score of each row
    (bleustream.metrics.bleu_batches.c_score_values_batch); rows the C code cannot score
    exactly go to fallback(row)"""

def count_edits(words_hyp: Sequence[str], ref: Reference, max_exact_cells: int = ..., /) -> int:
    """bleustream.metrics.ter_search.py_count_edits (max_exact_cells: its
    MAX_EXACT_CELLS, 1 << 24 unless given)"""

def token_rows(
    hyps: tuple[Any, Any, Any],
    refs: Sequence[tuple[Any, Any, Any]],
    max_order: int,
    pad: int | None,
    start: int,
    stop: int,
) -> list[tuple[int, ...]]:
    """bleustream.metrics.token_bleu.py_token_rows: the BLEU rows of sentences
    start .. stop - 1 of id streams (data, starts, lens), counted with the
    GIL released"""

def id_lists(batch: Sequence[Sequence[int]], /) -> tuple[bytes, bytes] | None:
    """bleustream.metrics.token_ids.id_stream's fast path: a list or tuple of
    lists or tuples of ints as (ids, lengths), native int64 bytes; None when
    anything else is in it (a bool, an int subclass, an id past 64 bits)"""

def add_words(
    ref: Sequence[str],
    hyps: Sequence[Sequence[str]],
    systems: int,
    ids: dict[str, int],
    words: list[str],
    counts: list[int],
    row: bool = False,
) -> list[int] | None:
    """bleustream.analysis.words.py_add_words"""

def add_ngram_matches(
    ref: Sequence[str],
    hyps: Sequence[Sequence[str]],
    low: int,
    high: int,
    systems: int,
    ids: dict[tuple[str, ...], int],
    grams: list[tuple[str, ...]],
    counts: list[int],
) -> None:
    """bleustream.analysis.ngrams.py_add_ngram_matches"""
