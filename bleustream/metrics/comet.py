"""COMET, a learned metric, from the user's own checkpoint (``-m comet``).

A metric module (see ``bleustream.metrics.protocol``) whose count is a
model's forward pass.  One metric, ``comet``, runs every family of
unbabel-comet's checkpoints: the checkpoint named by ``--comet-model`` (a
directory in unbabel-comet's layout, or a Hugging Face model id found in
the local cache) decides whether it reads the references (regression:
wmt22-comet-da, cometinho) or not (reference-free: CometKiwi), and how
it scores (unified: XCOMET).  The model is loaded by ``bleustream.comet``.

A segment's statistics are the row ``(score, 1)``: its segment score, and
one segment.  Rows add in input order, so the summed row of a corpus is
``(sum of the segment scores, segments)`` and its score their mean: the
``system_score`` of ``comet-score``, ``sum(scores) / len(scores)``, to the
bit.  A sentence score is the segment score itself.

The model scores segments a window at a time (``count_window``): the run
hands it a window of segments as they arrive; their texts are sorted by
length within the window and cut into batches of ``--comet-batch-size``,
as comet-score sorts its input, and each score goes back to its segment.
With ``--comet-cache FILE``, a segment already scored by the same model
(its ``identity``) is read back from the file and only the others go
through the model.

The settings a stats record carries are the model's ``identity`` alone (a
digest of its weights, its family, maximum length and precision): records
of different models or settings refuse to merge.  The signature's fields
(``about``) travel with them as scoring settings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

from bleustream.errors import InputError, UsageError
from bleustream.frozen import Frozen
from bleustream.metrics.comet_options import (  # noqa: F401 (the metric's surface)
    DEFAULT_BATCH_SIZE,
    DEVICES,
    NAME,
    NEEDS_SOURCE,
    OPTIONS,
    SCORE_ONLY,
    SCORE_ONLY_ONE_REF,
    TITLE,
    WINDOW_BATCHES,
)
from bleustream.metrics.protocol import (
    MAX_COUNT,
    CountBatch,
    Row,
    ScoreBatch,
    SumBatch,
    as_whole,
    decoded_blocks,
    each_score,
    option_values,
    sum_of_rows,
)
from bleustream.metrics.scores import SIGNATURE_VERSION, Score


class Settings(Frozen):
    """What decides a COMET score (``identity``, from the loaded model), the
    signature's fields (``about``, a JSON object), and how the run goes."""

    _OUTPUT = frozenset({"model", "max_length", "batch_size", "device", "cache"})
    identity: str = ""
    about: str = "{}"
    model: str = ""
    max_length: int | None = None  # in ``identity``
    batch_size: int = DEFAULT_BATCH_SIZE
    device: str = "auto"
    cache: str | None = None


@dataclass
class CometResult:
    """A COMET score (the mean of the segment scores) and its row; a
    segment's error spans where the model tags words (XCOMET)."""

    score: float
    row: Row
    segments: int
    spans: list[Any] | None = None


# Models loaded in this process, by (model, device, max length): loaded once.
_LOADED: dict[tuple[str, str, int | None], Any] = {}


def _device(device: str) -> str:
    if device != "auto":
        return device
    from bleustream.extras import require

    torch = require("torch", "-m comet", "torch", "comet")
    return "cuda" if torch.cuda.is_available() else "cpu"


