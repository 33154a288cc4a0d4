"""The Python API against SacreBLEU 2.6's own functions, and against the command line.

Every registered metric is checked through its ``corpus_*`` and
``sentence_*`` functions, on seeded adversarial text and on a real set,
with several settings: the score to 1e-9, the statistics equal, and the
signature equal apart from its ``version`` field.  A registered metric
without an entry in ``API_CASES`` fails the test, so a new metric cannot
go unchecked.  ``Scorer`` fed in batches, its ``Totals`` pickled and added,
and the command line's ``-f jsonl``/``-f stats`` numbers must all be the
same as one call over everything.
"""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
import sacrebleu
from sacrebleu.metrics.base import Metric as SacreMetric
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER

import bleustream
from bleustream.metrics.registry import METRICS
from tests.conftest import read_refs, read_segments, real_sets, require_real_data
from tests.helpers.adversarial import Adversary
from tests.helpers.clirun import run

TOLERANCE = 1e-9

Kwargs = dict[str, Any]


@dataclass(frozen=True)
class ApiCase:
    """One metric's API functions, SacreBLEU's, and how its settings map to its class."""

    corpus: Callable[..., Any]
    sentence: Callable[..., Any]
    oracle_corpus: Callable[..., Any]
    oracle_sentence: Callable[..., Any]
    oracle_metric: Callable[[Kwargs, bool], SacreMetric]  # (settings, sentence level)
    settings: tuple[Kwargs, ...]  # the first is the defaults
    real_segments: int = 100  # of the real set (SacreBLEU's TER is slow on long lines)


def _bleu(kwargs: Kwargs, sentence: bool) -> SacreMetric:
    return BLEU(
        tokenize=kwargs.get("tokenize", "13a"),
        lowercase=kwargs.get("lowercase", False),
        smooth_method=kwargs.get("smooth_method", "exp"),
        smooth_value=kwargs.get("smooth_value"),
        effective_order=kwargs.get("use_effective_order", sentence),
    )


def _chrf(kwargs: Kwargs, sentence: bool) -> SacreMetric:
    return CHRF(
        char_order=kwargs.get("char_order", 6),
        word_order=kwargs.get("word_order", 0),
        beta=kwargs.get("beta", 2),
        whitespace=not kwargs.get("remove_whitespace", True),
        eps_smoothing=kwargs.get("eps_smoothing", False),
    )


def _ter(kwargs: Kwargs, sentence: bool) -> SacreMetric:
    return TER(**kwargs)


API_CASES: dict[str, ApiCase] = {
    "bleu": ApiCase(
        bleustream.corpus_bleu,
        bleustream.sentence_bleu,
        sacrebleu.corpus_bleu,
        sacrebleu.sentence_bleu,
        _bleu,
        (
            {},
            {"tokenize": "intl", "lowercase": True},
            {"tokenize": "zh", "smooth_method": "floor", "smooth_value": 0.05},
            {"tokenize": "char", "smooth_method": "add-k", "use_effective_order": True},
            {"tokenize": "none", "smooth_method": "none", "use_effective_order": False},
        ),
    ),
    "chrf": ApiCase(
        bleustream.corpus_chrf,
        bleustream.sentence_chrf,
        sacrebleu.corpus_chrf,
        sacrebleu.sentence_chrf,
        _chrf,
        (
            {},
            {"word_order": 2},
            {"char_order": 4, "beta": 1, "remove_whitespace": False},
            {"word_order": 1, "eps_smoothing": True},
        ),
    ),
    "ter": ApiCase(
        bleustream.corpus_ter,
        bleustream.sentence_ter,
        sacrebleu.corpus_ter,
        sacrebleu.sentence_ter,
        _ter,
        (
            {},
            {"normalized": True, "case_sensitive": True},
            {"no_punct": True, "asian_support": True},
        ),
        real_segments=30,
    ),
}


def case_of(metric: str) -> ApiCase:
    assert metric in API_CASES, f"metric {metric!r} is registered but has no API check here"
    return API_CASES[metric]


SETTINGS_CASES = [
    pytest.param(name, index, id=f"{name}-{index}")
    for name in METRICS
    for index in range(len(API_CASES[name].settings) if name in API_CASES else 1)
]


