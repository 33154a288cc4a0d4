"""Random-input fuzz: every compiled kernel against its pure-Python twin.

    python tools/fuzz_kernels.py [ITERATIONS [SEED]]

Every iteration calls every C function (run it on an ASan/UBSan build:
``tools/asan.sh``); every ``FUZZ_COMPARE``-th (default 10th) also computes
the pure result and compares it exactly, since the pure side is some 50
times slower.  TER's ``count_edits`` gets word lists of its own, mostly
short, from a small vocabulary (so that blocks shift), one in four with
the beam-limited DP alone (``max_exact_cells`` 0); those are compared too
every ``FUZZ_COMPARE``-th iteration.  BLEU's score objects (``bleu_scores``)
are made every iteration, for a batch of rows (this iteration's own rows,
rows with a run's structure, arbitrary whole numbers past 2**53 and 2**63,
lists, bools, floats, rows of the wrong length) with random settings, and
compared with the pure ``Spec.score_object`` every time, to the bit, and
exceptions too (the pure side is cheap).  Token-ID BLEU's rows
(``token_rows``) are counted every iteration from streams of random
integer buffers (every item size, signed and unsigned, 2-D views too, ids
at the ends of their range, ids chosen to collide in the compiled matcher's
hash or in Python's hash of bigram tuples, random starts, lengths and
padding id) and compared with the pure ``py_token_rows`` every
``FUZZ_COMPARE``-th.  The
analyses' counting (``add_words``, ``add_ngram_matches``) gets this
iteration's tokens, compared (dicts, their key order, rows) every
``FUZZ_COMPARE``-th.  Every metric's batch kernels (each pair of its
``KERNEL_TWINS``: ``count_batch``, ``sum_batch``, ``score_batch``, BLEU's
``score_values_batch``, and ``sum_block`` on the batch's lines as a
reader's blocks of bytes, a bad UTF-8 sequence in one now and then) are
called every iteration on a batch of this
iteration's segment, the last few, and adversarial segments of
``tests/helpers/adversarial.py`` (every tokenizer's rules, odd white
space, case pairs, repeated n-grams, ties), with settings drawn from each
metric's list (some that the C batches leave to other code), and compared
with the pure twin every ``FUZZ_COMPARE``-th: rows, sums, score objects
(floats by their bits) and scores.  Every ``FUZZ_COMPARE``-th, the block
reader (``inputs.blocks``) and the line reader read one random input of
``tests/helpers/reader_fuzz.py`` (bad bytes, odd line ends, streams of
different lengths, blocks of one byte up) to the same segments and the
same error; and paste lines cut into fields (``paste_columns``) as the
pure code cuts them.  Exits non-zero on the first difference.
"""

from __future__ import annotations

import os
import random
import sys
import time
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.helpers

from bleustream import kernels
from bleustream.analysis import ngrams as analysis_ngrams
from bleustream.analysis import words as analysis_words
from bleustream.inputs import blocks
from bleustream.metrics import bleu, chrf, ngrams, ter_search, token_bleu
from bleustream.metrics.registry import METRICS, Spec
from bleustream.metrics.scores import BLEUScore
from bleustream.tokenizers import registry
from tests.helpers import reader_fuzz
from tests.helpers.adversarial import Adversary
from tests.helpers.hash_flood import colliding_ids, tuple_colliding_ids

N = kernels.native
if N is None:
    sys.exit("fuzz_kernels: the compiled kernels are not loaded (kernels: python)")

ATOMS = [
    *"{|}~[\\]^_`!\"#$%&()*+:;<=>?@/.,-'0123456789",
    *(" ", " ", " ", "\n", "\t", "\u3000", "\xa0"),
    *("the", "cat", "a", "b", "&amp;", "&quot;", "&lt;", "&gt;", "<skipped>", "-\n", "1.5", "..."),
    *("中", "文", "\ud800", "\udfff", "\U0001f600", "e\u0301", "Ä", "ß", "\u2001", "\uff0e"),
]

# TER: a small vocabulary, so that words match and blocks shift
TER_WORDS = ["a", "b", "c", "the", "cat", "\ud800", "\udfff", "\U0001f600", "e\u0301", ""]