def model_of(settings: Settings) -> Any:
    """The loaded model of the settings (``bleustream.comet.CometModel``)."""
    key = (settings.model, settings.device, settings.max_length)
    model = _LOADED.get(key)
    if model is None:
        if not settings.model:
            raise UsageError("-m comet needs a model: --comet-model PATH_OR_ID")
        from bleustream.comet import load_model

        model = load_model(
            settings.model, device=_device(settings.device), max_length=settings.max_length
        )
        _LOADED[key] = model
    return model


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The settings of resolved options, with the model loaded (once per
    process): its identity and signature fields are part of them."""
    values = option_values(options, OPTIONS)
    settings = Settings(
        model=values["comet_model"] or "",
        max_length=values["comet_max_length"],
        batch_size=int(values["comet_batch_size"]),
        device=values["comet_device"],
        cache=values["comet_cache"],
    )
    model = model_of(settings)
    about = dict(model.signature_fields)
    about.setdefault("refs", "yes" if model.needs_references else "no")
    return Settings(
        identity=model.identity,
        about=json.dumps(about, ensure_ascii=False),
        model=settings.model,
        max_length=settings.max_length,
        batch_size=settings.batch_size,
        device=settings.device,
        cache=settings.cache,
    )


def python_settings(**settings: Any) -> Settings:
    """The settings of ``bleustream.spec("comet", model=..., batch_size=...,
    device=..., cache=..., max_length=...)``, with the model loaded."""
    names = ("model", "batch_size", "device", "cache", "max_length")
    unknown = set(settings) - set(names)
    if unknown:
        raise TypeError(
            f"unknown comet settings: {', '.join(sorted(unknown))} ({', '.join(names)})"
        )
    return settings_from({f"comet_{name}": value for name, value in settings.items()})


def _about(settings: Settings) -> dict[str, str]:
    try:
        about = json.loads(settings.about)
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in about.items()} if isinstance(about, dict) else {}


def label(settings: Settings) -> str:
    return "COMET"


def row_size(settings: Settings) -> int:
    return 2


def check_row(
    row: Sequence[Any], settings: Settings, segments: int, nrefs: int | str
) -> str | None:
    """A finite sum of scores, and the number of segments it covers."""
    total, count = row
    if isinstance(total, bool) or not isinstance(total, (int, float)) or not math.isfinite(total):
        return f"the sum of segment scores must be a finite number, not {total!r}"
    whole = as_whole(count)
    if whole is None or not 0 <= whole <= MAX_COUNT or whole != segments:
        return f"the segments scored must be {segments}, as the record says, not {count!r}"
    return None


def from_record(row: Sequence[Any], settings: Settings) -> Row:
    return (float(row[0]), int(row[1]))


def prepare_refs(settings: Settings) -> Callable[[Sequence[str]], Sequence[str]]:
    """Nothing to prepare: the model reads the texts in ``count_window``."""
    return tuple


def count(settings: Settings) -> Callable[[str, Any], Row]:
    """A segment alone cannot be scored: it needs its source and a batch."""

    def alone(hyp: str, refs: Any) -> Row:
        raise ValueError("COMET scores segments with their sources, a batch at a time")

    return alone


@dataclass
class _Tally:
    """What the cache spared in this process, for the closing note."""

    cache: str | None
    passes_before: int
    read_back: int = 0
    scored: int = 0


_TALLIES: dict[Settings, _Tally] = {}


Segment = tuple[str, Sequence[str], Sequence[str]]  # source, hypotheses per system, references


def count_window(settings: Settings) -> Callable[[Sequence[Segment]], list[list[Row]]]:
    """Rows of a window of segments, per segment and system: cached scores
    read back, the rest scored by the model in batches of similar length.
    The model and the cache are opened at the first window (statistics
    read back need neither)."""
    opened: list[Any] = []

    def rows(segments: Sequence[Segment]) -> list[list[Row]]:
        if not opened:
            opened.extend(_opened(settings))
        model, cache, tally = opened
        # (source, hypothesis, reference): the reference where the model reads
        # it (regression models, and unified ones whose inputs include it).
        inputs = _inputs(segments, model.uses_references_when_given())
        texts = list(dict.fromkeys(inputs))
        scores, spans = _scored(model, cache, settings, texts, tally)
        out = []
        at = 0
        for _, hyps, _ in segments:
            mine = inputs[at : at + len(hyps)]
            out.append([_row(scores[text], spans.get(text)) for text in mine])
            at += len(hyps)
        return out

    return rows


class SpannedRow(tuple):  # type: ignore[type-arg]
    """A segment's row ``(score, 1)`` with its error spans beside it: they
    reach the segment's record (``sentence_score``) and are not summed
    (a sum of rows is a plain tuple)."""

    spans: list[Any]

    def __new__(cls, score: float, spans: list[Any]) -> SpannedRow:
        row = super().__new__(cls, (score, 1))
        row.spans = spans
        return row

    def __reduce__(self) -> tuple[Any, ...]:
        return (SpannedRow, (self[0], self.spans))


def _row(score: float, spans: list[Any] | None) -> Row:
    return (score, 1) if spans is None else SpannedRow(score, spans)


def count_batch(settings: Settings) -> CountBatch:
    """The protocol's batch without sources, which this metric cannot score:
    a run reading sources (``NEEDS_SOURCE``) counts windows (``count_window``)."""

    def refused(hyps: Sequence[str], refs: Sequence[Any]) -> list[Row]:
        raise ValueError("COMET scores segments with their sources: count_window")

    return refused


def sum_batch(settings: Settings) -> SumBatch:
    """``count_batch``'s rows, summed (``protocol.sum_of_rows``)."""
    return sum_of_rows(count_batch(settings))