# ----------------------------------------------------------------------------
# Oracle helpers
# ----------------------------------------------------------------------------


def oracle_stats(
    metric: SacreMetric, hyps: Sequence[str], refs: Sequence[Sequence[str]]
) -> list[Any]:
    """SacreBLEU's corpus statistics: its per-segment rows, summed as it sums them."""
    rows = metric._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
    return [sum(column) for column in zip(*rows)]


def without_version(signature: str) -> str:
    return re.sub(r"\|version:[^|]*$", "", signature)


def detail_mismatches(ours: Any, theirs: Any) -> list[str]:
    """The SacreBLEU score attributes our score object also has, where they differ."""
    problems = []
    for name in ("precisions", "bp", "ratio", "num_edits", "ref_length"):
        if not hasattr(theirs, name):
            continue
        a, b = getattr(ours, name), getattr(theirs, name)
        if isinstance(b, list):
            ok = len(a) == len(b) and all(abs(x - y) <= TOLERANCE for x, y in zip(a, b))
        else:
            ok = abs(a - b) <= TOLERANCE
        if not ok:
            problems.append(f"{name}: {a!r} != SacreBLEU {b!r}")
    return problems


def assert_same_corpus(
    metric: str, kwargs: Kwargs, hyps: Sequence[str], refs: Sequence[Sequence[str]]
) -> Any:
    case = case_of(metric)
    ours = case.corpus(list(hyps), [list(r) for r in refs], **kwargs)
    theirs = case.oracle_corpus(list(hyps), [list(r) for r in refs], **kwargs)
    assert abs(ours.score - theirs.score) <= TOLERANCE, (ours.score, theirs.score)
    assert not detail_mismatches(ours, theirs)
    # The function's metric, as a class: its statistics, and its signature.
    oracle = case.oracle_metric(kwargs, False)
    assert list(ours.stats) == oracle_stats(oracle, hyps, refs)
    assert without_version(ours.signature) == without_version(str(oracle.get_signature()))
    assert ours.signature.endswith(f"|version:bleustream-{bleustream.__version__}")
    return ours


# ----------------------------------------------------------------------------
# Corpora
# ----------------------------------------------------------------------------


def adversarial(seed: int, size: int, nrefs: int) -> tuple[list[str], list[list[str]]]:
    return Adversary(seed).corpus(size, nrefs)


@pytest.fixture(scope="module")
def real_sample() -> tuple[list[str], list[list[str]]]:
    """The first segments of WMT21 en-de, one system, its three references."""
    require_real_data()
    real = next(s for s in real_sets() if s.name == "wmt21-en-de")
    size = 100  # SacreBLEU's TER against three references is slow
    refs = [list(stream[:size]) for stream in read_refs(real)]
    return list(read_segments(real.hyps[0])[:size]), refs


# ----------------------------------------------------------------------------
# The functions against SacreBLEU's
# ----------------------------------------------------------------------------


def test_every_registered_metric_has_its_functions() -> None:
    for name in METRICS:
        case = case_of(name)
        assert getattr(bleustream, f"corpus_{name}") is case.corpus
        assert getattr(bleustream, f"sentence_{name}") is case.sentence


@pytest.mark.parametrize("metric, index", SETTINGS_CASES)
def test_corpus_function_on_adversarial_text(metric: str, index: int) -> None:
    kwargs = case_of(metric).settings[index]
    hyps, refs = adversarial(100 + index, 100, 2)
    assert_same_corpus(metric, kwargs, hyps, refs)


@pytest.mark.parametrize("metric", list(METRICS))
def test_corpus_function_with_a_varying_number_of_references(metric: str) -> None:
    """A reference that is None is left out of its segment, as SacreBLEU does."""
    hyps, refs = adversarial(7, 60, 3)
    for i in range(0, 60, 4):
        refs[2][i] = None  # type: ignore[call-overload]
    ours = assert_same_corpus(metric, {}, hyps, refs)
    assert "nrefs:var|" in ours.signature


@pytest.mark.parametrize("metric", list(METRICS))
def test_corpus_function_on_a_real_set(
    metric: str, real_sample: tuple[list[str], list[list[str]]]
) -> None:
    size = case_of(metric).real_segments
    hyps, refs = real_sample[0][:size], [stream[:size] for stream in real_sample[1]]
    ours = assert_same_corpus(metric, {}, hyps, refs)
    assert ours.signature.startswith("nrefs:3|")


