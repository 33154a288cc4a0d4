"""The reward functions (``bleustream.rewards``) against SacreBLEU, called as
TRL and verl call them; and the chrF and TER batches they run on.

TRL 1.16.0 (``trl/trainer/grpo_trainer.py`` of its wheel) calls every
reward function in ``_calculate_rewards`` as

    reward_func(prompts=prompts, completions=completions,
                completion_ids=completion_ids_list, **reward_kwargs)

(lines 1626-1627), where ``reward_kwargs`` holds every dataset column but
``prompt``, ``completion`` and ``completion_ids`` as a list with one item
per completion (lines 1584-1585), then ``trainer_state`` (1588),
``log_extra`` (1591) and ``log_metric`` (1594).  Completions are strings,
or for a conversational dataset one assistant message each:
``[{"role": "assistant", "content": content}]`` (line 2245).  TRL names a
reward by ``get_callable_name`` (``trl/trainer/utils.py`` line 236): its
``__name__``.

verl 0.9.1's ``NaiveRewardManager`` (``verl/workers/reward_manager/naive.py``)
calls ``compute_score(data_source=..., solution_str=..., ground_truth=...,
extra_info=...)`` (lines 131-136), ``extra_info`` being the sample's
dictionary with ``num_turns`` and ``rollout_reward_scores`` added (lines
123-127); a custom reward function's ``reward_kwargs`` are merged into the
keywords (``verl/trainer/ppo/reward.py`` lines 32-38).  The batch manager
(``verl/workers/reward_manager/batch.py`` lines 70-76) calls
``compute_score(data_sources=..., solution_strs=..., ground_truths=...,
extra_infos=..., **reward_kwargs)``.

Expected numbers are SacreBLEU's, computed here, compared by their bits.
The API tests run on whichever path the process uses (CI runs the suite
on both); the C twins (``chrf_rows``, ``chrf_scores``) are compared with
the pure code directly, on both paths too.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustream
from bleustream import kernels, rewards
from bleustream.metrics import chrf
from bleustream.metrics.registry import Spec
from bleustream.metrics.scores import CHRFScore
from tests.conftest import RealSet, read_refs, read_segments
from tests.helpers.adversarial import Adversary
from tests.helpers.native import bits, needs_kernel
from tests.helpers.paths import ROOT

HYPS = [
    "The cat sat on the mat.",
    "A quick brown fox jumps over the lazy dog",
    "",
    "Völlig anders, ganz und gar!",
    "the the the the",
]
REFS = [
    "The cat is sitting on the mat.",
    "The quick brown fox jumped over the lazy dog.",
    "Nothing here.",
    "Völlig anders.",
    "the cat",
]


def _sacrebleu(metric: str, hyp: str, refs: list[str], **kw: Any) -> float:
    if metric == "bleu":
        return sacrebleu.sentence_bleu(hyp, refs, **kw).score  # type: ignore[no-any-return]
    if metric == "ter":
        return sacrebleu.sentence_ter(hyp, refs, **kw).score  # type: ignore[no-any-return]
    return sacrebleu.sentence_chrf(hyp, refs, **kw).score  # type: ignore[no-any-return]


def _want(metric: str, hyp: str, refs: list[str], scale: int = 1, **kw: Any) -> float:
    """SacreBLEU's score with the documented scaling, written out here."""
    score = _sacrebleu(metric, hyp, refs, **kw)
    if metric == "ter":
        return 1 - score / 100 if scale == 1 else 100 - score
    return score / 100 if scale == 1 else score


def _same(got: list[float], want: list[float]) -> None:
    assert [bits(x) for x in got] == [bits(x) for x in want]


class _State:
    """Stands for TRL's ``TrainerState``, which a reward may ignore."""

    global_step = 3


def _trl_call(func: Any, completions: list[Any], **columns: Any) -> list[float]:
    """``func`` called with the keywords TRL 1.16.0's GRPOTrainer passes."""
    logged: list[Any] = []
    reward_kwargs = {key: list(value) for key, value in columns.items()}
    reward_kwargs["trainer_state"] = _State()
    reward_kwargs["log_extra"] = lambda *a, **k: logged.append((a, k))
    reward_kwargs["log_metric"] = lambda *a, **k: logged.append((a, k))
    out = func(
        prompts=[f"Translate: {i}" for i in range(len(completions))],
        completions=completions,
        completion_ids=[[1, 2, 3] for _ in completions],
        **reward_kwargs,
    )
    assert not logged  # a reward logs nothing of its own
    return out  # type: ignore[no-any-return]


