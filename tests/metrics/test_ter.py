"""TER against SacreBLEU 2.6 (``sacrebleu.metrics.ter``), the oracle.

Per-segment statistics are compared with SacreBLEU's
``_extract_corpus_statistics`` (values and types: an int and a float),
corpus scores with SacreBLEU's corpus score of those statistics and
sentence scores with ``sentence_score``, to the bit.  The edit distance with shifts is also
compared directly with SacreBLEU's ``lib_ter.translation_edit_rate`` on
generated pairs chosen to reach every path of ``bleustream.metrics.ter_search``: the
exact distance, the beam-limited DP where the beam changes the result
(lengths far apart, where SacreBLEU widens the beam, too), the candidate
limit, long segments of a few repeated words.
"""

# ruff: noqa: RUF001, RUF100  (full-width and CJK punctuation are the point here)

from __future__ import annotations

import argparse
import itertools
import math
import random
from collections.abc import Sequence

import pytest
from sacrebleu.metrics import lib_ter
from sacrebleu.metrics.ter import TER, TERScore
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from bleustream.cli.parser import add_option
from bleustream.metrics import ter, ter_search
from bleustream.metrics.protocol import add_rows
from bleustream.metrics.ter import Settings, TerResult
from bleustream.tokenizers.ter_normalize import tercom_tokenizer
from tests.conftest import (
    RealSystem,
    read_refs,
    read_segments,
    real_sets,
    require_real_data,
)
from tests.helpers.adversarial import ODD_WHITESPACE, Adversary

ALL_SETTINGS = tuple(Settings(*flags) for flags in itertools.product((False, True), repeat=4))


def settings_id(s: Settings) -> str:
    flags = ("normalized", "no_punct", "asian_support", "case_sensitive")
    return "+".join(f.replace("_", "-") for f in flags if getattr(s, f)) or "default"


def oracle(s: Settings) -> TER:
    return TER(
        normalized=s.normalized,
        no_punct=s.no_punct,
        asian_support=s.asian_support,
        case_sensitive=s.case_sensitive,
    )


def our_rows(s: Settings, hyps: Sequence[str], streams: Sequence[Sequence[str]]) -> list[tuple]:
    prepare, count = ter.prepare_refs(s), ter.count(s)
    return [count(hyp, prepare([st[i] for st in streams])) for i, hyp in enumerate(hyps)]