@pytest.mark.parametrize("metric, index", SETTINGS_CASES)
def test_sentence_function_on_adversarial_and_real_pairs(
    metric: str, index: int, real_sample: tuple[list[str], list[list[str]]]
) -> None:
    case = case_of(metric)
    kwargs = case.settings[index]
    hyps, refs = adversarial(200 + index, 30, 2)
    pairs = [(h, [stream[i] for stream in refs]) for i, h in enumerate(hyps)]
    real_hyps, real_refs = real_sample
    pairs += [(h, [stream[i] for stream in real_refs]) for i, h in enumerate(real_hyps[:6])]
    oracle = case.oracle_metric(kwargs, True)
    for hyp, hyp_refs in pairs:
        ours = case.sentence(hyp, hyp_refs, **kwargs)
        theirs = case.oracle_sentence(hyp, hyp_refs, **kwargs)
        assert abs(ours.score - theirs.score) <= TOLERANCE, (hyp, hyp_refs)
        assert not detail_mismatches(ours, theirs)
        assert list(ours.stats) == oracle_stats(oracle, [hyp], [[r] for r in hyp_refs])
    first = case.sentence(*pairs[0], **kwargs)
    oracle.sentence_score(*pairs[0])
    assert without_version(first.signature) == without_version(str(oracle.get_signature()))


def test_sentence_bleu_takes_its_settings_per_call() -> None:
    """Settings cached from one call never leak into a call with other settings."""
    hyp, refs = "The cat sat on the mat.", ["the cat sat on the mat ."]
    for lowercase in (False, True, False):
        for tokenize in ("13a", "none"):
            ours = bleustream.sentence_bleu(hyp, refs, lowercase=lowercase, tokenize=tokenize)
            theirs = sacrebleu.sentence_bleu(hyp, refs, lowercase=lowercase, tokenize=tokenize)
            assert ours.score == theirs.score
            assert ("case:lc" in ours.signature) is lowercase
            assert f"tok:{tokenize}" in ours.signature


@pytest.mark.parametrize("method", ["exp", "none"])
def test_a_smoothing_value_the_method_does_not_take_is_ignored(method: str) -> None:
    """As SacreBLEU: ``smooth_value`` with exp or none changes nothing."""
    hyps, refs = adversarial(51, 30, 1)
    ours = bleustream.corpus_bleu(hyps, refs, smooth_method=method, smooth_value=0.3)
    theirs = sacrebleu.corpus_bleu(hyps, refs, smooth_method=method, smooth_value=0.3)
    assert ours.score == theirs.score
    oracle = BLEU(smooth_method=method, smooth_value=0.3)
    oracle.corpus_score(hyps, refs)
    assert without_version(ours.signature) == without_version(str(oracle.get_signature()))
    sentence = bleustream.sentence_bleu(hyps[0], [refs[0][0]], smooth_method=method, smooth_value=1)
    assert (
        sentence.score
        == sacrebleu.sentence_bleu(
            hyps[0], [refs[0][0]], smooth_method=method, smooth_value=1
        ).score
    )


def test_strings_where_lists_belong_are_type_errors() -> None:
    with pytest.raises(TypeError):
        bleustream.corpus_bleu("a hypothesis", [["a reference"]])
    with pytest.raises(TypeError):
        bleustream.corpus_bleu(["a hypothesis"], "a reference")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bleustream.sentence_bleu("a hypothesis", "a reference")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bleustream.sentence_bleu(["a hypothesis"], ["a reference"])  # type: ignore[arg-type]


def test_score_object_reads_like_sacrebleus() -> None:
    hyps, refs = ["the cat sat on the mat", "a dog"], [["the cat sat on a mat", "the dog"]]
    ours, theirs = bleustream.corpus_bleu(hyps, refs), sacrebleu.corpus_bleu(hyps, refs)
    assert ours.name == theirs.name == "BLEU"
    assert list(ours.precisions) == theirs.precisions
    assert (ours.bp, ours.ratio) == (theirs.bp, theirs.ratio)
    assert ours.stats == (theirs.sys_len, theirs.ref_len, *theirs.counts, *theirs.totals)
    # SacreBLEU's text: no signature unless one is given.
    assert str(ours) == str(theirs) == repr(ours)
    assert ours.format(width=4) == theirs.format(width=4)
    signature = without_version(ours.signature)
    for args in ((1, True), (1, False, signature), (3, False, signature, True)):
        assert ours.format(*args) == theirs.format(*args)
    with pytest.raises(AttributeError):
        ours.no_such_attribute  # noqa: B018