sum_block = decoded_blocks(sum_batch)  # decoded, then summed as a batch


def score_batch(settings: Settings) -> ScoreBatch:
    """Each row's score object, made one by one."""
    return each_score


def _opened(settings: Settings) -> tuple[Any, Any, _Tally]:
    """The model, the cache (or None) and the tally of a run's counting."""
    model = model_of(settings)
    if settings.identity and model.identity != settings.identity:
        # A worker elsewhere (an engine's) found another checkpoint at the path.
        raise InputError(
            f"--comet-model {settings.model}: not the checkpoint the run started with "
            f"({model.identity}, not {settings.identity})"
        )
    cache = None
    if settings.cache:
        from bleustream.comet.cache import ScoreCache

        cache = ScoreCache(settings.cache)
    tally = _TALLIES.setdefault(settings, _Tally(settings.cache, model.forward_passes))
    return model, cache, tally


def _inputs(segments: Sequence[Segment], refs_needed: bool) -> list[tuple[str, str, str | None]]:
    inputs = []
    for source, hyps, refs in segments:
        if refs_needed and len(refs) != 1:
            raise ValueError(
                f"COMET reads one reference per segment; this one has {len(refs)} "
                "(give one REF file, or --num-refs 1)"
            )
        reference = refs[0] if refs_needed else None
        for hyp in hyps:
            inputs.append((source, hyp, reference))
    return inputs


Text = tuple[str, str, "str | None"]  # source, hypothesis, reference


def _scored(
    model: Any,
    cache: Any,
    settings: Settings,
    texts: list[Text],
    tally: _Tally,
) -> tuple[dict[Text, float], dict[Text, list[Any]]]:
    """The score of each distinct (source, hypothesis, reference), and its
    error spans where the model tags words (XCOMET): read back from the
    cache where it holds them (a score with its spans), else from the model."""
    identity, size = settings.identity, settings.batch_size
    tags = model.word_level
    scores: dict[Text, float] = {}
    spans: dict[Text, list[Any]] = {}
    keys: dict[Text, bytes] = {}
    if cache is not None:
        from bleustream.comet.cache import segment_key

        keys = {text: segment_key(identity, *text) for text in texts}
        kept = cache.get(list(keys.values()))
        kept_spans = cache.get_spans(list(keys.values())) if tags else {}
        for text, key in keys.items():
            if key in kept and (not tags or key in kept_spans):
                scores[text] = kept[key]
                if tags:
                    spans[text] = json.loads(kept_spans[key])
    todo = [text for text in texts if text not in scores]
    tally.read_back += len(texts) - len(todo)
    tally.scored += len(todo)
    # Sorted by length, as comet-score sorts its input: fewer pads per batch.
    todo.sort(key=lambda t: len(t[0]) + len(t[1]) + len(t[2] or ""))
    for start in range(0, len(todo), size):
        batch = todo[start : start + size]
        sources = [t[0] for t in batch]
        hyps = [t[1] for t in batch]
        refs = None if batch[0][2] is None else [t[2] for t in batch]
        for text, value in zip(batch, model.score_batch(sources, hyps, refs)):
            scores[text] = float(value)
        if tags:  # the same batch: no second forward pass
            spans.update(zip(batch, model.spans_batch(sources, hyps, refs)))
    if cache is not None and todo:
        cache.put(
            ((keys[text], scores[text]) for text in todo),
            ((keys[text], json.dumps(spans[text])) for text in todo if tags),
        )
    return scores, spans