def same_float(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def row_problems(ours: Sequence[tuple], theirs: Sequence[list], hyps: Sequence[str]) -> list[str]:
    """Every segment whose row differs from SacreBLEU's, in value or type."""
    assert len(ours) == len(theirs)
    out = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if list(a) != list(b) or [type(x) for x in a] != [type(x) for x in b]:
            out.append(f"segment {i} {hyps[i][:60]!r}: {a!r} != SacreBLEU {b!r}")
    return out[:5]


def score_problems(ours: TerResult, theirs: TERScore) -> list[str]:
    out = []
    if abs(ours.score - theirs.score) > 1e-9:
        out.append(f"score {ours.score!r} != SacreBLEU {theirs.score!r}")
    elif not same_float(ours.score, theirs.score):
        out.append(f"score within 1e-9 but not bit-identical: {ours.score!r} != {theirs.score!r}")
    if ours.num_edits != theirs.num_edits or type(ours.num_edits) is not type(theirs.num_edits):
        out.append(f"num_edits {ours.num_edits!r} != SacreBLEU {theirs.num_edits!r}")
    if not same_float(ours.ref_length, float(theirs.ref_length)):
        out.append(f"ref_length {ours.ref_length!r} != SacreBLEU {theirs.ref_length!r}")
    return out


def corpus_score(s: Settings, rows: Sequence[tuple]) -> TerResult:
    """Rows summed as the scorer sums them, from the zero row."""
    total: tuple = (0, 0)
    for row in rows:
        total = add_rows(total, row)
    return ter.score(total, s)


def check_corpus(
    s: Settings,
    hyps: Sequence[str],
    streams: Sequence[Sequence[str]],
    sentences: Sequence[int] = (),
) -> None:
    """Statistics and corpus score against SacreBLEU, and the sentence scores
    of the segments numbered in ``sentences``.

    The corpus score is SacreBLEU's ``corpus_score`` as that method computes
    it, ``_aggregate_and_compute`` of the statistics, without counting twice.
    """
    rows = our_rows(s, hyps, streams)
    metric = oracle(s)
    theirs = metric._extract_corpus_statistics(hyps, streams)
    assert not row_problems(rows, theirs, hyps)
    assert not score_problems(corpus_score(s, rows), metric._aggregate_and_compute(theirs))
    for i in sentences:
        refs = [st[i] for st in streams]
        expected = oracle(s).sentence_score(hyps[i], refs)
        problems = score_problems(ter.sentence_score(rows[i], s), expected)
        assert not problems, (i, hyps[i], refs, problems)


def edits_problems(pairs: Sequence[tuple[list[str], list[str]]]) -> list[str]:
    """Pairs whose edits differ from SacreBLEU's ``translation_edit_rate``."""
    out = []
    for hyp, ref in pairs:
        expected = lib_ter.translation_edit_rate(hyp, ref)[0]
        got = ter_search.py_count_edits(hyp, ter_search.prepare_reference(ref))
        if got != expected:
            out.append(f"{got} != SacreBLEU {expected}: {' '.join(hyp)!r} / {' '.join(ref)!r}")
    return out[:3]


# --------------------------------------------------------------------------
# generated text
# --------------------------------------------------------------------------

ZH_SAMPLES = (
    "我们今天去北京。", "这是一个测试，对吗？", "他说：“你好！”", "（中国）的经济增长了5.3%。",
    "《红楼梦》是一部小说、也是一部历史。", "「引号」『双引号』【括号】〔方括号〕",
    "数字１２３，全角．",
    "㐀㐁㐂 䶵", "⺀⺁⻳ ㇀㇁㇢", "㌀㌁㍱ 豈更車 ︰︱﹏", "㈠㈡㊀ 〇〡〸〹",
)  # fmt: skip
JA_SAMPLES = (
    "東京は日本の首都です。", "カタカナとひらがな、そして漢字！", "ｶﾀｶﾅ・ｺｰﾋｰ｡",
    "「こんにちは」と彼は言った。",
    "ㇰㇱㇲㇳ", "コーヒーを飲みました？", "すし・てんぷら", "ひらがなだけ", "カタカナダケ",
    "漢字とカナ", "ゝゞヽヾ", "ー〜ー",
)  # fmt: skip
ASIAN_PUNCTUATION = "、。〈〉《》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟｡｢｣､･・．，？：；！＂（）"
ASIAN_BLOCKS = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x31C0, 0x31EF), (0x2E80, 0x2EFF), (0x3300, 0x33FF),
    (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0x3200, 0x3F22), (0x3040, 0x309F), (0x30A0, 0x30FF),
    (0x31F0, 0x31FF), (0x3000, 0x303F), (0xFF00, 0xFFEF),
)  # fmt: skip
SPECIAL_LINES = (
    "&quot;Hello&quot; &amp; &lt;b&gt; it's John's, isn't it?",
    "1,000.5 - 2-3 U.S. e.g. 3.14, (a) [b] {c}",
    "line\u2028break\u2029and\u0085next\xa0nbsp\u3000ideographic",
    "tab\tvertical\x0bform\x0cfeed  many   spaces ",
    "ÉCOLE école ǅemal STRASSE straße İstanbul ΣΊΣΥΦΟΣ",
    "the cat's hat's 's end's",
    "-\u00ad-\u2010\u2011 … ‘quotes’ “double” «guillemets»",
)


def asian_line(rng: random.Random) -> list[str]:
    """Pieces of Chinese and Japanese text: sample words, single characters
    from the blocks the tercom rules name, punctuation, a few Latin words."""
    pieces = []
    for _ in range(rng.randint(1, 12)):
        r = rng.random()
        if r < 0.35:
            sample = rng.choice(ZH_SAMPLES + JA_SAMPLES)
            a = rng.randrange(len(sample))
            pieces.append(sample[a : a + rng.randint(1, 6)])
        elif r < 0.6:
            low, high = rng.choice(ASIAN_BLOCKS)
            pieces.append("".join(chr(rng.randint(low, high)) for _ in range(rng.randint(1, 3))))
        elif r < 0.8:
            pieces.append(rng.choice(ASIAN_PUNCTUATION))
        else:
            pieces.append(rng.choice(("Tokyo", "GDP", "5.3%", "&amp;", ".", ",", "!", "(x)")))
    return pieces