def test_score_object_has_sacrebleus_attribute_names() -> None:
    hyps, refs = ["the cat sat on the mat", "a dog"], [["the cat sat on a mat", "the dog"]]
    bleu, theirs = bleustream.corpus_bleu(hyps, refs), sacrebleu.corpus_bleu(hyps, refs)
    assert (bleu.counts, bleu.totals) == (theirs.counts, theirs.totals)
    assert (bleu.sys_len, bleu.ref_len) == (theirs.sys_len, theirs.ref_len)
    chrf = bleustream.corpus_chrf(hyps, refs, word_order=2)
    assert (chrf.char_order, chrf.word_order, chrf.beta) == (6, 2, 2)


SENTENCE_CASES = [
    ("the cat sat on the mat", ["the cat sat on a mat"]),
    ("a dog", ["the dog", "a dog ran"]),
    ("", ["not empty"]),
    ("no match at all", ["zzz"]),
]


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_sentence_score_attributes_are_sacrebleus(smooth: str) -> None:
    names = ("score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len", "ratio")
    for hyp, refs in SENTENCE_CASES:
        ours = bleustream.sentence_bleu(hyp, refs, smooth_method=smooth)
        theirs = sacrebleu.sentence_bleu(hyp, refs, smooth_method=smooth)
        for name in names:
            value = getattr(ours, name)
            assert value == getattr(theirs, name), (hyp, name)
            assert type(value) is type(getattr(theirs, name)), (hyp, name)
        assert str(ours) == str(theirs)


def test_a_sentence_scores_attributes_can_be_set() -> None:
    score = bleustream.sentence_bleu("the cat sat", ["the cat sat down"])
    score.counts = [9, 9, 9, 9]
    score.ratio = 2.0
    assert (score.counts, score.ratio) == ([9, 9, 9, 9], 2.0)


# ----------------------------------------------------------------------------
# spec(), Scorer and Totals
# ----------------------------------------------------------------------------


def test_spec_takes_option_names_and_refuses_unknown_ones() -> None:
    the_spec = bleustream.spec("bleu", tokenize="intl", lowercase=True)
    assert (the_spec.settings.tokenize, the_spec.settings.lowercase) == ("intl", True)
    assert bleustream.spec("bleu") == bleustream.spec("bleu", tokenize="13a")
    with pytest.raises(ValueError, match="unknown metric"):
        bleustream.spec("meteor")
    with pytest.raises(TypeError, match="unknown bleu settings: tokenizer"):
        bleustream.spec("bleu", tokenizer="intl")


def _all_specs() -> list[Any]:
    return [bleustream.spec(name) for name in METRICS]


def test_scorer_fed_in_batches_equals_one_call_per_metric() -> None:
    hyps, refs = adversarial(31, 240, 2)
    scorer = bleustream.Scorer(_all_specs())
    for start, stop in ((0, 1), (1, 2), (2, 57), (57, 200), (200, 200), (200, 240)):
        scorer.update(hyps[start:stop], [r[start:stop] for r in refs])
    assert scorer.segments == 240
    results = bleustream.scores(scorer, 2)
    for name, score, result in zip(METRICS, scorer.score(), results):
        whole = getattr(bleustream, f"corpus_{name}")(hyps, refs)
        theirs = getattr(sacrebleu, f"corpus_{name}")(hyps, refs)
        assert score.score == whole.score == result.score
        assert abs(whole.score - theirs.score) <= TOLERANCE
        assert result.stats == whole.stats
        assert result.signature == whole.signature


