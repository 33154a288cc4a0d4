"""BLEU from sufficient statistics: pure functions, SacreBLEU's arithmetic.

``compute_bleu`` performs the same floating-point operations in the same
order as SacreBLEU 2.x's ``BLEU.compute_bleu``, so the two agree to the last
bit, not just to a tolerance.  Scores and precisions are percentages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bleustream import __version__
from bleustream.stats import Stats
from bleustream.tokenizers import DEFAULT_TOKENIZER, TOKENIZERS

SMOOTH_METHODS = ("exp", "floor", "add-k", "none")
# Chen and Cherry (2014), as SacreBLEU: the value used when none is given.
SMOOTH_DEFAULTS: dict[str, float | None] = {"exp": None, "floor": 0.1, "add-k": 1, "none": None}
DEFAULT_SMOOTH = "exp"
DEFAULT_MAX_ORDER = 4

# SacreBLEU floors log(0) at this value instead of failing.
_LOG_ZERO = -9999999999


@dataclass(frozen=True)
class Settings:
    """Everything that decides a BLEU score, as in SacreBLEU's signature."""

    tokenize: str = DEFAULT_TOKENIZER
    lowercase: bool = False
    smooth_method: str = DEFAULT_SMOOTH
    smooth_value: float | None = None
    effective_order: bool = False
    max_order: int = DEFAULT_MAX_ORDER

    def __post_init__(self) -> None:
        if self.tokenize not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {self.tokenize!r}")
        if self.smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(f"unknown smoothing method {self.smooth_method!r}")
        if self.max_order < 1:
            raise ValueError("the maximum n-gram order must be at least 1")

    @property
    def effective_smooth_value(self) -> float | None:
        """The smoothing value in force: the given one or the method's default."""
        if self.smooth_value is None:
            return SMOOTH_DEFAULTS[self.smooth_method]
        return self.smooth_value


DEFAULT_SETTINGS = Settings()


@dataclass(frozen=True)
class BleuScore:
    """A BLEU score with the parts it is made of."""

    score: float
    precisions: tuple[float, ...]
    bp: float
    ratio: float
    stats: Stats


def _log(x: float) -> float:
    return math.log(x) if x != 0.0 else _LOG_ZERO


def compute_bleu(stats: Stats, settings: Settings = DEFAULT_SETTINGS) -> BleuScore:
    """Corpus (or sentence) BLEU from summed statistics."""
    max_order = settings.max_order
    if stats.max_order != max_order:
        raise ValueError(
            f"statistics of max n-gram order {stats.max_order} scored with order {max_order}"
        )
    sys_len, ref_len = stats.hyp_len, stats.ref_len
    method = settings.smooth_method
    smooth_value = settings.effective_smooth_value

    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    ratio = sys_len / ref_len if ref_len else 0
    precisions = [0.0] * max_order

    if not any(stats.matches):
        return BleuScore(0.0, tuple(precisions), bp, ratio, stats)

    correct: list[float] = list(stats.matches)
    total: list[float] = list(stats.totals)
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if method == "add-k" and n > 1:
            assert smooth_value is not None
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if settings.effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif method == "floor":
                assert smooth_value is not None
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]

    score = bp * math.exp(sum([_log(p) for p in precisions[:eff_order]]) / eff_order)
    return BleuScore(score, tuple(precisions), bp, ratio, stats)


def signature_fields(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """The signature's fields in SacreBLEU's order (``version`` last).

    ``nrefs`` is the number of references per segment (``"var"`` when it
    varies).  A maximum n-gram order other than 4 adds an ``order`` field,
    which SacreBLEU's signature lacks.
    """
    smooth = settings.smooth_method
    if SMOOTH_DEFAULTS[smooth] is not None:
        smooth += f"[{settings.effective_smooth_value:.2f}]"
    fields = {
        "nrefs": str(nrefs),
        "case": "lc" if settings.lowercase else "mixed",
        "eff": "yes" if settings.effective_order else "no",
        "tok": settings.tokenize,
        "smooth": smooth,
    }
    if settings.max_order != DEFAULT_MAX_ORDER:
        fields["order"] = str(settings.max_order)
    fields["version"] = f"bleustream-{__version__}"
    return fields


def format_signature(fields: dict[str, str]) -> str:
    return "|".join(f"{key}:{value}" for key, value in fields.items())