ChrfPair = tuple[Callable[[Sequence[str]], Any], Callable[[str, Any], Any]]


def chrf_closures(settings: chrf.Settings) -> tuple[ChrfPair, ChrfPair]:
    """(pure prepare, pure count), (compiled prepare, compiled count)."""
    compiled = (chrf.c_prepare_refs(settings), chrf.c_count(settings))
    pure = (chrf.py_prepare_refs(settings), chrf.py_count(settings))
    return pure, compiled


def fake_prepared(toks: list[list[str]], max_order: int) -> ngrams.RefNgrams:
    """References as the compiled kernel reads them (lens, tokens, number of
    orders), without the pure n-gram tables: cheap."""
    if len(toks) == 1:
        return ngrams.one_reference(toks[0])
    lens = tuple(map(len, toks))
    return ngrams.RefNgrams(lens, toks, ((None, {}),) * min(max_order, max(lens)))


def pure_edits(hyp: list[str], ref: ter_search.Reference, max_exact_cells: int) -> int:
    """ter_search.py_count_edits with its MAX_EXACT_CELLS set as given."""
    saved, ter_search.MAX_EXACT_CELLS = ter_search.MAX_EXACT_CELLS, max_exact_cells
    try:
        return ter_search.py_count_edits(hyp, ref)
    finally:
        ter_search.MAX_EXACT_CELLS = saved


# BLEU score objects: whole numbers around the limits of the C code's exact
# doubles (2**53) and of a C long long (2**63).
EXACT = 2**53
BOUNDARIES = (EXACT - 1, EXACT, EXACT + 1, -EXACT, -EXACT - 1, 2**63 - 1, 2**63, -(2**63) - 1)
BOUNDARIES += (2**64 + 1, 2**1024, 10**400)
SMALL = (0, 1, 2, 3, -1, EXACT, -EXACT)
FLOOR_VALUES = (0, 0.0, -0.0, 1, 0.1, 5e-324, 1e6)


class OddInt(int):
    pass


def score_described(obj: Any) -> tuple[Any, ...]:
    """A score object (or an exception) by everything that must match, floats by their bits."""
    if isinstance(obj, BaseException):
        return ("raised", type(obj), str(obj))

    def bits(x: Any) -> str:
        return x.hex() if type(x) is float else f"{type(x).__name__}:{x!r}"

    return (
        type(obj),
        tuple(vars(obj)),  # the attributes, in order, before any lazy one is read
        bits(obj.score),
        bits(obj.bp),
        type(obj.precisions),
        tuple(map(bits, obj.precisions)),
        type(obj.stats),
        obj.stats,
        tuple(type(v) for v in obj.stats),
        obj.signature,
    )


def pure_described(spec: Spec, row: Any, signature: str) -> tuple[Any, ...]:
    try:
        return score_described(spec.score_object(row, signature))
    except Exception as exc:
        return score_described(exc)


def score_settings(rng: random.Random, max_order: int) -> bleu.Settings:
    """Settings the C code scores with: exp, floor (any value) or none."""
    method = rng.choice(("exp", "exp", "floor", "none"))
    value: float | None = None
    if method == "floor" and rng.random() < 0.7:
        value = rng.choice((*FLOOR_VALUES, rng.random(), rng.uniform(0, 1e6), rng.randint(0, 9)))
    order = max_order if rng.random() < 0.95 else rng.randint(1, 6)  # else rows of another order
    return bleu.Settings(
        smooth_method=method,
        smooth_value=value,
        effective_order=rng.random() < 0.5,
        max_order=order,
    )