def test_totals_pickle_and_add_up_to_the_whole() -> None:
    hyps, refs = adversarial(32, 180, 1)
    halves = []
    for part in (slice(0, 77), slice(77, 180)):
        scorer = bleustream.Scorer(_all_specs())
        scorer.update(hyps[part], [r[part] for r in refs])
        halves.append(pickle.loads(pickle.dumps(scorer.stats)))
    whole = bleustream.Scorer(_all_specs())
    whole.update(hyps, refs)
    added = halves[0] + halves[1]
    assert isinstance(added, bleustream.Totals)
    assert added == whole.stats
    assert added.segments == 180
    merged = bleustream.Scorer(_all_specs())
    merged.merge(halves[1])
    merged.merge(halves[0])
    assert [s.score for s in merged.score()] == [s.score for s in whole.score()]
    assert pickle.loads(pickle.dumps(bleustream.spec("bleu", tokenize="char"))) == (
        bleustream.spec("bleu", tokenize="char")
    )


def test_totals_of_other_metrics_or_settings_do_not_add() -> None:
    a, b = bleustream.Scorer([bleustream.spec("bleu")]), bleustream.Scorer(_all_specs())
    a.update(["a b c"], [["a b c"]])
    b.update(["a b c"], [["a b c"]])
    if len(METRICS) > 1:
        with pytest.raises(ValueError):
            a.stats + b.stats
    five = bleustream.Scorer([bleustream.spec("bleu", max_ngram_order=5)])
    five.update(["a b c"], [["a b c"]])
    with pytest.raises(ValueError):
        a.stats + five.stats
    with pytest.raises(ValueError):
        bleustream.Scorer([])


# ----------------------------------------------------------------------------
# The API and the command line
# ----------------------------------------------------------------------------

_NOT_IN_A_LINE = re.compile("[\n\r\ud800-\udfff]")


def test_api_numbers_are_the_command_lines(tmp_path: Path) -> None:
    """``-f jsonl`` scores and signatures, ``-f stats`` statistics: the API's, exactly."""
    hyps, refs = adversarial(41, 300, 2)
    hyps = [_NOT_IN_A_LINE.sub(" ", h).rstrip() for h in hyps]
    refs = [[_NOT_IN_A_LINE.sub(" ", r).rstrip() for r in stream] for stream in refs]
    for name, lines in (("hyp", hyps), ("ref.0", refs[0]), ("ref.1", refs[1])):
        with open(tmp_path / name, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(f"{line}\n" for line in lines)
    args = ("--no-config", "ref.0", "ref.1", "-i", "hyp", "-m", *METRICS)
    as_json = run(*args, "-f", "jsonl", cwd=tmp_path)
    as_stats = run(*args, "-f", "stats", cwd=tmp_path)
    assert as_json.returncode == as_stats.returncode == 0, as_json.stderr
    records = [json.loads(line) for line in as_json.stdout.decode().splitlines()]
    (stats_record,) = [json.loads(line) for line in as_stats.stdout.decode().splitlines()]
    assert len(records) == len(METRICS)
    for name, record, entry in zip(METRICS, records, stats_record["metrics"]):
        ours = getattr(bleustream, f"corpus_{name}")(hyps, refs)
        assert record["score"] == ours.score
        assert record["signature"] == ours.signature
        assert record["name"] == ours.name
        assert entry["metric"] == name
        assert tuple(entry["stats"]) == ours.stats


def test_systems_that_agree_on_a_segment_get_their_own_rows() -> None:
    """A hypothesis two systems share is counted once; each system's rows are
    still those of the hypothesis it gave, against SacreBLEU's statistics."""
    from bleustream.scorer import Scorer

    specs = tuple(bleustream.spec(m) for m in ("bleu", "chrf", "ter"))
    hyps = ("the cat sat on the mat", "a cat on a mat", "the cat sat on the mat", "")
    refs = ("the cat is on the mat", "there is a cat on the mat")
    rows = Scorer(specs, len(hyps)).count(hyps, refs)
    assert rows[0] == rows[2] != rows[1]
    oracles = (BLEU(), CHRF(), TER())
    for hyp, system_rows in zip(hyps, rows):
        for ours, oracle in zip(system_rows, oracles):
            theirs = oracle._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
            assert list(ours) == list(theirs)


# ----------------------------------------------------------------------------
# SacreBLEU's classes, score objects and signatures
# ----------------------------------------------------------------------------

HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]

