"""A batch's rows ready to add (``protocol.batch_part``), and every metric's
``sum_batch`` added into totals batch by batch, against SacreBLEU's corpus
score of the same segments (SacreBLEU called here)."""

from __future__ import annotations

import random

import pytest
import sacrebleu

from bleustream.metrics import bleu, chrf, ter
from bleustream.metrics.counting import SegmentCounter, add_parts, add_summed, zero_totals
from bleustream.metrics.protocol import MAX_COUNT, add_rows, batch_part
from bleustream.metrics.registry import Spec
from tests.helpers.adversarial import Adversary


def _one_by_one(rows: list[tuple]) -> tuple:
    total: tuple = (0,) * len(rows[0])
    for row in rows:
        total = add_rows(total, row)
    return total


def test_whole_rows_are_summed_and_fractions_kept_in_order() -> None:
    rng = random.Random(3)
    whole = [(rng.randint(0, 50), float(rng.randint(1, 80))) for _ in range(300)]
    kind, total = batch_part(whole)
    assert kind == "sum" and [type(x) for x in total] == [int, float]
    assert total == _one_by_one(whole)
    fractions = [*whole[:5], (3, 10 / 3), *whole[5:]]
    assert batch_part(fractions) == ("rows", fractions)
    assert batch_part([(1, 2)]) == ("sum", (1, 2))
    # past 2**53 a float of whole value no longer adds exactly: kept in order
    big = [(0, float(MAX_COUNT)), (0, 1.0), (0, 1.0)]
    assert batch_part(big) == ("rows", big)
    assert batch_part([(0, float("nan"))])[0] == "rows"


def _sacrebleu_score(name: str, hyps: list[str], streams: list[list[str]]) -> float:
    metric = {"bleu": sacrebleu.BLEU(), "chrf": sacrebleu.CHRF(), "ter": sacrebleu.TER()}[name]
    return float(metric.corpus_score(hyps, streams).score)


@pytest.mark.parametrize("module", [bleu, chrf, ter], ids=lambda m: m.NAME)
@pytest.mark.parametrize("nrefs", [1, 3])
def test_batches_summed_into_totals_give_sacrebleus_score(module: object, nrefs: int) -> None:
    adversary = Adversary(7 + nrefs)
    segments = [adversary.segment(nrefs) for _ in range(300)]
    hyps = [hyp for hyp, _ in segments]
    refs = [texts for _, texts in segments]
    spec = Spec(module, module.Settings())  # type: ignore[attr-defined]
    counter = SegmentCounter([spec])
    summed = None
    for start in range(0, len(segments), 64):
        batch = counter.summed(
            [(hyp,) for hyp in hyps[start : start + 64]], refs[start : start + 64]
        )
        summed = add_summed(summed, batch)
    assert summed is not None
    totals = add_parts(zero_totals([spec]), summed.parts[0], summed.segments)
    want = _sacrebleu_score(spec.name, hyps, [list(s) for s in zip(*refs)])
    assert spec.score(totals.rows[0]).score == want
    if spec.name == "ter":  # one reference: summed; several: rows kept in order
        assert summed.parts[0][0][0] == ("sum" if nrefs == 1 else "rows")
