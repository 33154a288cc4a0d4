"""Rewards for reinforcement learning: SacreBLEU's sentence scores as the
reward functions TRL's trainers and verl call.

``bleu``, ``chrf`` and ``ter`` are rewards that TRL's trainers (``GRPOTrainer``,
``RLOOTrainer``...) take in ``reward_funcs`` as they are: TRL calls each with
the keyword arguments ``prompts``, ``completions``, ``completion_ids``, every
other dataset column as a list (one item per completion), ``trainer_state``
and a few more; a reward reads ``completions`` and its reference column,
``reference`` by default, and returns one float per completion::

    from bleustream import rewards
    trainer = GRPOTrainer(model=..., reward_funcs=[rewards.bleu, rewards.chrf], ...)

``reward(metric, column=..., scale=..., **settings)`` makes one with other
settings: the keywords of ``sentence_bleu``, ``sentence_chrf`` or
``sentence_ter`` (``reward("chrf", word_order=2)`` is chrF++, also called
``reward("chrf++")``).

* A completion is a string, or a conversation (a list of ``{"role",
  "content"}`` messages, as TRL passes completions of a conversational
  dataset): its last assistant message's content is scored.
* A sample's reference is a string, or a list of strings (several
  references), in the dataset column named by ``column``.
* ``scale=1`` (the default) gives BLEU and chrF as fractions, 0 to 1;
  ``scale=100`` gives SacreBLEU's percentages.  0 to 1 is the default
  because the rewards a reward is summed with (TRL's ``reward_weights``)
  are mostly on that scale: a format check's 0 or 1, an accuracy, a
  reward model's probability; on it, a weight means the same for each.
* TER counts edits, so lower is better; its reward is ``1 - TER/100``
  (``100 - TER`` with ``scale=100``): 1 for a completion equal to its
  reference, falling by the same step for each edit.  It is not clipped
  at 0: TER goes past 100 when a completion needs more edits than the
  reference has words, as a fresh model's completions often do, and GRPO
  compares the completions of a prompt with each other, so a clip would
  make all such completions equal and leave the model nothing to learn
  from.

Each reward is SacreBLEU's sentence score of its completion
(``sacrebleu.sentence_bleu(completion, refs, **settings).score``), to the
last bit, then the scaling above: ``score / 100`` or ``1 - score / 100``
(``score`` or ``100 - score`` at scale 100).  A batch is scored in one
``sentence_scores`` call per number of references (with the compiled
kernels, in C).  TRL turns rewards into float32 tensors: the bits are
exact up to that conversion.

``compute_score(data_source, solution_str, ground_truth, extra_info=None)``
is a reward in verl's form (its ``custom_reward_function``), BLEU unless
``extra_info`` (or a ``metric`` keyword, from verl's ``reward_kwargs``)
names another; ``compute_scores`` is the batch form verl's batch reward
manager calls.

``comet_kiwi(model, column="source")`` is a reward from a COMET model,
CometKiwi's kind (source and completion, no reference): the model loaded
once when the reward is made, each call one batch of forward passes
(the ``comet`` extra: PyTorch and transformers, imported then).

Nothing heavy is imported by the others: no PyTorch, no TRL, no verl.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any

from bleustream.api import sentence_bleu, sentence_chrf, sentence_scores, sentence_ter

DEFAULT_COLUMN = "reference"
DEFAULT_SCALE = 1
SCALES = (1, 100)

# Each metric a reward may name: the metric of sentence_scores, the
# settings its name implies, and whether a lower score is better.
METRICS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "bleu": ("bleu", {}, False),
    "chrf": ("chrf", {}, False),
    "chrf++": ("chrf", {"word_order": 2}, False),
    "ter": ("ter", {}, True),
}
_SENTENCE = {"bleu": sentence_bleu, "chrf": sentence_chrf, "ter": sentence_ter}


def _metric(metric: Any) -> tuple[str, dict[str, Any], bool]:
    found = METRICS.get(metric.lower()) if isinstance(metric, str) else None
    if found is None:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    return found


def _check_scale(scale: Any) -> float:
    if isinstance(scale, bool) or scale not in SCALES:
        raise ValueError(f"scale must be 1 (a fraction) or 100 (a percentage), not {scale!r}")
    return scale  # type: ignore[no-any-return]


def scaled(score: float, lower_is_better: bool, scale: float) -> float:
    """A metric's sentence score as a reward: ``score / 100`` or ``score``
    (BLEU, chrF), ``1 - score / 100`` or ``100 - score`` (TER)."""
    if scale == 100:
        return 100 - score if lower_is_better else score
    return 1 - score / 100 if lower_is_better else score / 100


def _same_length(first: Sized, what: str, other: Sized, other_what: str) -> None:
    """A ValueError naming both lengths unless two parallel arguments (one
    item a sample) have the same length: a short one would leave samples
    unscored, a long one score nothing."""
    if len(other) != len(first):
        raise ValueError(f"{len(first)} {what}, but {len(other)} {other_what}")


def completion_text(completion: Any, index: int = 0) -> str:
    """The text of a completion: a string as it is; of a conversation (a list
    of ``{"role", "content"}`` messages), the last assistant message's
    content (a string, or a list of parts whose ``text`` parts are joined)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                return _content_text(message.get("content"), index)
        raise ValueError(f"completion {index}: a conversation with no assistant message")
    raise TypeError(
        f"completion {index}: a string or a list of messages, not {type(completion).__name__}"
    )