CLASS_CASES = [
    ("BLEU", {}),
    ("BLEU", {"tokenize": "intl", "lowercase": True, "max_ngram_order": 3}),
    ("BLEU", {"smooth_method": "add-k", "effective_order": True}),
    ("BLEU", {"smooth_method": "floor", "smooth_value": 0.2}),
    ("BLEU", {"trg_lang": "zh"}),
    ("CHRF", {}),
    ("CHRF", {"word_order": 2, "beta": 1, "whitespace": True}),
    ("CHRF", {"lowercase": True, "eps_smoothing": True}),
    ("TER", {}),
    ("TER", {"normalized": True, "no_punct": True, "case_sensitive": True}),
]


def _public_attributes(score: Any) -> dict[str, Any]:
    names = {k for k in vars(score) if not k.startswith("_")} | {"prec_str"}
    return {k: getattr(score, k) for k in sorted(names) if hasattr(score, k)}


@pytest.mark.parametrize("name, kwargs", CLASS_CASES, ids=lambda x: str(x))
def test_classes_are_sacrebleus(name: str, kwargs: Kwargs) -> None:
    """Attributes, str(), format() and signatures of every score, corpus and
    sentence, against SacreBLEU's class with the same arguments."""
    ours_metric = getattr(bleustream, name)(**kwargs)
    theirs_metric = getattr(sacrebleu, name)(**kwargs)
    assert getattr(bleustream.metrics, name) is type(ours_metric)
    calls = (("corpus_score", HYPS, REFS), ("sentence_score", HYPS[1], [REFS[0][1]]))
    for method, hyps, refs in calls:
        ours = getattr(ours_metric, method)(hyps, refs)
        theirs = getattr(theirs_metric, method)(hyps, refs)
        theirs_attributes = _public_attributes(theirs)
        ours_attributes = {k: getattr(ours, k) for k in theirs_attributes}
        assert ours_attributes == theirs_attributes
        assert type(ours).__name__ == type(theirs).__name__
        assert str(ours) == str(theirs)
        ours_sig, theirs_sig = ours_metric.get_signature(), theirs_metric.get_signature()
        # bleustream's one field of its own: the order, when it is not 4.
        order = f"|order:{kwargs['max_ngram_order']}" if "max_ngram_order" in kwargs else ""
        assert without_version(str(ours_sig)) == without_version(str(theirs_sig)) + order
        short = ours_sig.format(short=True)
        assert short.rsplit("|", 1)[0] == theirs_sig.format(short=True).rsplit("|", 1)[0] + order
        assert short.endswith(f"|v:bleustream-{bleustream.__version__}")
        signature = without_version(str(theirs_sig))
        for args in ((3,), (1, True), (2, False, signature), (2, False, signature, True)):
            assert ours.format(*args) == theirs.format(*args)
        assert ours.signature == str(ours_sig)


def test_reference_cache_and_signature_before_scoring() -> None:
    bleu = bleustream.BLEU(references=REFS)
    with pytest.raises(ValueError, match="Number of references unknown"):
        bleustream.TER().get_signature()
    assert bleu.corpus_score(HYPS, None).score == sacrebleu.BLEU().corpus_score(HYPS, REFS).score
    assert str(bleu.get_signature()).startswith("nrefs:2|")
    with pytest.raises(RuntimeError, match="cache is empty"):
        bleustream.CHRF().corpus_score(HYPS, None)


def test_compute_bleu_and_raw_corpus_bleu() -> None:
    args = ([9, 7, 5, 3], [10, 8, 6, 4], 11, 11)
    assert str(bleustream.BLEU.compute_bleu(*args)) == str(BLEU.compute_bleu(*args))
    ours = bleustream.BLEU.compute_bleu([3, 0, 0, 0], [5, 4, 3, 2], 5, 6, "add-k")
    theirs = BLEU.compute_bleu([3, 0, 0, 0], [5, 4, 3, 2], 5, 6, "add-k")
    assert (ours.score, ours.counts, ours.totals) == (theirs.score, theirs.counts, theirs.totals)
    assert str(bleustream.raw_corpus_bleu(HYPS, REFS)) == str(sacrebleu.raw_corpus_bleu(HYPS, REFS))