def score_rows(rng: random.Random, order: int, own: list[Any]) -> list[Any]:
    """A batch of rows for bleu_scores: this iteration's rows (``own``), rows
    with a run's structure, arbitrary whole numbers, and rows the C code
    leaves to the pure code."""

    def number() -> int:
        r = rng.random()
        if r < 0.4:
            return rng.randint(-2, 30)
        if r < 0.7:
            return rng.randint(-EXACT, EXACT)
        if r < 0.85:
            return rng.choice(BOUNDARIES)
        return rng.randint(-(2**70), 2**70)

    rows: list[Any] = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.3 and own:
            rows.append(rng.choice(own))
        elif r < 0.6:
            segments = rng.choice((1, 1, 1, 5, 1000))
            hyp_len = rng.randint(0, 50 * segments) if r < 0.55 else rng.randint(0, EXACT)
            totals = [max(0, hyp_len - n * segments) for n in range(order)]
            matches: list[int] = []
            for total in totals:
                limit = min(total, matches[-1]) if matches else total
                matches.append(rng.choice((limit, 0, rng.randint(0, limit))))
            ref_len = rng.randint(0, min(2 * hyp_len + 3, EXACT))
            rows.append((hyp_len, ref_len, *matches, *totals))
        elif r < 0.85:
            if rng.random() < 0.7:  # all within 2**53: mostly scored in C
                picks = (*SMALL, rng.randint(0, 99), rng.randint(-EXACT, EXACT))
                rows.append(tuple(rng.choice(picks) for _ in range(2 + 2 * order)))
            else:
                rows.append(tuple(number() for _ in range(2 + 2 * order)))
        else:
            base = list(rng.choice(own)) if own else [1] * (2 + 2 * order)
            k = rng.randrange(len(base)) if base else 0
            kind = rng.randrange(6)
            if kind == 0:
                rows.append(base)  # a list
            elif kind == 1 and base:
                base[k] = bool(base[k] % 2)
                rows.append(tuple(base))
            elif kind == 2 and base:
                base[k] = rng.choice((float(base[k]), float("nan"), float("inf"), -0.0))
                rows.append(tuple(base))
            elif kind == 3 and base:
                base[k] = OddInt(base[k])
                rows.append(tuple(base))
            elif kind == 4:
                rows.append(tuple(base[: rng.randint(0, len(base))] + [0] * rng.randint(0, 2)))
            else:
                rows.append((*base, 0, 0))
    return rows


def check_scores(rng: random.Random, max_order: int, own: list[Any], through_library: bool) -> int:
    """One bleu_scores batch against the pure score objects (and, if
    ``through_library``, ``Spec.made_objects``' batch); the number of rows
    that reached the fallback."""
    assert N is not None
    settings = score_settings(rng, max_order)
    spec = Spec(bleu, settings)
    rows = score_rows(rng, settings.max_order, own)
    signature = rng.choice(("", "nrefs:1|case:mixed", "\ud800"))
    reached: list[Any] = []

    def fallback(row: Any, sig: str) -> Any:
        reached.append(row)
        return spec.score_object(row, sig)

    value = settings.effective_smooth_value
    args = (settings.max_order, settings.smooth_method, float(value or 0.0))
    args += (settings.effective_order, BLEUScore, signature, fallback)
    want = [pure_described(spec, row, signature) for row in rows]
    try:
        got = [score_described(obj) for obj in N.bleu_scores(rows, *args)]
    except Exception as exc:
        raised = [w for w in want if w[0] == "raised"]
        assert raised and score_described(exc) == raised[0], (rows, settings, exc)
        return len(reached)
    assert got == want, (rows, settings, got, want)
    if through_library:  # the library's closure gives the same
        made = spec.made_objects
        assert made is not None, settings
        assert [score_described(o) for o in made(rows, signature, spec.score_object)] == want
    return len(reached)


ID_TYPECODES = "bBhHiIlLqQ"