def mutated(rng: random.Random, pieces: list[str], alphabet: Sequence[str]) -> list[str]:
    """A reference made from a hypothesis: deletions, insertions,
    substitutions and moved blocks, so that shifts pay off."""
    out = list(pieces)
    for _ in range(rng.randint(0, max(1, len(out) // 4))):
        op = rng.random()
        if op < 0.2 and out:
            del out[rng.randrange(len(out))]
        elif op < 0.4:
            out.insert(rng.randint(0, len(out)), rng.choice(alphabet))
        elif op < 0.6 and out:
            out[rng.randrange(len(out))] = rng.choice(alphabet)
        elif len(out) > 2:
            start = rng.randrange(len(out))
            block = out[start : start + rng.randint(1, 12)]
            del out[start : start + len(block)]
            target = rng.randint(0, len(out))
            out[target:target] = block
    return out


def join(rng: random.Random, pieces: Sequence[str]) -> str:
    return "".join(p + rng.choice(("", " ", " ", " ", rng.choice(ODD_WHITESPACE))) for p in pieces)


def asian_corpus(seed: int, n: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    alphabet = [p for _ in range(20) for p in asian_line(rng)]
    hyps, streams = [], [[] for _ in range(n_refs)]
    for _ in range(n):
        pieces = asian_line(rng)
        hyps.append(join(rng, pieces))
        for stream in streams:
            stream.append(join(rng, mutated(rng, pieces, alphabet)))
    return hyps, streams


def adversarial_corpus(seed: int, n: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
    """Adversarial segments, with Chinese/Japanese ones and the special lines mixed in."""
    hyps, streams = Adversary(seed).corpus(n, n_refs)
    zh_hyps, zh_streams = asian_corpus(seed, n // 4, n_refs)
    rng = random.Random(seed)
    special = [
        (line, [rng.choice(SPECIAL_LINES) if k else line.upper() for k in range(n_refs)])
        for line in SPECIAL_LINES
    ]
    hyps += zh_hyps + [h for h, _ in special]
    for k, stream in enumerate(streams):
        stream += zh_streams[k] + [refs[k] for _, refs in special]
    return hyps, streams


def word_pairs(seed: int, n: int, max_len: int) -> list[tuple[list[str], list[str]]]:
    """(hypothesis words, reference words) from small vocabularies, the
    hypothesis a reordered, edited reference or unrelated, in both length
    orders: many shifts, ties, and lengths far enough apart for the beam."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        vocab = [f"w{i}" for i in range(rng.choice((2, 3, 4, 6, 10, 20, 50)))]
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, max_len))]
        if rng.random() < 0.7:
            hyp = mutated(rng, ref, [*vocab, "x", "y"])
        else:
            hyp = [rng.choice([*vocab, "x"]) for _ in range(rng.randint(0, 2 * max_len))]
        out.append((hyp, ref) if rng.random() < 0.8 else (ref, hyp))
    return out


# --------------------------------------------------------------------------
# the tokenizer
# --------------------------------------------------------------------------


@pytest.mark.parametrize("s", ALL_SETTINGS, ids=settings_id)
def test_tokenizer_matches_sacrebleu(s: Settings) -> None:
    ours = tercom_tokenizer(s.normalized, s.no_punct, s.asian_support, s.case_sensitive)
    theirs = TercomTokenizer(s.normalized, s.no_punct, s.asian_support, s.case_sensitive)
    rng = random.Random(7)
    lines = list(Adversary(7).lines(300, line_breaks=True))
    lines += [join(rng, asian_line(rng)) for _ in range(200)]
    lines += [*SPECIAL_LINES, "", " ", "\n", "'s", "John's", "ひらがな", "カタカナ", "ㇰㇱ"]
    for line in lines:
        assert ours(line) == theirs(line), line


# --------------------------------------------------------------------------
# statistics and scores
# --------------------------------------------------------------------------


@pytest.mark.parametrize("s", ALL_SETTINGS, ids=settings_id)
def test_corpus_matches_sacrebleu(s: Settings) -> None:
    """Every flag combination, 1 to 4 references, adversarial and CJK text."""
    index = ALL_SETTINGS.index(s)
    hyps, streams = adversarial_corpus(seed=index, n=24, n_refs=1 + index % 4)
    # sentence scores: the first segments, and the special lines (entities,
    # odd white space, possessives), which come last
    check_corpus(s, hyps, streams, [*range(8), *range(len(hyps) - len(SPECIAL_LINES), len(hyps))])


@pytest.mark.parametrize("n_refs", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "s",
    [Settings(normalized=True, asian_support=True), Settings(no_punct=True, asian_support=True),
     Settings(normalized=True, no_punct=True, asian_support=True)],
    ids=settings_id,
)  # fmt: skip
def test_asian_support_matches_sacrebleu(s: Settings, n_refs: int) -> None:
    """Chinese and Japanese: characters split (normalized), CJK punctuation removed (no_punct)."""
    hyps, streams = asian_corpus(seed=100 + n_refs, n=20, n_refs=n_refs)
    check_corpus(s, hyps, streams, range(5))


EMPTY_SEGMENTS = (
    ("", [""]),
    ("", ["a b c"]),
    ("a b c", [""]),
    (" \t", ["\u3000"]),
    ("", ["", ""]),
    ("a b", ["", "a b"]),
    ("a b", ["a b", ""]),
    ("", ["x", "", "y z"]),
    ("!!", ["..."]),  # empty only once punctuation is removed
    ("&amp;", ["&"]),
)


@pytest.mark.parametrize(
    "s", [Settings(), Settings(no_punct=True), Settings(normalized=True)], ids=settings_id
)
@pytest.mark.parametrize("hyp,refs", EMPTY_SEGMENTS)
def test_empty_segments(s: Settings, hyp: str, refs: list[str]) -> None:
    check_corpus(s, [hyp], [[r] for r in refs], [0])


def test_empty_corpus_totals() -> None:
    """All references empty: SacreBLEU's 100 (edits) or 0 (none)."""
    s = Settings()
    for hyps in (["a", "b c"], ["", " "]):
        check_corpus(s, hyps, [["", ""]], [0, 1])
    # every hypothesis word deleted
    assert our_rows(s, ["a", "b c"], [["", ""]]) == [(1, 0.0), (2, 0.0)]
    assert ter.score((3, 0.0), s).score == 100.0
    assert ter.score((0, 0), s).score == 0.0


@pytest.mark.slow
def test_edit_distance_matches_sacrebleu(paths: dict[str, int]) -> None:
    """Short and medium pairs from small vocabularies against ``translation_edit_rate``.

    The pairs reach the beam-limited DP for a hypothesis (its trace) and for
    a shift candidate, and the candidate limit; the test checks that they
    do, so that equality means something for those paths too.
    """
    pairs = word_pairs(seed=1, n=200, max_len=30)
    # two words only, 30 to 40 of them: the candidate limit is reached
    rng = random.Random(0)
    for n in (30, 35, 40):
        pairs.append(([rng.choice("ab") for _ in range(n)], [rng.choice("ab") for _ in range(n)]))
    # one side 26 to 70 times the other: the beam starts past column 0,
    # and past a ratio of 50 SacreBLEU widens it
    for _ in range(30):
        short = [rng.choice("abc") for _ in range(rng.randint(1, 4))]
        long = [rng.choice("abcd") for _ in range(len(short) * rng.randint(26, 70))]
        pairs.append((short, long) if rng.random() < 0.7 else (long, short))
    # a short hypothesis taken from the end of a long reference: the best
    # path runs along the beam's right edge, where rows grow by several cells
    for _ in range(40):
        n = rng.randint(2, 8)
        ref = [rng.choice("abc") for _ in range(n * rng.randint(2, 70))]
        pairs.append((ref[-n:], ref))
    assert not edits_problems(pairs)
    assert all(paths.values()), paths


def edge_pairs(seed: int) -> list[tuple[list[str], list[str]]]:
    """Pairs whose best paths run into the beam's edges: a reference of 26
    words or more after several times as many words it lacks (the beam's
    left edge holds the path back), a short hypothesis from the end of a
    long reference (the right edge), and lengths 26 to 70 times apart (the
    beam starts past column 0, or is widened)."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(40):
        ref = [rng.choice("abcd") for _ in range(rng.randint(26, 80))]
        junk = [f"x{i}" for i in range(len(ref) * rng.randint(2, 6))]
        pairs.append((junk + ref, ref))
        n = rng.randint(2, 8)
        long = [rng.choice("abc") for _ in range(n * rng.randint(2, 70))]
        pairs.append((long[-n:], long))
        short = [rng.choice("abc") for _ in range(rng.randint(1, 4))]
        long = [rng.choice("abcd") for _ in range(len(short) * rng.randint(26, 70))]
        pairs.append((short, long) if rng.random() < 0.5 else (long, short))
    return pairs


def test_beam_dp_matches_sacrebleu() -> None:
    """The beam-limited DP against SacreBLEU's ``BeamEditDistance``: its
    distance and the alignment of its trace; and where the exact distance
    stands in for it (within the bound), the same distance and alignment."""
    exact_used = 0
    for hyp, ref in edge_pairs(seed=9) + word_pairs(seed=10, n=60, max_len=40):
        expected, trace = lib_ter.BeamEditDistance(ref)(hyp)
        align, ref_err, hyp_err = lib_ter.trace_to_alignment(lib_ter._flip_trace(trace))
        alignment = ([align[j] for j in range(len(ref))], hyp_err, ref_err)
        prepared = ter_search.prepare_reference(ref)
        words = [prepared.vocab.get(w, prepared.unknown) for w in hyp]
        pair = ter_search._Pair(prepared, len(hyp))
        rows = pair.banded_rows(words, [pair.first_row()])
        assert ter_search._cost(rows[-1], len(ref)) == expected, (hyp, ref)
        assert pair.banded_trace(words, rows) == alignment, (hyp, ref)
        steps = pair.forward(words)
        if hyp and ref and pair.distance_of(steps) <= pair.bound:
            exact_used += 1
            assert pair.distance_of(steps) == expected, (hyp, ref)
            assert pair.exact_trace(words, steps) == alignment, (hyp, ref)
    assert exact_used


def test_limits_are_sacrebleus() -> None:
    assert ter_search.MAX_SHIFT_SIZE == lib_ter._MAX_SHIFT_SIZE
    assert ter_search.MAX_SHIFT_DIST == lib_ter._MAX_SHIFT_DIST
    assert ter_search.BEAM_WIDTH == lib_ter._BEAM_WIDTH
    assert ter_search.MAX_SHIFT_CANDIDATES == lib_ter._MAX_SHIFT_CANDIDATES
    assert ter_search._INF == lib_ter._INT_INFINITY


def test_shift_rounds_match_sacrebleu() -> None:
    """One round of the shift search against SacreBLEU's ``_shift``: the
    number of candidates counted and, when a shift gains, the shift chosen."""
    compared = gains = 0
    for hyp, ref in word_pairs(seed=12, n=150, max_len=25):
        if not hyp or not ref:
            continue
        gain, shifted, counted = lib_ter._shift(hyp, ref, lib_ter.BeamEditDistance(ref), 0)
        prepared = ter_search.prepare_reference(ref)
        words = [prepared.vocab.get(w, prepared.unknown) for w in hyp]
        pair = ter_search._Pair(prepared, len(hyp))
        steps = pair.forward(words)
        if pair.distance_of(steps) <= pair.bound:
            trace = pair.exact_trace(words, steps)
        else:
            trace = pair.banded_trace(words, pair.banded_rows(words, [pair.first_row()]))
        found, ours = ter_search._shift_candidates(pair, words, *trace, budget=10**9)
        assert ours == counted, (hyp, ref)
        compared += 1
        if gain > 0:
            gains += 1
            # SacreBLEU's ranking over our candidates picks SacreBLEU's shift
            best_gain, length, neg_start, neg_target = max(
                (distance_gain(hyp, ref, start, length, target), length, -start, -target)
                for start, length, target in found
            )
            start, target = -neg_start, -neg_target
            assert best_gain == gain
            expected = [prepared.vocab.get(w, prepared.unknown) for w in shifted]
            assert ter_search.perform_shift(words, start, length, target) == expected
    assert compared > 100 and gains > 20, (compared, gains)


def distance_gain(hyp: list[str], ref: list[str], start: int, length: int, target: int) -> int:
    """SacreBLEU's gain of one shift: its beam distance before less after."""
    distance = lib_ter.BeamEditDistance(ref)
    shifted = lib_ter._perform_shift(hyp, start, length, target)
    return distance(hyp)[0] - distance(shifted)[0]


def test_edit_distance_beam_only(monkeypatch: pytest.MonkeyPatch, paths: dict[str, int]) -> None:
    """Past ``MAX_EXACT_CELLS`` the beam-limited DP does all the work, with
    no exact distance to skip it: set to 0, every pair takes that path, and
    must still be SacreBLEU's."""
    monkeypatch.setattr(ter_search, "MAX_EXACT_CELLS", 0)
    assert not edits_problems(word_pairs(seed=4, n=60, max_len=30))
    assert paths["beam trace"] and paths["beam candidate"], paths


@pytest.mark.parametrize("distance,edits", [(50, 1), (51, 2)])
def test_shift_distance_limit(distance: int, edits: int) -> None:
    """SacreBLEU shifts a block at most 50 positions: "x" moved back to the
    front costs one shift from position 50, and a deletion plus an
    insertion from position 51."""
    words = [f"w{i}" for i in range(60)]
    ref = ["x", *words]
    hyp = [*words[:distance], "x", *words[distance:]]
    assert lib_ter.translation_edit_rate(hyp, ref)[0] == edits
    assert ter_search.py_count_edits(hyp, ter_search.prepare_reference(ref)) == edits


def test_long_repetitive_segments(paths: dict[str, int]) -> None:
    """100-300 words from 3 to 6 words: shifts galore, the candidate limit and the beam decide.

    Generated pairs whose search takes several rounds, is voided by the
    candidate limit after a shift, or needs the beam-limited trace; and a
    300-word segment with an 8-word block moved 32 places and two edits.
    """
    hyps, refs = [], []
    for seed in (4, 10):
        rng = random.Random(seed)
        vocab = ["a", "b", "c", "d", "e", "f", "g", "h"][: 2 + seed % 6]
        ref = [rng.choice(vocab) for _ in range(rng.randint(100, 140))]
        hyps.append(" ".join(mutated(rng, ref, [*vocab, "z"])))
        refs.append(" ".join(ref))
    rng = random.Random(5)
    ref = [rng.choice("abcd") for _ in range(300)]
    hyp = ref[:100] + ref[108:140] + ref[100:108] + ref[140:200] + ["z"] + ref[201:250] + ref[252:]
    hyps.append(" ".join(hyp))
    refs.append(" ".join(ref))
    check_corpus(Settings(), hyps, [refs], [1])
    assert paths["limit"] and paths["beam trace"] and paths["rounds"] > 2 * len(hyps), paths


def test_very_long_lines(paths: dict[str, int]) -> None:
    """A line of about 1200 words against a short reference, and the reverse
    (where SacreBLEU widens the beam); against its own words with a swap, a
    substitution and deletions; and a 250-word line against the same pieces
    joined differently, far beyond the exact-distance bound."""
    adversary = Adversary(11)
    long_line = adversary.join(adversary.pieces(1500))
    words = long_line.split()
    edited = list(words)
    edited[100], edited[101] = edited[101], edited[100]
    edited[len(words) // 3] = "edited"
    del edited[-50:-45]
    pieces = adversary.pieces(300)
    hyps = [long_line, "one two three", long_line, adversary.join(pieces)]
    refs = ["one two three four", long_line, " ".join(edited), adversary.join(pieces)]
    check_corpus(Settings(), hyps, [refs], [0, 1, 2])
    assert paths["beam trace"], paths


def test_references_tokenized_twice() -> None:
    """SacreBLEU tokenizes a reference twice and a hypothesis once.

    With ``normalized``, "a..5" becomes "a . .5" (the second period is
    followed by a digit), and a second pass splits ".5" too: the reference
    is "a . . 5" (4 words), the identical hypothesis "a . .5" (3 words),
    2 edits apart (".5" for ".", then "5" inserted).
    """
    s = Settings(normalized=True)
    assert our_rows(s, ["a..5"], [["a..5"]]) == [(2, 4.0)]
    check_corpus(s, ["a..5", "John's, isn't it"], [["a..5", "John's, isn't it"]], [0, 1])


def test_snover_example() -> None:
    """Snover et al. (2006)'s example, edits counted by hand.

    REF: SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times
    HYP: THIS WEEK THE SAUDIS denied information published in the new york times

    1. shift "THIS WEEK" to after "denied"    -> THE SAUDIS denied THIS WEEK information ...
    2. substitute THE -> SAUDI
    3. substitute SAUDIS -> ARABIA
    4. insert AMERICAN before "new york times"
    4 edits over 13 reference words: TER = 4 / 13 = 30.77%.
    """
    ref = "SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times"
    hyp = "THIS WEEK THE SAUDIS denied information published in the new york times"
    s = Settings()
    row = ter.count(s)(hyp, ter.prepare_refs(s)([ref]))
    assert row == (4, 13.0)
    result = ter.score(row, s)
    assert (result.num_edits, result.ref_length) == (4, 13.0)
    assert result.score == 100 * (4 / 13)


# --------------------------------------------------------------------------
# the metric surface
# --------------------------------------------------------------------------


def test_options() -> None:
    names = {o.dest: o for o in ter.OPTIONS}
    assert list(names) == [
        "ter_case_sensitive",
        "ter_asian_support",
        "ter_no_punct",
        "ter_normalized",
    ]
    for dest, option in names.items():
        assert option.flags == ("--" + dest.replace("_", "-"),)
        assert option.default is False
        assert option.kind == "bool"
        assert "(default: no)" in option.help
    parser = argparse.ArgumentParser()
    for option in ter.OPTIONS:
        add_option(parser, option)
    args = vars(parser.parse_args(["--ter-normalized", "--ter-asian-support", "--no-ter-no-punct"]))
    assert ter.settings_from(args) == Settings(normalized=True, asian_support=True)
    assert ter.settings_from({}) == Settings()
    assert not ter.SCORE_ONLY
    assert ter.label(Settings()) == "TER" and ter.row_size(Settings()) == 2


@pytest.mark.parametrize("s", ALL_SETTINGS, ids=settings_id)
def test_signature_matches_sacrebleu(s: Settings) -> None:
    from bleustream._version import __version__

    for nrefs in (1, 2, 4, "var"):
        metric = oracle(s)
        if nrefs == "var":
            metric.corpus_score(["a b", "c"], [["a", "b"], ["c", None]])
        else:
            metric.corpus_score(["a b"], [["a"]] * nrefs)
        theirs = (
            metric.get_signature()
            .format()
            .replace("version:2.6.0", f"version:bleustream-{__version__}")
        )
        ours = "|".join(f"{k}:{v}" for k, v in ter.signature(s, nrefs).items())
        assert ours == theirs


def test_fields() -> None:
    s = Settings()
    result = ter.score((7, 20.5), s)
    assert result.score == 100 * (7 / 20.5)
    assert ter.json_fields(result, s) == {"num_edits": 7, "ref_length": 20.5}
    assert type(ter.json_fields(result, s)["num_edits"]) is int
    assert ter.tsv_fields(result, s) == [
        ("ter", repr(result.score)),
        ("ter_edits", "7"),
        ("ter_ref_len", "20.5"),
    ]
    assert ter.verbose(result, s) == ""
    assert ter.sentence_score((7, 20.5), s) == result
    with pytest.raises(ValueError):
        ter.prepare_refs(s)([])


# --------------------------------------------------------------------------
# real data
# --------------------------------------------------------------------------

# SacreBLEU's TER takes seconds per thousand segments (minutes with CJK split
# into characters), so the real-data checks take the first lines of each set.
REAL_LINES = 150
REAL_ASIAN_LINES = 15


@pytest.mark.real_systems(per_set=1)
def test_real_data_matches_sacrebleu(real_system: RealSystem) -> None:
    """Default settings, first system of every set, its first REAL_LINES segments."""
    require_real_data()
    streams = [list(r[:REAL_LINES]) for r in read_refs(real_system.real_set)]
    hyps = list(read_segments(real_system.hyp)[:REAL_LINES])
    check_corpus(Settings(), hyps, streams)


@pytest.mark.parametrize("name", ["wmt21-en-zh", "wmt21-en-ja"])
def test_real_asian_matches_sacrebleu(name: str) -> None:
    """asian_support with normalized (characters split apart) on the first system."""
    require_real_data()
    (real_set,) = [s for s in real_sets() if s.name == name]
    streams = [list(r[:REAL_ASIAN_LINES]) for r in read_refs(real_set)]
    hyps = list(read_segments(real_set.hyps[0])[:REAL_ASIAN_LINES])
    check_corpus(Settings(normalized=True, asian_support=True), hyps, streams)