@pytest.mark.parametrize("name", ["BLEU", "CHRF", "TER"])
def test_corpus_score_with_a_bootstrap(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    hyps, refs = adversarial(61, 40, 2)
    ours_metric, theirs_metric = getattr(bleustream, name)(), getattr(sacrebleu, name)()
    ours = ours_metric.corpus_score(hyps, refs, n_bootstrap=200)
    theirs = theirs_metric.corpus_score(hyps, refs, n_bootstrap=200)
    assert (ours._mean, ours._ci) == (theirs._mean, theirs._ci)
    assert str(ours) == str(theirs)
    assert "|bs:200|seed:7|" in str(ours_metric.get_signature())
    assert without_version(str(ours_metric.get_signature())) == without_version(
        str(theirs_metric.get_signature())
    )


def test_functions_return_the_classes_scores() -> None:
    assert isinstance(bleustream.corpus_bleu(HYPS, REFS), bleustream.metrics.BLEUScore)
    assert isinstance(bleustream.sentence_chrf(HYPS[0], [REFS[0][0]]), bleustream.metrics.CHRFScore)
    assert isinstance(bleustream.corpus_ter(HYPS, REFS), bleustream.metrics.TERScore)
    assert str(bleustream.corpus_bleu(HYPS, REFS)) == str(sacrebleu.corpus_bleu(HYPS, REFS))


# ----------------------------------------------------------------------------
# Scorer forms, spec names, misuse
# ----------------------------------------------------------------------------


def test_scorer_takes_names_specs_and_metric_objects() -> None:
    default = bleustream.Scorer()
    assert default.specs == (bleustream.spec("bleu"),) == bleustream.Scorer(["bleu"]).specs
    both = bleustream.Scorer("bleu", "chrf")
    assert [s.name for s in both.specs] == ["bleu", "chrf"]
    intl = bleustream.Scorer(bleustream.BLEU(tokenize="intl"))
    assert intl.specs == (bleustream.spec("bleu", tokenize="intl"),)
    assert bleustream.Scorer([bleustream.spec("ter")], 2).systems == 2
    assert both.nrefs is None
    both.update(HYPS, REFS)
    assert both.nrefs == 2
    for ours, theirs in zip(both.score(), (sacrebleu.BLEU(), sacrebleu.CHRF())):
        expected = theirs.corpus_score(HYPS, REFS)
        assert str(ours) == str(expected)
        assert without_version(ours.signature) == without_version(str(theirs.get_signature()))
    assert [str(s) for s in bleustream.scores(both)] == [str(s) for s in both.score()]


def test_scorer_nrefs_from_merged_statistics() -> None:
    part = bleustream.Scorer("chrf")
    part.update(HYPS, REFS[:1])
    whole = bleustream.Scorer("chrf")
    whole.merge(part.stats)
    assert whole.nrefs is None and whole.score()[0].signature == ""
    whole.merge(part.stats, nrefs=1)
    assert whole.score()[0].signature.startswith("nrefs:1|")
    whole.update(HYPS, REFS)
    assert whole.score()[0].signature.startswith("nrefs:var|")


def test_spec_takes_sacrebleus_keywords() -> None:
    assert bleustream.spec("chrf", word_order=2).settings.word_order == 2
    assert bleustream.spec("ter", normalized=True).settings.normalized
    assert bleustream.spec("bleu", smooth_method="floor").settings.smooth_method == "floor"
    with pytest.raises(TypeError, match="SacreBLEU's: char_order, word_order"):
        bleustream.spec("chrf", chrf_word_order=2)


def test_misuse_says_what_was_expected() -> None:
    with pytest.raises(TypeError, match="a metric is a name"):
        bleustream.Scorer(3.5)
    with pytest.raises(TypeError, match="a metric is named by a string"):
        bleustream.spec(bleustream.BLEU())  # type: ignore[arg-type]
    scorer = bleustream.Scorer()
    with pytest.raises(TypeError, match=r"pass \[refs\]"):
        scorer.update(["a b", "c d"], ["ab", "cd"])
    with pytest.raises(TypeError, match="sequence of reference streams"):
        scorer.update(["a b"], "a b")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reference stream 0 has 1 segments"):
        bleustream.CHRF().corpus_score(["a", "b"], [["a"]])
    with pytest.raises(TypeError, match="BLEU: The argument `hyp` should be a string"):
        bleustream.BLEU().sentence_score(["a"], ["a"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="merge"):
        scorer.merge("stats")  # type: ignore[arg-type]