def id_stream(rng: random.Random, n: int) -> tuple[Any, array, array]:
    """n sentences of ids in a random integer buffer: random slices of it,
    which may overlap; sometimes a 2-D view of the same ids."""
    code = rng.choice(ID_TYPECODES)
    bits = 8 * array(code).itemsize
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if code.islower() else (0, 2**bits - 1)
    high = min(high, 2**63 - 1)
    alphabet = [*range(rng.randint(1, 6)), low, high, 0]
    if code == "q" and rng.random() < 0.1:  # ids the matcher's unkeyed hash puts in one slot
        alphabet = colliding_ids(range(rng.randint(1, 300)), rng.choice((0, 0, 50, 52)))
    elif code == "q" and rng.random() < 0.05:  # ids whose bigram tuples share one hash
        alphabet = tuple_colliding_ids(rng.randint(2, 300))
    size = rng.randint(0, 60 if rng.random() < 0.9 else 400)
    data = array(code, [rng.choice(alphabet) for _ in range(size)])
    starts, lens = array("q"), array("q")
    for _ in range(n):
        start = rng.randint(0, size)
        starts.append(start)
        lens.append(rng.randint(0, size - start))
    if size and size % 3 == 0 and rng.random() < 0.3:
        return memoryview(data).cast("B").cast(code, [3, size // 3]), starts, lens
    return data, starts, lens


def check_token_rows(rng: random.Random, compare: bool) -> None:
    """token_rows on random streams, against py_token_rows when comparing."""
    n = rng.randint(0, 5)
    hyps = id_stream(rng, n)
    refs = [id_stream(rng, n) for _ in range(rng.choice((1, 1, 2, 3)))]
    order = rng.choice((1, 2, 3, 4, 4, 6, 9, 30))
    pad = rng.choice((None, None, 0, 1, -1, 2**63 - 1))
    start = rng.randint(0, n)
    stop = rng.randint(start, n)
    got = N.token_rows(hyps, refs, order, pad, start, stop)
    if compare:
        want = token_bleu.py_token_rows(hyps, refs, order, pad, start, stop)
        assert got == want, (hyps, refs, order, pad, start, stop)


def check_id_lists(rng: random.Random) -> None:
    """id_lists on random nested lists: the ids and lengths as Python reads
    them, or None when an item is no int or has no int64 value."""
    odd = [True, 2**63, -(2**63) - 1, 1.0, "1", None, [1]]
    batch: Any = [
        rng.choice((list, tuple))(
            rng.choice(odd) if rng.random() < 0.02 else rng.choice((0, 1, -1, 2**63 - 1, -(2**63)))
            for _ in range(rng.randint(0, 12))
        )
        for _ in range(rng.randint(0, 5))
    ]
    if batch and rng.random() < 0.05:
        batch[rng.randrange(len(batch))] = rng.choice(("ab", 3, array("q", [1])))
    if rng.random() < 0.2:
        batch = tuple(batch)
    got = N.id_lists(batch)
    flat = [x for sentence in batch for x in sentence] if got is not None else []
    if got is None:
        plain = all(
            type(s) in (list, tuple) and all(type(x) is int and -(2**63) <= x < 2**63 for x in s)
            for s in batch
        )
        assert not plain, batch
        return
    assert array("q", got[0]).tolist() == flat, batch
    assert array("q", got[1]).tolist() == [len(s) for s in batch], batch


def check_analysis(
    rng: random.Random, hyp: list[str], refs: list[list[str]], compare: bool
) -> None:
    """add_words and add_ngram_matches on a segment's tokens (the reference
    and the other systems' from the references, sliced), against the pure
    twins every ``compare`` iteration."""
    systems = rng.randint(0, 3)
    hyps = [hyp, *(r[rng.randrange(len(r) + 1) :] for r in refs)][: systems + rng.randint(0, 1)]
    ref = refs[0]
    keep = rng.random() < 0.5
    low = rng.randint(1, 4)
    high = low + rng.randint(0, 3)
    states = []
    for add_words, add_ngrams in (
        (N.add_words, N.add_ngram_matches),
        (analysis_words.py_add_words, analysis_ngrams.py_add_ngram_matches),
    ):
        # A word and an n-gram counted before, so that counts are added to.
        words = ({"a": 0}, ["a"], [1] * (1 + 2 * systems))
        grams: tuple[dict[tuple[str, ...], int], list[tuple[str, ...]], list[int]]
        grams = ({("a",): 0}, [("a",)], [1] * systems)
        try:
            row = add_words(ref, hyps, systems, *words, keep)
            add_ngrams(ref, hyps, low, high, systems, *grams)
            outcome: object = (row, words, grams)
        except ValueError as error:  # fewer hypotheses than systems
            outcome = repr(error)
        states.append(outcome)
        if not compare:
            break
    if compare:  # repr: the dicts' key order too
        assert repr(states[0]) == repr(states[1]), (ref, hyps, low, high)


class Whole(int):
    """An int of another type: settings the C batches leave to other code."""


# Each metric's settings for its batch kernels, some of them of the kinds
# the C batches hand to the per-segment kernels or the pure scores.
BATCH_SETTINGS: dict[str, list[Any]] = {
    "bleu": [
        bleu.Settings(),
        bleu.Settings(tokenize="zh", max_order=2),
        bleu.Settings(lowercase=True, max_order=6, effective_order=True),
        bleu.Settings(smooth_method="floor", smooth_value=0),
        bleu.Settings(smooth_method="none", max_order=1),
        bleu.Settings(tokenize="intl", smooth_method="add-k"),
        bleu.Settings(tokenize="char", orders=True),
        bleu.Settings(tokenize="none", max_order=3),
    ],
    "chrf": [
        chrf.Settings(),
        chrf.Settings(word_order=2),
        chrf.Settings(char_order=3, word_order=1, whitespace=True, eps_smoothing=True),
        chrf.Settings(char_order=8, word_order=3, lowercase=True, beta=3),
        chrf.Settings(beta=Whole(2)),
    ],
    "ter": [],
}


def described(result: Any) -> Any:
    """A batch kernel's result by everything that must match: score objects
    by ``score_described``, floats by their bits."""
    if isinstance(result, list):
        return [described(x) for x in result]
    if isinstance(result, float):
        return ("float", result.hex())
    if isinstance(result, tuple):
        return tuple(described(x) for x in result)
    if hasattr(result, "score"):  # a score object: its attributes in order, its class
        return (type(result), [(k, described(v)) for k, v in vars(result).items()])
    return (type(result), result)


# Overlong, surrogate, past U+10FFFF, stray and cut-short sequences.
BAD_UTF8 = (
    b"\xff",
    b"\x80",
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe4\xb8",
)


def as_blocks(rng: random.Random, hyps: list[str], refs: list[list[str]]) -> tuple[Any, ...]:
    """A batch as a reader's blocks (``sum_block``'s arguments): its lines'
    UTF-8 (a surrogate's bytes as they come) joined by line ends, the
    references' first and, where every segment has one, second; now and
    then a bad byte sequence in a line."""

    def block(lines: list[str]) -> bytes:
        data = [line.replace("\n", " ").encode("utf-8", "surrogatepass") for line in lines]
        if rng.random() < 0.1:
            at = rng.randrange(len(data))
            cut = rng.randint(0, len(data[at]))
            data[at] = data[at][:cut] + rng.choice(BAD_UTF8) + data[at][cut:]
        return b"\n".join(data)

    columns = [[texts[0] for texts in refs]]
    if all(len(texts) > 1 for texts in refs):
        columns.append([texts[1] for texts in refs])
    return block(hyps), [block(column) for column in columns]


class BatchTwins:
    """Every metric's batch kernels made for each of its settings, once:
    (metric, settings, name, compiled function, pure function)."""

    def __init__(self) -> None:
        self.made: list[tuple[Any, Any, str, Any, Any]] = []
        for metric in METRICS.values():
            for the_settings in BATCH_SETTINGS[metric.NAME]:
                for name, (compiled, pure) in metric.KERNEL_TWINS.items():
                    if compiled is not None:
                        made = (compiled(the_settings), pure(the_settings))
                        self.made.append((metric, the_settings, name, *made))

    def check(
        self, rng: random.Random, hyps: list[str], refs: list[list[str]], compare: bool
    ) -> int:
        """Each batch kernel of one drawn setting per metric on the batch
        (rows for the scores: the compiled ``count_batch``'s); the pure twin
        too when ``compare``.  Returns the kernels compared."""
        chosen: dict[str, Any] = {}
        for metric, the_settings, _, _, _ in self.made:
            chosen.setdefault(metric.NAME, [])
            if the_settings not in chosen[metric.NAME]:
                chosen[metric.NAME].append(the_settings)
        picked = {name: rng.choice(options) for name, options in chosen.items()}
        rows: dict[str, Any] = {}
        checked = 0
        for metric, the_settings, name, compiled, pure in self.made:
            if the_settings is not picked[metric.NAME]:
                continue
            spec = Spec(metric, the_settings)
            if name in ("count_batch", "sum_batch"):
                args: tuple[Any, ...] = (hyps, refs)
            elif name == "sum_block":
                args = as_blocks(rng, hyps, refs)
            elif name == "score_batch":
                args = (rows[metric.NAME], "s", spec.score_object)
            else:  # the scores alone, of sentence settings
                args = (rows[metric.NAME],)
            got = compiled(*args)
            if name == "count_batch":
                rows[metric.NAME] = got
            if compare:
                want = pure(*args)
                where = (metric.NAME, the_settings, name, hyps, refs)
                assert described(got) == described(want), where
                checked += 1
        return checked


def main(argv: list[str]) -> int:
    iterations = int(argv[1]) if len(argv) > 1 else 100_000
    seed = int(argv[2]) if len(argv) > 2 else 0
    every = int(os.environ.get("FUZZ_COMPARE", "10"))
    rng = random.Random(seed)

    def rand_text() -> str:
        k = rng.random()
        if k < 0.05:
            return ""
        parts = []
        for _ in range(rng.randint(0, 40 if k < 0.9 else 400)):
            r = rng.random()
            if r < 0.75:
                parts.append(rng.choice(ATOMS))
            elif r < 0.9:
                parts.append(chr(rng.randint(0, 0x10FFFF)))
            else:
                parts.append(chr(rng.randint(0, 0x2FFF)))
        return "".join(parts)

    pool = [rand_text() for _ in range(20_000)]

    def pool_text() -> str:
        """A pool text, often sliced and/or joined to another."""
        s = rng.choice(pool)
        r = rng.random()
        if r < 0.3 and s:
            i, j = sorted((rng.randrange(len(s) + 1), rng.randrange(len(s) + 1)))
            s = s[i:j]
        if r > 0.6:
            s = s + rng.choice(pool)
        return s

    def ter_pair(h: str, r: str) -> tuple[list[str], list[str]]:
        """Words of two texts, or a small-vocabulary reference and itself
        with blocks moved and words changed: mostly short, now and then
        long (up to 300 words), and either way round."""
        if rng.random() < 0.3:
            return h.split(), r.split()
        vocab = TER_WORDS[: rng.randint(2, len(TER_WORDS))]
        size = rng.randint(0, 30) if rng.random() < 0.99 else rng.randint(65, 300)
        ref = [rng.choice(vocab) for _ in range(size)]
        hyp = list(ref)
        for _ in range(rng.randint(0, 4) if hyp else 0):
            start = rng.randrange(len(hyp))
            block = hyp[start : start + rng.randint(1, 12)]
            del hyp[start : start + len(block)]
            target = rng.randint(0, len(hyp))
            hyp[target:target] = block
        for _ in range(rng.randint(0, 3)):
            if hyp and rng.random() < 0.5:
                hyp[rng.randrange(len(hyp))] = rng.choice([*vocab, "x"])
            else:
                hyp.insert(rng.randint(0, len(hyp)), rng.choice([*vocab, "y"]))
        return (hyp, ref) if rng.random() < 0.7 else (ref, hyp)

    chrf_settings = [
        chrf.Settings(),
        chrf.Settings(word_order=2),
        chrf.Settings(char_order=3, word_order=1, whitespace=True),
        chrf.Settings(char_order=8, word_order=3, lowercase=True),
    ]
    chrf_funcs = [chrf_closures(s) for s in chrf_settings]
    twins, adversary = BatchTwins(), Adversary(seed)
    compared = scored = deferred = batches = readers = 0
    recent: list[tuple[str, list[str]]] = []
    t0 = time.time()
    for it in range(iterations):
        h = pool_text()
        refs = [pool_text() for _ in range(rng.choice((1, 1, 1, 2, 3, 5)))]
        if rng.random() < 0.1:
            refs.append(refs[0])
        if rng.random() < 0.2:  # share material with a reference
            h = refs[0] + h if rng.random() < 0.5 else refs[0]
        max_order = rng.choice((1, 2, 3, 4, 4, 4, 6))
        compare = it % every == 0
        ht, hz, words = N.tokenize_13a(h), N.tokenize_zh(h), N.split_words(h)
        if compare:
            assert ht == registry.py_tokenize_13a(h), (h,)
            assert hz == registry.py_tokenize_zh(h), (h,)
            assert words == chrf.split_words(h), (h,)
        toks = [N.tokenize_13a(r) for r in refs]
        prep = (
            ngrams.reference_ngrams(toks, max_order) if compare else fake_prepared(toks, max_order)
        )
        got = N.hyp_row(ht, prep, max_order)
        assert N.hyp_row_13a(h, prep, max_order) == got, (h, refs, max_order)
        ztoks = [N.tokenize_zh(r) for r in refs]
        pz = (
            ngrams.reference_ngrams(ztoks, max_order)
            if compare
            else fake_prepared(ztoks, max_order)
        )
        got_zh = N.hyp_row_zh(h, pz, max_order)
        # Lines in, rows or sums out: a batch of this segment and the last few.
        batch = [(h, refs), *recent]
        recent = batch[:3]
        hyps_b, refs_b = [b[0] for b in batch], [b[1] for b in batch]
        rows_b = N.bleu_rows_13a(hyps_b, refs_b, max_order)
        sum_b = N.bleu_sum_13a(hyps_b, refs_b, max_order)
        rows_bz = N.bleu_rows_zh(hyps_b, refs_b, max_order)
        sum_bz = N.bleu_sum_zh(hyps_b, refs_b, max_order)
        assert sum_b == tuple(map(sum, zip(*rows_b))), (hyps_b, refs_b, max_order)
        assert sum_bz == tuple(map(sum, zip(*rows_bz))), (hyps_b, refs_b, max_order)
        # Every metric's batch kernels, on the batch and adversarial segments
        extra = [adversary.segment(rng.choice((1, 1, 2, 3))) for _ in range(rng.randint(0, 3))]
        batches += twins.check(
            rng, [*hyps_b, *(e[0] for e in extra)], [*refs_b, *(e[1] for e in extra)], compare
        )
        # BLEU's score objects of these rows and others, every iteration
        own = [got, got_zh, *rows_b, sum_b, sum_bz]
        deferred += check_scores(rng, max_order, own, compare)
        check_token_rows(rng, compare)
        if compare:  # the block reader against the line reader (pure Python both)
            by_lines, by_blocks = reader_fuzz.check_once(rng)
            assert by_blocks == by_lines, (seed, it, by_lines[-3:], by_blocks[-3:])
            readers += 1
        check_id_lists(rng)
        check_analysis(rng, ht, toks, compare)
        scored += 1
        if compare:
            for tokenize, rows in (
                (registry.py_tokenize_13a, rows_b),
                (registry.py_tokenize_zh, rows_bz),
            ):
                want_rows = [
                    ngrams.hyp_row(
                        tokenize(bh.rstrip()),
                        ngrams.reference_ngrams([tokenize(r.rstrip()) for r in br], max_order),
                        max_order,
                    )
                    for bh, br in batch
                ]
                assert rows == want_rows, (batch, max_order, tokenize.__name__)
        (pure_prepare, pure_count), (c_prepare, c_count) = chrf_funcs[it % len(chrf_funcs)]
        got_chrf = c_count(h, c_prepare(refs))
        ter_hyp, ter_ref_words = ter_pair(h, refs[0])
        ter_ref = ter_search.prepare_reference(ter_ref_words)
        cells = 0 if it % 4 == 1 else ter_search.MAX_EXACT_CELLS  # the beam DP alone, now and then
        got_ter = N.count_edits(ter_hyp, ter_ref, cells)
        # The -j parent's newline search, on the texts' bytes.
        data = "\n".join(refs).encode("utf-8", "surrogatepass")
        pos, count = rng.randint(0, len(data)), rng.randint(-1, 8)
        # Paste lines cut into fields: the texts' bytes, tabs moved about.
        pasted = data.replace(b" ", b"\t", rng.randint(0, 3))
        nfields = rng.randint(1, 4)
        cut = N.paste_columns(pasted, nfields)
        assert cut == blocks.py_paste_columns(pasted, nfields), (pasted, nfields)
        assert N.past_newlines(data, pos, count) == blocks.py_past_newlines(data, pos, count), (
            data,
            pos,
            count,
        )
        if compare or (it % 4 == 1 and it % every == 1):
            want = pure_edits(ter_hyp, ter_ref, cells)
            assert got_ter == want, (ter_hyp, ter_ref_words, cells)
        if compare:
            assert got == ngrams.hyp_row(ht, prep, max_order), (h, refs, max_order)
            assert got_zh == ngrams.hyp_row(hz, pz, max_order), (h, refs)
            assert got_chrf == pure_count(h, pure_prepare(refs)), (h, refs, it % 4)
            compared += 1
        if it % 1000 == 0:  # the error paths too
            id_ok = (array("b", [1]), array("q", [0]), array("q", [1]))
            bad_calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
                (N.hyp_row, (["a", 3], prep, 4)),
                (N.hyp_row, (["a"], (1, 2), 4)),
                (N.hyp_row, (["a"], prep, "x")),
                *(
                    (kernel, args)
                    for args in ((["a"], [[]], 4), (["a", 3], [["a"], ["b"]], 4), ("a", [[1]], 4))
                    for kernel in (N.bleu_sum_13a, N.bleu_rows_zh)
                ),
                (N.count_edits, (["a", 3], ter_ref)),
                (N.count_edits, (["a"], prep)),
                (N.count_edits, (["a"], ter_ref, "0")),
                *(
                    (N.token_rows, (hyps_t, refs_t, order_t, pad_t, 0, 1))
                    for hyps_t, refs_t, order_t, pad_t in (
                        ((array("d", [1.0]), array("q", [0]), array("q", [1])), [id_ok], 4, None),
                        (id_ok, [(array("Q", [2**63]), array("q", [0]), array("q", [1]))], 4, 0),
                        ((array("b", [1]), array("q", [1]), array("q", [1])), [id_ok], 4, None),
                        ((array("b", [1]), array("i", [0]), array("q", [1])), [id_ok], 4, None),
                        (id_ok, [id_ok], 0, None),
                        (id_ok, [], 4, None),
                        (id_ok, [id_ok], 4, 2**63),
                        (id_ok, [id_ok], 4, "0"),
                        ([array("b", [1]), array("q", [0]), array("q", [1])], [id_ok], 4, None),
                    )
                ),
                *(
                    (N.bleu_scores, args)
                    for args in (
                        ([got], 0, "exp", 0.0, False, BLEUScore, "", print),
                        ([got], 101, "exp", 0.0, False, BLEUScore, "", print),
                        ([got], max_order, "add-k", 1.0, False, BLEUScore, "", print),
                        ([got], max_order, None, 0.0, False, BLEUScore, "", print),
                        ([got], max_order, "floor", "0.1", False, BLEUScore, "", print),
                        ([got], max_order, "exp", 0.0, False, "BLEUScore", "", print),
                        ([got], max_order, "exp", 0.0, False, BLEUScore, "", None),
                        ([got], max_order, "exp", 0.0, False, BLEUScore, ""),
                        (3, max_order, "exp", 0.0, False, BLEUScore, "", print),
                    )
                ),
            ]
            for kernel, args in bad_calls:
                try:
                    kernel(*args)
                except (TypeError, ValueError):
                    pass
                else:
                    raise AssertionError((kernel.__name__, args))
        if it and it % 100_000 == 0:
            print(f"{it} iterations, {time.time() - t0:.0f}s", flush=True)
    print(
        f"OK {iterations} iterations ({compared} compared with pure; {scored} bleu_scores "
        f"batches compared, {deferred} rows deferred to the pure code; {batches} batch "
        f"kernels compared with their pure twins; {readers} inputs read by blocks and by "
        f"lines) seed {seed} "
        f"in {time.time() - t0:.0f}s, kernels from {N.__file__}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