# -- TRL's call --------------------------------------------------------------


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_trl_rewards_equal_sacrebleu(name: str) -> None:
    func = getattr(rewards, name)
    got = _trl_call(func, HYPS, reference=REFS, source=["x"] * len(HYPS))
    _same(got, [_want(name, h, [r]) for h, r in zip(HYPS, REFS)])
    assert all(type(x) is float for x in got)
    assert func.__name__ == name


def test_conversational_completions_score_the_last_assistant_message() -> None:
    completions = [[{"role": "assistant", "content": h}] for h in HYPS]
    _same(
        _trl_call(rewards.bleu, completions, reference=REFS),
        [_want("bleu", h, [r]) for h, r in zip(HYPS, REFS)],
    )
    # A tool-using turn: the last assistant message is the answer.
    turn = [
        {"role": "assistant", "content": "let me look", "tool_calls": [{"name": "f"}]},
        {"role": "tool", "content": "The cat is sitting on the mat."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "The cat sat "},
                {"type": "text", "text": "on the mat."},
            ],
        },
    ]
    _same(_trl_call(rewards.chrf, [turn], reference=[REFS[0]]), [_want("chrf", HYPS[0], [REFS[0]])])


def test_several_references_a_sample_in_one_batch() -> None:
    refs = [
        [REFS[0], "A cat sat on a mat."],
        REFS[1],
        [REFS[2]],
        [REFS[3], "Anders.", "Ganz anders!"],
        (REFS[4],),
    ]
    for name in ("bleu", "chrf", "ter"):
        got = _trl_call(getattr(rewards, name), HYPS, reference=refs)
        lists = [[r] if isinstance(r, str) else list(r) for r in refs]
        _same(got, [_want(name, h, r) for h, r in zip(HYPS, lists)])


def test_reward_with_settings_column_and_scale() -> None:
    chrf_pp = rewards.reward("chrf", column="target", scale=100, word_order=2)
    got = _trl_call(chrf_pp, HYPS, target=REFS, reference=["ignored"] * len(HYPS))
    _same(got, [_want("chrf", h, [r], 100, word_order=2) for h, r in zip(HYPS, REFS)])
    _same(
        _trl_call(rewards.reward("chrf++"), HYPS, reference=REFS),
        [_want("chrf", h, [r], word_order=2) for h, r in zip(HYPS, REFS)],
    )
    ter100 = rewards.reward("ter", scale=100, case_sensitive=True)
    _same(
        _trl_call(ter100, HYPS, reference=REFS),
        [_want("ter", h, [r], 100, case_sensitive=True) for h, r in zip(HYPS, REFS)],
    )
    bleu_intl = rewards.reward("bleu", tokenize="intl", smooth_method="floor", smooth_value=0.1)
    _same(
        _trl_call(bleu_intl, HYPS, reference=REFS),
        [
            _want("bleu", h, [r], tokenize="intl", smooth_method="floor", smooth_value=0.1)
            for h, r in zip(HYPS, REFS)
        ],
    )


def test_ter_reward_grows_as_edits_fall() -> None:
    ref = "one two three four five"
    hyps = [
        "one two three four five",
        "one two three four",
        "one two",
        "six seven eight nine ten eleven twelve",
    ]
    got = _trl_call(rewards.ter, hyps, reference=[ref] * len(hyps))
    assert got[0] == 1.0
    assert got == sorted(got, reverse=True) and len(set(got)) == len(got)
    assert got[-1] < 0  # past 100% TER: not clipped, still ranked


def test_rewards_pickle_and_keep_their_settings() -> None:
    made = rewards.reward("chrf", column="target", word_order=2)
    back = pickle.loads(pickle.dumps(made))
    assert (
        back.__name__ == "chrf" and back.column == "target" and back.settings == {"word_order": 2}
    )
    assert back(completions=HYPS, target=REFS) == made(completions=HYPS, target=REFS)
    assert "word_order=2" in repr(made)


