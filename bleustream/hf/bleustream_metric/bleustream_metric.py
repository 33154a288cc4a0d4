"""bleustream as a Hugging Face ``evaluate`` module: BLEU, chrF and TER from statistics.

    import bleustream, evaluate
    bleu = evaluate.load(bleustream.evaluate_module_path(), "bleu")  # or "chrf", "ter"
    for predictions, references in batches:
        bleu.add_batch(predictions=predictions, references=references)
    bleu.compute()  # {"score": ..., "counts": ..., "totals": ..., "precisions": ..., ...}

The keyword arguments and result keys are those of evaluate's
``sacrebleu``, ``chrf`` and ``ter`` modules, and the numbers SacreBLEU's.
``add_batch`` counts the batch into running statistics and keeps nothing
else (no Arrow table, no cache file), so memory stays flat however many
segments are added.  Settings that change the statistics (``tokenize``,
``lowercase``, ``char_order``...) are given to ``evaluate.load``, or to a
``compute(predictions=..., references=...)`` with nothing added before;
those that only change the score (``smooth_method``, ``beta``...) may also
be given to ``compute``.  References are one string, or a list of strings,
per prediction.
"""

from __future__ import annotations

from typing import Any

import datasets
import evaluate

from bleustream.api import Scorer, spec

# evaluate's keyword names (those of its sacrebleu, chrf and ter modules) to bleustream.spec()'s.
NAMES: dict[str, dict[str, str]] = {
    "bleu": {
        "smooth_method": "smooth_method",
        "smooth_value": "smooth_value",
        "lowercase": "lowercase",
        "tokenize": "tokenize",
        "use_effective_order": "effective_order",
    },
    "chrf": {
        "char_order": "char_order",
        "word_order": "word_order",
        "beta": "beta",
        "lowercase": "lowercase",
        "whitespace": "whitespace",
        "eps_smoothing": "eps_smoothing",
    },
    "ter": {
        "normalized": "normalized",
        "ignore_punct": "no_punct",
        "support_zh_ja_chars": "asian_support",
        "case_sensitive": "case_sensitive",
    },
}
SCORE_ONLY = {
    "bleu": {"smooth_method", "smooth_value", "use_effective_order"},
    "chrf": {"beta", "eps_smoothing"},
    "ter": set(),
}
IGNORED = {"force"}  # SacreBLEU's: accepted, and of no use here
INIT_ARGS = {
    "keep_in_memory",
    "cache_dir",
    "num_process",
    "process_id",
    "seed",
    "experiment_id",
    "hash",
    "max_concurrent_cache_files",
    "timeout",
}


class BleustreamMetric(evaluate.Metric):
    """SacreBLEU's BLEU, chrF or TER (the configuration), from streamed statistics."""

    def __init__(self, config_name: str | None = None, **kwargs: Any) -> None:
        settings = {key: kwargs.pop(key) for key in list(kwargs) if key not in INIT_ARGS}
        super().__init__(config_name=config_name or "bleu", **kwargs)
        if self.config_name not in NAMES:
            raise ValueError(
                f"the configuration is one of {', '.join(NAMES)}, not {self.config_name!r}"
            )
        self._settings = self._checked(settings)
        self._scorer: Scorer | None = None

    def _info(self) -> evaluate.MetricInfo:
        string = datasets.Value("string")
        return evaluate.MetricInfo(
            description="SacreBLEU's BLEU, chrF and TER, from streamed sufficient statistics",
            citation="",
            inputs_description=(
                "predictions: list of str; references: list of str, or list of lists of str "
                "(the references of each prediction)"
            ),
            features=[
                datasets.Features({"predictions": string, "references": datasets.Sequence(string)}),
                datasets.Features({"predictions": string, "references": string}),
            ],
        )

    def _checked(self, settings: dict[str, Any]) -> dict[str, Any]:
        unknown = set(settings) - set(NAMES[self.config_name]) - IGNORED
        if unknown:
            raise TypeError(f"unknown {self.config_name} settings: {', '.join(sorted(unknown))}")
        return {
            key: value
            for key, value in settings.items()
            if key not in IGNORED and not (key == "tokenize" and value is None)
        }

    def _spec(self, settings: dict[str, Any]) -> Any:
        names = NAMES[self.config_name]
        return spec(self.config_name, **{names[key]: value for key, value in settings.items()})

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Count a batch into the running statistics (nothing else is kept)."""
        if kwargs:
            raise ValueError(f"Bad inputs for evaluation module: {sorted(kwargs)}")
        predictions = list(predictions or ())
        references = list(references or ())
        if len(predictions) != len(references):
            raise ValueError(
                f"Mismatch in the number of predictions ({len(predictions)}) and "
                f"references ({len(references)})"
            )
        if self._scorer is None:
            self._scorer = Scorer([self._spec(self._settings)])
        add = self._scorer.add
        for prediction, refs in zip(predictions, references):
            add((prediction,), [refs] if isinstance(refs, str) else list(refs))

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Count one prediction and its references into the running statistics."""
        self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def compute(
        self, *, predictions: Any = None, references: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The score of everything added (and of ``predictions``), in SacreBLEU's keys.

        As with evaluate, the statistics are emptied afterwards.
        """
        kwargs = self._checked(kwargs)
        counting = {k: v for k, v in kwargs.items() if k not in SCORE_ONLY[self.config_name]}
        if self._scorer is None:
            self._settings = {**self._settings, **counting}
        elif any(k not in self._settings or self._settings[k] != v for k, v in counting.items()):
            raise ValueError(
                f"{', '.join(sorted(counting))} change the statistics already counted: "
                "give them to evaluate.load"
            )
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references)
        the_spec = self._spec({**self._settings, **kwargs})
        scorer = self._scorer or Scorer([the_spec])
        self._scorer = None
        return self._compute(row=scorer.stats.rows[0], the_spec=the_spec)

    def _compute(self, *, row: Any = None, the_spec: Any = None, **kwargs: Any) -> dict[str, Any]:
        """SacreBLEU's evaluate result of summed statistics."""
        score = the_spec.score(row)
        if self.config_name == "bleu":
            n = (len(row) - 2) // 2
            return {
                "score": score.score,
                "counts": list(row[2 : 2 + n]),
                "totals": list(row[2 + n :]),
                "precisions": list(score.precisions),
                "bp": score.bp,
                "sys_len": row[0],
                "ref_len": row[1],
            }
        if self.config_name == "chrf":
            settings = the_spec.settings
            return {
                "score": score.score,
                "char_order": settings.char_order,
                "word_order": settings.word_order,
                "beta": settings.beta,
            }
        return {"score": score.score, "num_edits": score.num_edits, "ref_length": score.ref_length}
