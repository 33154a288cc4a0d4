"""Leak check of the compiled kernels: many calls to each, RSS must stay flat
and the reference counts of the inputs must not change.

    python tools/leakcheck_kernels.py [TOTAL_CALLS]

TOTAL_CALLS (default 10^7) is shared among the cases, error paths
included; LEAKCHECK_ONLY=text runs only the cases whose name holds it
(``LEAKCHECK_ONLY=token_rows``: 10^7 calls of the token-ID kernel).
Exits non-zero when RSS grows by 1 MiB or more in a case, or an input's
reference count changed.
"""

from __future__ import annotations

import contextlib
import os
import sys
from array import array
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bleustream import kernels
from bleustream.metrics import bleu, ngrams, ter_search
from bleustream.metrics.registry import Spec
from bleustream.metrics.scores import BLEUScore
from bleustream.tokenizers import registry
from tests.helpers.hash_flood import colliding_ids

N = kernels.native


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def main(argv: list[str]) -> int:
    if N is None:
        print("leakcheck_kernels: the compiled kernels are not loaded (kernels: python)")
        return 1
    total = int(argv[1]) if len(argv) > 1 else 10_000_000
    hyp = 'Die Katze sitzt auf der Matte, 1.5-2 &amp; "mehr" \U0001f600 \ud800 中文.'
    ref = "Die Katze saß auf der Matte , 1.5-2 & mehr . die die die"
    ref_tokens = registry.tokenize_13a(ref)
    hyp_tokens = registry.tokenize_13a(hyp)
    one = ngrams.one_reference(ref_tokens)
    several = ngrams.reference_ngrams([ref_tokens, hyp_tokens, ref_tokens], 4)
    refs3 = (ref, hyp, ref)
    bad = ngrams.RefNgrams((1,), ([1],), None)  # type: ignore[list-item]
    ter_ref = ter_search.prepare_reference(ref_tokens)
    ter_long = ter_search.prepare_reference(ref_tokens * 8)  # 144 words: 3 blocks of 64 bits
    lines_bytes = "\n".join([hyp, ref] * 30).encode("utf-8", "surrogatepass")
    ter_hyp = [*hyp_tokens[3:], *hyp_tokens[:3]]
    ter_bad = ter_search.Reference({"Die": 0}, (1,))
    inputs: list[Any] = [hyp, ref, one, several, hyp_tokens, refs3, bad, *ref_tokens, *hyp_tokens]
    inputs += [ter_ref, ter_ref.vocab, ter_ref.ids, ter_long, ter_hyp, ter_bad]
    inputs.append(lines_bytes)
    # BLEU's score objects: rows the C code scores, rows it leaves to the
    # pure fallback (a list, a bool, a float, a count past 2**53, a log of 0
    # without effective order), and rows the pure code raises for.
    score_spec = Spec(bleu, bleu.Settings())
    score_fallback = score_spec.score_object
    signature = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:leakcheck"
    scored_rows = [
        N.hyp_row(hyp_tokens, one, 4),
        N.hyp_row(hyp_tokens, several, 4),
        (18, 17, 12, 7, 4, 2, 18, 17, 16, 15),
        (18, 17, 12, 0, 0, 0, 18, 17, 16, 15),
        (5, 9, 0, 0, 0, 0, 5, 4, 3, 2),
        (3, 3, 3, 2, 1, 1, 3, 2, 1, 1),
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (2**53, 2**52, 2**52, 2**51, 2**50, 2**49, 2**53, 2**53, 2**53, 2**53),
    ]
    deferred_rows = [
        [18, 17, 12, 7, 4, 2, 18, 17, 16, 15],
        (True, 17, 12, 7, 4, 2, 18, 17, 16, 15),
        (18, 17, 12.0, 7, 4, 2, 18, 17, 16, 15),
        (2**63, 17, 12, 7, 4, 2, 18, 17, 16, 15),
        (1, 4, 1, 0, 0, 0, 1, 0, 0, 0),
        (18, 17, 12, 7, 4, 2, 18, 17, 16, 2**70),
    ]
    raising_rows = [(18, 17, 12), (18, 17, -12, 7, 4, 2, 18, 17, 16, 15)]
    raising_rows.append((10**400, 17, 12, 7, 4, 2, 18, 17, 16, 15))
    inputs += [score_spec, score_fallback, signature, scored_rows, deferred_rows, raising_rows]
    inputs += [*scored_rows, *deferred_rows, *raising_rows, BLEUScore]
    # Token ids: a list's stream (int64) and a padded 2-D uint16 one.
    ids = array("q", [5, 1, 2, 3, 4, 2**63 - 1, 2, 3, 5, 5, 5])
    id_hyps = (ids, array("q", [0, 4]), array("q", [6, 5]))
    id_refs = [(ids, array("q", [1, 6]), array("q", [5, 5])), id_hyps]
    padded = memoryview(array("H", [1, 2, 3, 0, 0, 4, 4, 4, 4, 0])).cast("B").cast("H", [2, 5])
    id_padded = (padded, array("q", [0, 5]), array("q", [5, 5]))
    id_bad = (array("d", [1.0]), array("q", [0]), array("q", [1]))
    id_past = (ids, array("q", [10]), array("q", [2]))
    id_big = (array("Q", [2**63]), array("q", [0]), array("q", [1]))
    # 200 ids a sentence: the kernel's scratch outgrows its stack buffer
    long_ids = array("q", [(i * 7919) % 23 for i in range(400)])
    id_long = (long_ids, array("q", [0]), array("q", [200]))
    id_long_refs = [(long_ids, array("q", [150]), array("q", [200]))]
    inputs += [ids, id_hyps, id_refs, padded, id_padded, id_bad, id_past, id_big]
    inputs += [long_ids, id_long, id_long_refs]
    # 300 ids the matcher's unkeyed hash puts in one slot: matched again, keyed
    flood_ids = array("q", colliding_ids(range(300)))
    id_flood = (flood_ids, array("q", [0, 100]), array("q", [300, 200]))
    id_flood_refs = [(flood_ids, array("q", [0, 0]), array("q", [300, 250]))]
    inputs += [flood_ids, id_flood, id_flood_refs]
    id_lists = [[5, 1, 2**63 - 1], [], (-(2**63), 7)]
    id_lists_odd = [[5, 1], [2, True]]
    inputs += [id_lists, id_lists_odd, *id_lists, *id_lists_odd]

    # The analyses' running numbers and counts (they settle after the first call).
    w_ids: dict[str, int] = {}
    w_words: list[str] = []
    w_counts: list[int] = []
    g_ids: dict[tuple[str, ...], int] = {}
    g_grams: list[tuple[str, ...]] = []
    g_counts: list[int] = []
    w_state = (w_ids, w_words, w_counts)
    g_state = (g_ids, g_grams, g_counts)
    a_hyps = [hyp_tokens, ref_tokens[2:]]
    inputs += [w_ids, w_words, w_counts, g_ids, g_grams, g_counts, a_hyps]
    N.add_words(ref_tokens, a_hyps, 2, *w_state)
    N.add_ngram_matches(ref_tokens, a_hyps, 1, 4, 2, *g_state)  # keys hold the tokens from here on

    def failing(row: Any, signature: str) -> Any:
        raise RuntimeError("the fallback failed")

    score_args = (BLEUScore, signature, score_fallback)

    errors: list[Callable[[], Any]] = [
        lambda: N.hyp_row(["a", 1], one, 4),
        lambda: N.hyp_row(hyp_tokens, bad, 4),
        lambda: N.hyp_row_13a(hyp, one, "x"),
        lambda: N.chrf_ref_rows(hyp, (ref, 3), 6, 2, False),
        lambda: N.hyp_row(hyp_tokens, one, 4, 5),
        lambda: N.hyp_row(hyp_tokens, one, max_order=4, refs=one),
        lambda: N.bleu_sum_13a([hyp, hyp], [[ref], []], 4),
        lambda: N.bleu_rows_13a([hyp, 3], [[ref], [ref]], 4),
        lambda: N.bleu_rows_zh([hyp], [[ref, b"x"]], 4),
        lambda: N.count_edits([*ter_hyp, 1], ter_ref),
        lambda: N.count_edits(ter_hyp, ter_bad),
        lambda: N.count_edits(ter_hyp, one),
        lambda: N.count_edits(ter_hyp, ter_ref, "x"),
        lambda: N.past_newlines("text", 0, 1),
        lambda: N.past_newlines(lines_bytes, -1, 1),
        lambda: N.bleu_scores(scored_rows + raising_rows[:1], 4, "exp", 0.0, False, *score_args),
        lambda: N.bleu_scores(raising_rows[1:2], 4, "exp", 0.0, True, *score_args),
        lambda: N.bleu_scores([*scored_rows, raising_rows[2]], 4, "none", 0.0, True, *score_args),
        lambda: N.bleu_scores(scored_rows, 4, "exp", 0.0, False, BLEUScore, signature, failing),
        lambda: N.bleu_scores(scored_rows, 0, "exp", 0.0, False, *score_args),
        lambda: N.bleu_scores(scored_rows, 4, "add-k", 1.0, False, *score_args),
        lambda: N.bleu_scores(scored_rows, 4, "floor", "0.1", False, *score_args),
        lambda: N.bleu_scores(scored_rows, 4, "exp", 0.0, False, "cls", signature, print),
        lambda: N.bleu_scores(scored_rows, 4, "exp", 0.0, False, BLEUScore, signature, None),
        lambda: N.bleu_scores(scored_rows, 4, "exp", 0.0, False, BLEUScore, signature),
        lambda: N.bleu_scores(scored_rows, *(4, "exp", 0.0, False), *score_args, extra=1),
        lambda: N.bleu_scores(3, 4, "exp", 0.0, False, *score_args),
        lambda: N.token_rows(id_bad, id_refs, 4, None, 0, 1),
        lambda: N.token_rows(id_past, id_refs, 4, None, 0, 1),
        lambda: N.token_rows(id_hyps, [id_refs[0], id_big], 4, None, 0, 1),
        lambda: N.token_rows(id_hyps, id_refs, 4, 2**64, 0, 2),
        lambda: N.token_rows(id_hyps, id_refs, 4, None, 0, 3),
        lambda: N.token_rows(id_hyps, (), 4, None, 0, 2),
        lambda: N.add_words(ref_tokens, [hyp_tokens, [*ref_tokens, 3]], 2, *w_state),
        lambda: N.add_words(ref_tokens, a_hyps, 3, *w_state),
        lambda: N.add_words(ref_tokens, a_hyps, 2, w_ids, w_words, [0]),
        lambda: N.add_words(ref_tokens, a_hyps, 2, w_ids, None, w_counts),
        lambda: N.add_ngram_matches(ref_tokens, [hyp_tokens, [None]], 1, 4, 2, *g_state),
        lambda: N.add_ngram_matches(ref_tokens, a_hyps, 0, 4, 2, *g_state),
        lambda: N.add_ngram_matches(ref_tokens, a_hyps, 1, 4, 3, *g_state),
        lambda: N.add_ngram_matches(ref_tokens, a_hyps, 1, 4, 2, g_ids, g_grams, ()),
    ]

    def error_paths() -> None:
        for call in errors:
            with contextlib.suppress(TypeError, ValueError, OverflowError):
                call()

    cases: dict[str, tuple[Callable[[], Any], int]] = {
        "tokenize_13a": (lambda: N.tokenize_13a(hyp), 1),
        "tokenize_zh": (lambda: N.tokenize_zh(hyp), 1),
        "split_words": (lambda: N.split_words(hyp), 1),
        "hyp_row, 1 reference": (lambda: N.hyp_row(hyp_tokens, one, 4), 1),
        "hyp_row, 3 references": (lambda: N.hyp_row(hyp_tokens, several, 4), 1),
        "hyp_row_13a": (lambda: N.hyp_row_13a(hyp, several, 4), 1),
        "hyp_row_zh": (lambda: N.hyp_row_zh(hyp, one, 4), 1),
        "chrf_ref_rows": (lambda: N.chrf_ref_rows(hyp, refs3, 6, 2, False), 1),
        "bleu_sum_13a, 8 segments": (lambda: N.bleu_sum_13a([hyp] * 8, [[ref]] * 8, 4), 8),
        "bleu_rows_13a, 3 references": (lambda: N.bleu_rows_13a([hyp], [refs3], 4), 1),
        "bleu_rows_zh, 4 segments": (lambda: N.bleu_rows_zh([hyp] * 4, [[ref]] * 4, 4), 4),
        "count_edits": (lambda: N.count_edits(ter_hyp, ter_ref), 1),
        "count_edits, beam DP only": (lambda: N.count_edits(ter_hyp, ter_ref, 0), 1),
        "count_edits, 144 words": (lambda: N.count_edits(ter_hyp * 8, ter_long), 1),
        "past_newlines": (lambda: N.past_newlines(lines_bytes, 3, 40), 1),
        "bleu_scores, 8 rows": (
            lambda: N.bleu_scores(scored_rows, 4, "exp", 0.0, False, *score_args),
            len(scored_rows),
        ),
        "bleu_scores, floor, eff.": (
            lambda: N.bleu_scores(scored_rows, 4, "floor", 0.1, True, *score_args),
            len(scored_rows),
        ),
        "bleu_scores, 6 deferred": (
            lambda: N.bleu_scores(deferred_rows, 4, "exp", 0.0, False, *score_args),
            len(deferred_rows),
        ),
        "token_rows, 2 sentences": (lambda: N.token_rows(id_hyps, id_refs, 4, None, 0, 2), 1),
        "token_rows, 2-D, padded": (
            lambda: N.token_rows(id_padded, [id_padded], 4, 0, 0, 2),
            1,
        ),
        "token_rows, 200 ids": (lambda: N.token_rows(id_long, id_long_refs, 4, None, 0, 1), 1),
        "token_rows, chosen ids": (lambda: N.token_rows(id_flood, id_flood_refs, 4, None, 0, 2), 1),
        "token_rows, chosen ids, 2 refs": (
            lambda: N.token_rows(id_flood, [id_flood, *id_flood_refs], 4, None, 0, 2),
            1,
        ),
        "token_rows' id_lists": (lambda: N.id_lists(id_lists), 1),
        "token_rows' id_lists, None": (lambda: N.id_lists(id_lists_odd), 1),
        "add_words, 2 systems": (
            lambda: N.add_words(ref_tokens, a_hyps, 2, *w_state),
            1,
        ),
        "add_words, kept row": (
            lambda: N.add_words(ref_tokens, a_hyps, 2, *w_state, True),
            1,
        ),
        "add_ngram_matches": (
            lambda: N.add_ngram_matches(ref_tokens, a_hyps, 1, 4, 2, *g_state),
            1,
        ),
        "error paths": (error_paths, len(errors)),
    }
    only = os.environ.get("LEAKCHECK_ONLY")
    if only:
        cases = {name: case for name, case in cases.items() if only in name}
    per_case = total // sum(weight for _, weight in cases.values())
    before = [sys.getrefcount(o) for o in inputs]
    ok = True
    done = 0
    for name, (call, weight) in cases.items():
        for _ in range(20_000):  # warm up: caches, allocator arenas
            call()
        start = rss_kb()
        marks = []
        loops = per_case
        for i in range(loops):
            call()
            if i % (loops // 4 or 1) == 0:
                marks.append(rss_kb())
        end = rss_kb()
        done += loops * weight
        print(
            f"{name:24s} {loops * weight:>9} calls: RSS {start} -> {end} kB "
            f"(marks {marks}), growth {end - start} kB",
            flush=True,
        )
        ok &= end - start < 1024
    after = [sys.getrefcount(o) for o in inputs]
    print(f"{done} calls; input reference counts unchanged: {before == after}")
    ok &= before == after
    print("LEAKCHECK", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
