"""SacreBLEU's seed text: ``none`` (any case) for fresh entropy, else a whole
number.  Read where a seed is given: ``$SACREBLEU_SEED`` for the bootstrap
(``bootstrap.py``), ``--seed`` for Self-BLEU's sample and the significance
tests."""

from __future__ import annotations


def parse_seed(text: str) -> int | None:
    """A seed as SacreBLEU reads ``SACREBLEU_SEED``: ``none`` (any case) or an int
    (``--seed``'s text, which the command has checked)."""
    return None if text.lower() == "none" else int(text)
