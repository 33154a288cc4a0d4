"""What Hugging Face ``evaluate``'s sacrebleu, chrf and ter metric scripts do
with SacreBLEU: ``import sacrebleu as scb``, a version guard, then
``scb.corpus_bleu``, ``scb.CHRF(...).corpus_score`` and
``scb.TER(...).corpus_score`` on references given per prediction.

``tests/dropin/test_dropin.py`` imports it once with the real SacreBLEU (the
expected numbers) and once in a child process after
``bleustream.install_as_sacrebleu()``: the module is the same, only what
``import sacrebleu`` gives differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sacrebleu as scb
from packaging import version

if version.parse(scb.__version__) < version.parse("1.4.12"):
    raise ImportWarning("this needs sacrebleu>=1.4.12: pip install 'sacrebleu>=1.4.12'")


def _streams(references: Sequence[Sequence[str]]) -> list[list[str]]:
    """References per prediction to SacreBLEU's reference streams, as the scripts do."""
    per_prediction = len(references[0])
    if any(len(refs) != per_prediction for refs in references):
        raise ValueError("Sacrebleu requires the same number of references for each prediction")
    return [[refs[i] for refs in references] for i in range(per_prediction)]


def bleu(predictions: list[str], references: list[list[str]], **options: Any) -> dict[str, Any]:
    output = scb.corpus_bleu(predictions, _streams(references), **options)
    return {
        "score": output.score,
        "counts": output.counts,
        "totals": output.totals,
        "precisions": output.precisions,
        "bp": output.bp,
        "sys_len": output.sys_len,
        "ref_len": output.ref_len,
    }


def chrf(predictions: list[str], references: list[list[str]], **options: Any) -> dict[str, Any]:
    output = scb.CHRF(**options).corpus_score(predictions, _streams(references))
    return {
        "score": output.score,
        "char_order": output.char_order,
        "word_order": output.word_order,
        "beta": output.beta,
    }


def ter(predictions: list[str], references: list[list[str]], **options: Any) -> dict[str, Any]:
    output = scb.TER(**options).corpus_score(predictions, _streams(references))
    return {"score": output.score, "num_edits": output.num_edits, "ref_length": output.ref_length}


# The calls the tests make: (function, options), as the scripts pass them.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("bleu", {}),
    ("bleu", {"smooth_method": "floor", "smooth_value": 0.1, "lowercase": True}),
    ("bleu", {"tokenize": "intl", "use_effective_order": True}),
    ("chrf", {}),
    ("chrf", {"word_order": 2, "eps_smoothing": True}),
    ("ter", {}),
    ("ter", {"normalized": True, "no_punct": True, "case_sensitive": True}),
]


def run_all(predictions: list[str], references: list[list[str]]) -> list[dict[str, Any]]:
    """Every call of ``CALLS`` on one corpus."""
    functions = {"bleu": bleu, "chrf": chrf, "ter": ter}
    return [functions[name](predictions, references, **options) for name, options in CALLS]