def truncation_note(settings: Settings) -> str | None:
    """What to say once when the model has truncated inputs, else None."""
    model = _LOADED.get((settings.model, settings.device, settings.max_length))
    if model is None or not model.truncated():
        return None
    return (
        f"inputs longer than the encoder's {model.max_length} tokens are truncated, "
        "as COMET truncates them"
    )


def closing_note(settings: Settings) -> str | None:
    """With a cache: how many scores it gave back, and what the model ran."""
    tally = _TALLIES.get(settings)
    model = _LOADED.get((settings.model, settings.device, settings.max_length))
    if tally is None or tally.cache is None or model is None:
        return None
    passes = model.forward_passes - tally.passes_before
    return (
        f"--comet-cache {tally.cache}: {tally.read_back} segment scores read back, "
        f"{tally.scored} scored by the model in {passes} forward "
        f"{'pass' if passes == 1 else 'passes'}"
    )


def score(row: Sequence[Any], settings: Settings) -> CometResult:
    """The mean of the segment scores: comet-score's ``system_score``."""
    if len(row) != 2:
        raise ValueError(f"a COMET row of {len(row)} numbers, 2 expected")
    total, segments = row
    value = total / segments if segments else 0.0
    return CometResult(float(value), tuple(row), int(segments))


def sentence_score(row: Sequence[Any], settings: Settings) -> CometResult:
    """A segment's score: the row of one segment is ``(score, 1)``, with
    its error spans where the model gives them (``SpannedRow``)."""
    result = score(row, settings)
    result.spans = getattr(row, "spans", None)
    return result


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """SacreBLEU's style: the references, the model's fields in its order
    (name, weights' digest, refs, precision, max length, versions), then
    bleustream's ``version``."""
    fields = {"nrefs": str(nrefs)}
    fields.update(_about(settings))
    fields.pop("version", None)
    fields["version"] = SIGNATURE_VERSION
    return fields


SIGNATURE_SHORT = {
    "model": "m",
    "digest": "d",
    "refs": "r",
    "precision": "p",
    "maxlen": "ml",
}


def score_object(result: CometResult, settings: Settings) -> Score:
    return Score("COMET", result.score)


def json_fields(result: CometResult, settings: Settings) -> dict[str, Any]:
    """The raw statistics: the sum of the segment scores and their number;
    a segment's error spans where the model gives them (XCOMET)."""
    fields: dict[str, Any] = {"score_sum": float(result.row[0]), "scored": result.segments}
    if result.spans is not None:
        fields["error_spans"] = result.spans
    return fields


def tsv_fields(result: CometResult, settings: Settings) -> list[tuple[str, str]]:
    return [
        ("comet", repr(result.score)),
        ("comet_sum", repr(float(result.row[0]))),
        ("comet_segments", str(result.segments)),
    ]


def verbose(result: CometResult, settings: Settings, width: int = 1) -> str:
    return ""


def score_rows(sums: Any, settings: Settings) -> Any:
    """Scores of many summed rows ``[sum, segments]`` (numpy): the mean of a
    resample's segment scores, in the rows' type (float32 when resampled,
    as SacreBLEU's resampling sums)."""
    from bleustream.extras import require_numpy

    np = require_numpy()
    values = np.asarray(sums)
    with np.errstate(all="ignore"):
        return values[:, 0] / values[:, 1]