def _content_text(content: Any, index: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [part for part in content if isinstance(part, Mapping)]
        if len(parts) == len(content):
            return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
    raise TypeError(
        f"completion {index}: an assistant message's content is a string or a list of "
        f"parts, not {type(content).__name__}"
    )


def references_of(value: Any, index: int = 0) -> list[str]:
    """A sample's references: a string, or a list (any sequence) of strings."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping)):
        refs = list(value)
        if refs and all(isinstance(ref, str) for ref in refs):
            return refs
        if not refs:
            raise ValueError(f"sample {index}: no reference")
    raise TypeError(
        f"sample {index}: a reference is a string or a list of strings, not {value!r:.80}"
    )


class Reward:
    """A reward function: ``reward(completions=..., <column>=..., **ignored)``
    gives one float per completion (see the module's text).  Made by
    ``reward()``; an instance pickles, as TRL's multi-process trainers may
    need, and its ``__name__`` is what TRL logs it by."""

    def __init__(
        self,
        metric: str,
        column: str = DEFAULT_COLUMN,
        scale: float = DEFAULT_SCALE,
        **settings: Any,
    ) -> None:
        name, implied, lower_is_better = _metric(metric)
        if not isinstance(column, str):
            raise TypeError(f"column must be a dataset column's name, not {column!r}")
        self.metric = name
        self.column = column
        self.scale = _check_scale(scale)
        self.settings = {**implied, **settings}
        self.lower_is_better = lower_is_better
        self.__name__ = metric.lower()
        sentence_scores(name, [], [], **self.settings)  # a bad keyword fails here

    def __repr__(self) -> str:
        settings = "".join(f", {key}={value!r}" for key, value in self.settings.items())
        return f"reward({self.metric!r}, column={self.column!r}, scale={self.scale!r}{settings})"

    def __call__(self, completions: Sequence[Any] = (), **columns: Any) -> list[float]:
        if self.column not in columns:
            known = ", ".join(sorted(columns)) or "none"
            raise ValueError(
                f"reward {self.__name__!r} reads the dataset column {self.column!r}, which the "
                f"trainer did not pass (its keywords: {known})"
            )
        column = columns[self.column]
        if isinstance(completions, str) or isinstance(column, str):
            raise TypeError("completions and the reference column are lists, one item a sample")
        completions, column = list(completions), list(column)
        _same_length(completions, "completions", column, f"items in column {self.column!r}")
        if all(type(c) is str for c in completions):  # the common case, read as it is
            hyps = completions
        else:
            hyps = [completion_text(c, i) for i, c in enumerate(completions)]
        if all(type(value) is str for value in column):  # one reference each
            return self._scaled(sentence_scores(self.metric, hyps, [column], **self.settings))
        return self.batch(hyps, [references_of(value, i) for i, value in enumerate(column)])

    def _scaled(self, found: Sequence[Any]) -> list[float]:
        lower, scale = self.lower_is_better, self.scale
        return [scaled(score.score, lower, scale) for score in found]

    def batch(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> list[float]:
        """The rewards of hypotheses against their references (``refs[i]``,
        those of ``hyps[i]``): one ``sentence_scores`` call per number of
        references."""
        _same_length(hyps, "hypotheses", refs, "lists of references")
        groups: dict[int, list[int]] = {}
        for i, segment in enumerate(refs):
            groups.setdefault(len(segment), []).append(i)
        rewards = [0.0] * len(hyps)
        for count, at in groups.items():
            streams = [[refs[i][j] for i in at] for j in range(count)]
            found = sentence_scores(self.metric, [hyps[i] for i in at], streams, **self.settings)
            for i, score in zip(at, found):
                rewards[i] = scaled(score.score, self.lower_is_better, self.scale)
        return rewards


def reward(
    metric: str, column: str = DEFAULT_COLUMN, scale: float = DEFAULT_SCALE, **settings: Any
) -> Reward:
    """A reward function for TRL: ``metric`` (``"bleu"``, ``"chrf"``,
    ``"chrf++"``, ``"ter"``) with the keywords of its ``sentence_*``
    function, the references read from the dataset column ``column``, on
    ``scale`` 1 or 100."""
    return Reward(metric, column, scale, **settings)


bleu = reward("bleu")
chrf = reward("chrf")
ter = reward("ter")


class ModelReward:
    """A reward from a COMET model (CometKiwi: the source and the completion,
    no reference): ``reward(completions=..., <source column>=...)`` gives
    each completion's segment score times ``scale``.  The model is loaded
    once, when the reward is made, and its batches are ``batch_size``
    completions sorted by length; ``cache`` keeps scores in an SQLite file
    (``--comet-cache``'s)."""

    def __init__(
        self,
        model: str,
        column: str = "source",
        scale: float = DEFAULT_SCALE,
        reference_column: str = DEFAULT_COLUMN,
        **settings: Any,
    ) -> None:
        from bleustream.metrics.metric_classes import spec

        self.spec = spec("comet", model=model, **settings)
        self.column, self.reference_column = column, reference_column
        self.scale = _check_scale(scale)
        self._rows = self.spec.metric.count_window(self.spec.settings)
        self.__name__ = "comet"

    def __call__(self, completions: Sequence[Any] = (), **columns: Any) -> list[float]:
        if self.column not in columns:
            known = ", ".join(sorted(columns)) or "none"
            raise ValueError(
                f"reward 'comet' reads the sources from the dataset column {self.column!r}, "
                f"which the trainer did not pass (its keywords: {known})"
            )
        sources = [str(value) for value in columns[self.column]]
        hyps = [completion_text(c, i) for i, c in enumerate(completions)]
        if len(sources) != len(hyps):
            raise ValueError(f"{len(hyps)} completions, but {len(sources)} sources")
        refs: list[Sequence[str]] = [()] * len(hyps)
        if self.reference_column in columns:
            refs = [references_of(v, i) for i, v in enumerate(columns[self.reference_column])]
        rows = self._rows([(s, (h,), r) for s, h, r in zip(sources, hyps, refs)])
        return [row[0][0] * self.scale for row in rows]


def comet_kiwi(
    model: str, column: str = "source", scale: float = DEFAULT_SCALE, **settings: Any
) -> ModelReward:
    """A CometKiwi reward for TRL (any COMET checkpoint: a reference-based
    one reads the ``reference`` column too): the model named by ``model``
    (a checkpoint directory or a Hugging Face id in the local cache), the
    sources read from the dataset column ``column``; ``settings`` are
    ``batch_size``, ``device``, ``cache`` and ``max_length``."""
    return ModelReward(model, column, scale, **settings)


def _verl_metric(extra_info: Any, metric: str | None) -> str:
    if isinstance(extra_info, Mapping) and extra_info.get("metric") is not None:
        return extra_info["metric"]  # type: ignore[no-any-return]
    return "bleu" if metric is None else metric


def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    metric: str | None = None,
    scale: float = DEFAULT_SCALE,
    **settings: Any,
) -> float:
    """verl's reward function: the reward of ``solution_str`` against
    ``ground_truth`` (a string or a list of strings).  The metric is
    ``extra_info["metric"]`` where the dataset gives one, else the
    ``metric`` keyword (verl's ``custom_reward_function.reward_kwargs``
    pass it, with the settings), else BLEU; ``data_source`` is not read."""
    name, implied, lower_is_better = _metric(_verl_metric(extra_info, metric))
    if not isinstance(solution_str, str):
        raise TypeError(f"solution_str must be a string, not {type(solution_str).__name__}")
    refs = references_of(ground_truth)
    score = _SENTENCE[name](solution_str, refs, **{**implied, **settings}).score
    return scaled(score, lower_is_better, _check_scale(scale))


def compute_scores(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    *,
    metric: str | None = None,
    scale: float = DEFAULT_SCALE,
    **settings: Any,
) -> list[float]:
    """``compute_score`` of a batch, in the form verl's batch reward manager
    calls: one list per argument; samples are scored in one batch call per
    metric and number of references."""
    _same_length(solution_strs, "solutions", ground_truths, "ground truths")
    if hasattr(data_sources, "__len__"):  # not read, but one a sample
        _same_length(solution_strs, "solutions", data_sources, "data sources")
    infos = [None] * len(solution_strs) if extra_infos is None else list(extra_infos)
    _same_length(solution_strs, "solutions", infos, "extra_infos")
    by_metric: dict[str, list[int]] = {}
    for i, info in enumerate(infos):
        by_metric.setdefault(_verl_metric(info, metric), []).append(i)
    out = [0.0] * len(solution_strs)
    for name, at in by_metric.items():
        scorer = Reward(name, scale=scale, **settings)
        hyps = [solution_strs[i] for i in at]
        if not all(isinstance(h, str) for h in hyps):
            raise TypeError("each solution must be a string")
        found = scorer.batch(hyps, [references_of(ground_truths[i], i) for i in at])
        for i, value in zip(at, found):
            out[i] = value
    return out


__all__ = [
    "DEFAULT_COLUMN",
    "DEFAULT_SCALE",
    "METRICS",
    "ModelReward",
    "Reward",
    "bleu",
    "chrf",
    "comet_kiwi",
    "completion_text",
    "compute_score",
    "compute_scores",
    "references_of",
    "reward",
    "ter",
]