def test_reward_errors_are_clear() -> None:
    with pytest.raises(ValueError, match=r"column 'reference'.*keywords: prompts, target"):
        rewards.bleu(prompts=["p"], completions=["a"], target=["a"])
    with pytest.raises(ValueError, match="2 completions, but 1 items"):
        rewards.bleu(completions=["a", "b"], reference=["a"])
    with pytest.raises(ValueError, match="unknown metric 'meteor'"):
        rewards.reward("meteor")
    with pytest.raises(ValueError, match="scale must be 1"):
        rewards.reward("bleu", scale=10)
    with pytest.raises(TypeError, match="tokenise"):
        rewards.reward("bleu", tokenise="13a")
    with pytest.raises(ValueError, match="completion 0: a conversation with no assistant message"):
        rewards.bleu(completions=[[{"role": "user", "content": "hi"}]], reference=["hi"])
    with pytest.raises(ValueError, match="sample 1: no reference"):
        rewards.bleu(completions=["a", "b"], reference=["a", []])
    with pytest.raises(TypeError, match="sample 0: a reference is a string or a list of strings"):
        rewards.bleu(completions=["a"], reference=[None])
    with pytest.raises(TypeError, match="completion 0: a string or a list of messages"):
        rewards.bleu(completions=[3], reference=["a"])


# -- verl's call -------------------------------------------------------------


def test_verl_compute_score_equals_sacrebleu() -> None:
    for hyp, ref in zip(HYPS, REFS):
        extra_info = {"split": "train", "index": 0, "num_turns": None, "rollout_reward_scores": {}}
        got = rewards.compute_score(
            data_source="wmt", solution_str=hyp, ground_truth=ref, extra_info=extra_info
        )
        _same([got], [_want("bleu", hyp, [ref])])
        extra_info["metric"] = "ter"
        got = rewards.compute_score(
            data_source="wmt", solution_str=hyp, ground_truth=[ref, "x y"], extra_info=extra_info
        )
        _same([got], [_want("ter", hyp, [ref, "x y"])])


def test_verl_reward_kwargs_name_the_metric_and_settings() -> None:
    # verl's _call_with_kwargs: {**kwargs, **reward_kwargs}
    reward_kwargs = {"metric": "chrf", "word_order": 2, "scale": 100}
    for hyp, ref in zip(HYPS, REFS):
        kwargs = {"data_source": "wmt", "solution_str": hyp, "ground_truth": ref, "extra_info": {}}
        got = rewards.compute_score(**{**kwargs, **reward_kwargs})
        _same([got], [_want("chrf", hyp, [ref], 100, word_order=2)])


def test_verl_batch_compute_scores() -> None:
    infos = [
        {"metric": "chrf"},
        {},
        {"metric": "ter"},
        {"rollout_reward_scores": {}},
        {"metric": "chrf++"},
    ]
    truths = [REFS[0], [REFS[1], "The fox."], REFS[2], [REFS[3]], REFS[4]]
    got = rewards.compute_scores(
        data_sources=["wmt"] * 5, solution_strs=HYPS, ground_truths=truths, extra_infos=infos
    )
    want = [
        _want("chrf", HYPS[0], [REFS[0]]),
        _want("bleu", HYPS[1], [REFS[1], "The fox."]),
        _want("ter", HYPS[2], [REFS[2]]),
        _want("bleu", HYPS[3], [REFS[3]]),
        _want("chrf", HYPS[4], [REFS[4]], word_order=2),
    ]
    _same(got, want)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"extra_infos": [None]}, "2 solutions, but 1 extra_infos"),  # once scored 0.0
        ({"extra_infos": [None] * 3}, "2 solutions, but 3 extra_infos"),  # once an IndexError
        ({"data_sources": ["d"]}, "2 solutions, but 1 data sources"),
        ({"ground_truths": ["the cat"] * 3}, "2 solutions, but 3 ground truths"),
    ],
)
def test_verl_batch_arguments_of_other_lengths_are_refused(
    arguments: dict[str, Any], message: str
) -> None:
    """Every list verl passes holds one item a sample: one of another length
    is a ValueError naming both lengths, never a sample scored 0.0 unseen."""
    call = {
        "data_sources": ["d", "d"],
        "solution_strs": ["the cat", "the cat"],
        "ground_truths": ["the cat"] * 2,
        **arguments,
    }
    with pytest.raises(ValueError, match=message):
        rewards.compute_scores(**call)
    whole = {"extra_infos": [None, None], "data_sources": ["d", "d"]}
    call.update({k: v for k, v in whole.items() if k in arguments})
    call["ground_truths"] = ["the cat"] * 2
    want = _want("bleu", "the cat", ["the cat"])
    _same(rewards.compute_scores(**call), [want, want])


def test_reward_batch_of_other_lengths_is_refused() -> None:
    with pytest.raises(ValueError, match="2 hypotheses, but 1 lists of references"):
        rewards.bleu.batch(["the cat", "a dog"], [["the cat"]])
    with pytest.raises(ValueError, match="1 hypotheses, but 2 lists of references"):
        rewards.chrf.batch(["the cat"], [["the cat"], ["a dog"]])
    _same(rewards.ter.batch(["the cat"], [["the cat"]]), [_want("ter", "the cat", ["the cat"])])


# -- the batches rewards run on: chrF, chrF++ and TER against SacreBLEU -------

BATCH_SETTINGS = [
    ("chrf", {}),
    ("chrf", {"word_order": 2}),
    ("chrf", {"word_order": 1, "char_order": 4, "beta": 1, "eps_smoothing": True}),
    ("chrf", {"beta": 0, "remove_whitespace": False}),
    ("ter", {}),
    ("ter", {"normalized": True, "no_punct": True, "case_sensitive": True}),
]


def _batch_against_sacrebleu(
    metric: str, kw: dict[str, Any], hyps: list[str], streams: list[list[str]]
) -> None:
    got = bleustream.sentence_scores(metric, hyps, streams, **kw)
    for i, hyp in enumerate(hyps):
        refs = [stream[i] for stream in streams]
        want = _sacrebleu(metric, hyp, refs, **kw)
        assert bits(got[i].score) == bits(want), (metric, kw, hyp, refs)


@pytest.mark.parametrize(("metric", "kw"), BATCH_SETTINGS)
@pytest.mark.parametrize("nrefs", [1, 3])
def test_batch_equals_sacrebleu_on_adversarial_text(
    metric: str, kw: dict[str, Any], nrefs: int
) -> None:
    hyps, streams = Adversary(seed=40 + nrefs).corpus(60 if metric == "chrf" else 25, nrefs)
    _batch_against_sacrebleu(metric, kw, hyps, streams)


@pytest.mark.parametrize(
    ("metric", "kw", "lines"),
    [("chrf", {}, 150), ("chrf", {"word_order": 2}, 150), ("ter", {}, 30)],
)
def test_batch_equals_sacrebleu_on_real_data(
    real_set: RealSet, metric: str, kw: dict[str, Any], lines: int
) -> None:
    streams = [list(s[:lines]) for s in read_refs(real_set)]
    hyps = list(read_segments(real_set.hyps[0])[:lines])
    _batch_against_sacrebleu(metric, kw, hyps, streams)


# -- the C twins against the pure code ----------------------------------------


def _native() -> ModuleType:
    if kernels.pure_python_forced():
        return importlib.import_module("bleustream._native._kernels")
    assert kernels.native is not None
    return kernels.native


CHRF_SETTINGS = [
    chrf.Settings(),
    chrf.Settings(word_order=2),
    chrf.Settings(char_order=3, word_order=1, beta=0, whitespace=True),
    chrf.Settings(char_order=0, word_order=2, beta=3, eps_smoothing=True),
    chrf.Settings(char_order=6, word_order=2, eps_smoothing=True, lowercase=True),
]


def _pure_rows(
    settings: chrf.Settings, hyps: list[str], refs: list[list[str]]
) -> list[tuple[int, ...]]:
    prepare, count = chrf.py_prepare_refs(settings), chrf.py_count(settings)
    return [count(h, prepare(r)) for h, r in zip(hyps, refs)]


def _compare_objects(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w) is CHRFScore
        assert list(vars(g)) == list(vars(w))
        for key in vars(w):
            a, b = getattr(g, key), getattr(w, key)
            assert bits(a) == bits(b) if type(b) is float else (type(a), a) == (type(b), b), key


@needs_kernel
@pytest.mark.parametrize("settings_", CHRF_SETTINGS, ids=repr)
def test_c_chrf_rows_and_objects_equal_the_pure_code(settings_: chrf.Settings) -> None:
    native = _native()
    adversary = Adversary(seed=7)
    hyps, refs = [], []
    for n in (1, 1, 2, 4) * 15:
        hyp, segment = adversary.segment(n)
        hyps.append(hyp)
        refs.append(segment)
    want_rows = _pure_rows(settings_, hyps, refs)
    lower = settings_.lowercase
    got_rows = native.chrf_rows(
        [h.lower() for h in hyps] if lower else hyps,
        [[r.lower() for r in rs] for rs in refs] if lower else refs,
        settings_.char_order,
        settings_.word_order,
        settings_.whitespace,
        settings_.beta,
        settings_.eps_smoothing,
    )
    assert got_rows == want_rows and all(type(r) is tuple for r in got_rows)
    spec = Spec(chrf, settings_)
    fixed = (settings_.char_order, settings_.word_order, settings_.beta, settings_.eps_smoothing)
    got = native.chrf_scores(want_rows, *fixed, CHRFScore, "sig", spec.score_object)
    _compare_objects(got, [spec.score_object(row, "sig") for row in want_rows])


@needs_kernel
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(CHRF_SETTINGS),
    st.lists(
        st.integers(min_value=-(2**54), max_value=2**54) | st.sampled_from([0, 1, 2, 3]),
        min_size=0,
        max_size=30,
    ),
)
def test_c_chrf_scores_on_arbitrary_rows(settings_: chrf.Settings, numbers: list[int]) -> None:
    """Any row, exact ints or not, small or past 2**53, of any length: the
    C object is the pure one, or the pure code's own error."""
    native = _native()
    width = 3 * settings_.order
    row = tuple((numbers * width)[:width]) if numbers else (0,) * width
    rows: list[Any] = [row, tuple(abs(x) % 50 for x in row), row[:-1], list(row), (*row[:-1], 2.0)]
    spec = Spec(chrf, settings_)
    calls: list[Any] = []

    def one(r: Any, signature: str) -> Any:
        calls.append(r)
        return spec.score_object(r, signature)

    fixed = (settings_.char_order, settings_.word_order, settings_.beta, settings_.eps_smoothing)
    for r in rows:
        try:
            want = [spec.score_object(r, "s")]
        except Exception as exc:  # the pure code's error, raised by the C call too
            with pytest.raises(type(exc), match=None):
                native.chrf_scores([r], *fixed, CHRFScore, "s", one)
            continue
        _compare_objects(native.chrf_scores([r], *fixed, CHRFScore, "s", one), want)
    exact = all(abs(x) <= 2**53 for x in row)
    # the C code scores exact rows itself, and passes the others to the pure code
    assert any(r is rows[0] for r in calls) == (not exact)


@needs_kernel
def test_c_chrf_batches_refuse_bad_arguments() -> None:
    native = _native()
    with pytest.raises(TypeError, match="a hypothesis must be str"):
        native.chrf_rows([b"x"], [["x"]], 6, 0, False, 2, False)
    with pytest.raises(ValueError, match="a segment needs at least one reference"):
        native.chrf_rows(["x"], [[]], 6, 0, False, 2, False)
    with pytest.raises(ValueError, match="1 hypotheses, references of 2 segments"):
        native.chrf_rows(["x"], [["x"], ["y"]], 6, 0, False, 2, False)
    with pytest.raises(ValueError, match="orders cannot both be 0"):
        native.chrf_rows(["x"], [["x"]], 0, 0, False, 2, False)
    with pytest.raises(TypeError, match="cls must be a class"):
        native.chrf_scores([], 6, 0, 2, False, int, "", print)


def test_sentence_scores_chrf_uses_one_batch_call_with_the_kernels() -> None:
    scoring = bleustream.api._batch_scoring("chrf", {"word_order": 2})  # type: ignore[attr-defined]
    compiled = kernels.native is not None
    assert (scoring.lines.__module__ == "bleustream.metrics.chrf_batches") is compiled
    assert (scoring.spec.made_objects.__module__ == "bleustream.metrics.chrf_batches") is compiled


# -- the example: TRL's GRPO trainer with rewards.bleu --------------------------

EXAMPLE = ROOT / "examples" / "trl_grpo_bleu.py"


@pytest.mark.slow
def test_trl_grpo_example_trains_with_the_bleu_reward(tmp_path: Path) -> None:
    """The example, as a user runs it: two GRPO steps of a tiny model, each
    logging the mean of rewards.bleu's values, which TRL logs only from
    what the reward returned."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--max-steps", "2", "--output-dir", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    logged = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"step"')]
    assert [entry["step"] for entry in logged] == [1, 2], done.stdout[-3000:]
    assert all(0.0 <= entry["bleu_reward"] <= 1.0 for entry in logged)
