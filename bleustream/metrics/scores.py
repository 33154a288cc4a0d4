"""SacreBLEU's score and signature objects: what the Python API hands back.

``BLEUScore``, ``CHRFScore`` and ``TERScore`` take SacreBLEU 2.6's
constructor arguments and have its attributes, ``str()`` and ``format()``
(``sacrebleu.metrics.base.Score`` and its subclasses), so code written for
SacreBLEU reads them unchanged: ``vars()`` of one is SacreBLEU's, key for
key.  Two attributes are bleustream's own, held in slots beside the
instance's ``__dict__`` so that ``vars()`` does not show them: ``stats``,
the summed statistics in SacreBLEU's per-segment layout (a tuple), and
``signature``, the signature text of the settings and number of references
that made the score (empty when the number of references is unknown).

``Signature`` is SacreBLEU's signature object (``format(short=False)``,
``update``, ``info``; ``str()`` is the long form); its subclasses of
SacreBLEU's metrics, which their ``get_signature()`` returns, are beside
the metric classes (``metric_classes``).

Pure: these classes compute nothing from text.  A metric module turns its
own score into one of them (``score_object`` in ``protocol``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bleustream._version import __version__

# The ``version`` field of every bleustream signature.
SIGNATURE_VERSION = f"bleustream-{__version__}"

# Short names of the fields every signature may hold (SacreBLEU's
# ``Signature._abbr``); each metric module adds its own (``SIGNATURE_SHORT``).
COMMON_SHORT = {
    "version": "v",
    "nrefs": "#",
    "test": "t",
    "lang": "l",
    "subset": "S",
    "origlang": "o",
    "bs": "bs",
    "ar": "ar",
    "seed": "rs",
}

# The fields SacreBLEU's signature starts with, in its order, before the
# metric's own (``None`` ones are left out of the text).
_COMMON_ORDER = ("version", "nrefs", "bs", "ar", "seed", "test", "lang", "origlang", "subset")

# A metric's attributes that SacreBLEU's ``Signature(args)`` reads into the
# common fields, by field.
_COMMON_ARGS = {
    "bs": "n_bootstrap",
    "seed": "seed",
    "test": "test_set",
    "lang": "langpair",
    "origlang": "origlang",
    "subset": "subset",
}


def signature_text(fields: Mapping[str, Any], short_names: Mapping[str, str] | None = None) -> str:
    """The signature's text, ``key:value`` joined by ``|`` in the fields'
    order; with ``short_names`` (``COMMON_SHORT`` and a metric's), SacreBLEU's
    ``--short`` names where it has them.  The one rule for the text: the
    records' signatures and ``Signature.format`` both write it so."""
    if short_names is None:
        return "|".join(f"{key}:{value}" for key, value in fields.items())
    return "|".join(f"{short_names.get(key, key)}:{value}" for key, value in fields.items())


class Signature:
    """A reproducibility signature, as SacreBLEU's ``Signature``.

    ``Signature(args)`` takes what SacreBLEU's does: a metric's attributes
    (``vars(metric)``, of bleustream's metric classes or SacreBLEU's), with
    ``num_refs`` set by a scoring (-1 or ``"var"``: it varied); a metric's
    subclass (``BLEUSignature``... in ``metric_classes``) adds its fields,
    as that metric's module writes them.  ``of_fields`` makes one from a metric module's
    fields (``nrefs`` first, ``version`` last) and short names.
    ``format(short=False)``, ``update`` and ``info`` are SacreBLEU's;
    ``str()`` is the long form.
    """

    def __init__(self, args: Mapping[str, Any]) -> None:
        if "num_refs" not in args or args["num_refs"] is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        nrefs = args["num_refs"]
        fields, short_names = self._fields(args, "var" if nrefs == -1 else nrefs)
        self._set(fields, short_names)
        for key, name in _COMMON_ARGS.items():
            if args.get(name) is not None:
                self.info[key] = args[name]

    def _fields(
        self, args: Mapping[str, Any], nrefs: int | str
    ) -> tuple[dict[str, Any], Mapping[str, str]]:
        """The fields and short names of ``args``: here the common ones; a
        metric's subclass adds its own."""
        return {"nrefs": str(nrefs), "version": SIGNATURE_VERSION}, {}

    @classmethod
    def of_fields(cls, fields: Mapping[str, Any], short_names: Mapping[str, str]) -> Signature:
        """The signature of a metric module's ``signature`` fields."""
        self = object.__new__(cls)
        self._set(fields, short_names)
        return self

    def _set(self, fields: Mapping[str, Any], short_names: Mapping[str, str]) -> None:
        self._abbr = {**COMMON_SHORT, **short_names}
        self.info: dict[str, Any] = dict.fromkeys(_COMMON_ORDER)
        self.info.update(fields)
        nrefs = self.info.get("nrefs")
        if isinstance(nrefs, str) and nrefs.isdigit():  # a number, as SacreBLEU's
            self.info["nrefs"] = int(nrefs)

    def format(self, short: bool = False) -> str:
        """The signature text; ``short`` uses SacreBLEU's abbreviations."""
        fields = {}
        keys = [key for key in self.info if key != "version"]
        for key in [*keys, "version"]:
            value = self.info.get(key)
            if value is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            fields[key] = value
        return signature_text(fields, self._abbr if short else None)

    def update(self, key: str, value: Any) -> None:
        """Adds a field or changes one."""
        self.info[key] = value

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return self.format()


class Score:
    """A score, as SacreBLEU's ``Score``: ``name``, ``score`` and ``format``.

    After a bootstrap (``corpus_score(..., n_bootstrap=N)``) ``_mean`` and
    ``_ci`` hold the mean of the resampled scores and half the width of
    their 95% interval; they are -1 otherwise.  ``_verbose`` is the detail
    after the score in its text.  ``stats`` and ``signature`` are slots, not
    in ``vars()``: an object made by bleustream has them set; one made by
    calling the class has the empty defaults.
    """

    __slots__ = ("__dict__", "__weakref__", "signature", "stats")
    stats: tuple[Any, ...]
    signature: str

    def __init__(self, name: str, score: float) -> None:
        self.stats = ()
        self.signature = ""
        self.name = name
        self.score = score
        self._mean = -1.0
        self._ci = -1.0
        self._verbose = ""

    def format(
        self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False
    ) -> str:
        """SacreBLEU's text of the score: ``NAME|signature = SCORE detail``,
        the score alone (``score_only``), or a JSON object (``is_json``)."""
        d: dict[str, Any] = {
            "name": self.name,
            "score": float(f"{self.score:.{width}f}"),
            "signature": signature,
        }
        sc = f"{self.score:.{width}f}"
        if self._mean > 0:
            mean, ci = f"{self._mean:.{width}f}", f"{self._ci:.{width}f}"
            confidence = f"μ = {mean} ± {ci}"
            sc += f" ({confidence})"
            if is_json:
                d["confidence_mean"] = float(mean)
                d["confidence_var"] = float(ci)
                d["confidence"] = confidence
        full = f"{self.name}|{signature}" if signature else self.name
        full = f"{full} = {sc}"
        verbose = self._verbose
        if verbose:
            full += f" {verbose}"
            d["verbose_score"] = verbose
        if score_only:
            return sc
        if is_json:
            for param in signature.split("|"):
                key, value = param.split(":")
                d[key] = value
            import json

            return json.dumps(d, indent=1, ensure_ascii=False)
        return full

    def estimate_ci(self, scores: Sequence[Score]) -> None:
        """Mean and 95% interval of resampled scores (SacreBLEU's ``estimate_ci``)."""
        raw = sorted(x.score for x in scores)
        n = len(raw)
        lower = n // 40
        upper = n - lower - 1
        import statistics  # (with fractions, decimal and random: only here)

        self._ci = 0.5 * (raw[upper] - raw[lower])
        self._mean = statistics.mean(raw)

    def __repr__(self) -> str:
        return self.format()

    __str__ = __repr__


def bleu_verbose(
    precisions: Sequence[float], bp: float, ratio: float, sys_len: int, ref_len: int
) -> tuple[str, str]:
    """SacreBLEU's ``prec_str`` and the detail after a BLEU score (``_verbose``)."""
    prec_str = "/".join([f"{p:.1f}" for p in precisions])
    return prec_str, (
        f"{prec_str} (BP = {bp:.3f} ratio = {ratio:.3f} "
        f"hyp_len = {sys_len:d} ref_len = {ref_len:d})"
    )


class BLEUScore(Score):
    """A BLEU score with its parts, as SacreBLEU's ``BLEUScore``, with its
    attributes (``vars``) in its order.

    ``counts`` and ``totals`` are the matching and hypothesis n-grams per
    order (with ``add-k`` smoothing, the ``k`` added to orders above the
    first, as SacreBLEU reports them), ``precisions`` percentages.

    ``of_stats`` makes one from its statistics without SacreBLEU's seven
    arguments; the C kernel ``bleu_scores`` (``_native/scores.c``) makes
    the same objects, attribute for attribute: a change here is a change
    there.
    """

    def __init__(
        self,
        score: float,
        counts: list[Any],
        totals: list[Any],
        precisions: list[float],
        bp: float,
        sys_len: int,
        ref_len: int,
    ) -> None:
        super().__init__("BLEU", score)
        self._parts(counts, totals, precisions, bp, sys_len, ref_len)

    def _parts(self, *parts: Any) -> None:
        """The parts SacreBLEU's ``BLEUScore`` keeps beside the score, in
        ``__init__``'s order after the score."""
        counts, totals, precisions, bp, sys_len, ref_len = parts
        self.bp = bp
        self.counts = counts
        self.totals = totals
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.precisions = precisions
        ratio = sys_len / ref_len if ref_len else 0
        self.prec_str, self._verbose = bleu_verbose(precisions, bp, ratio, sys_len, ref_len)
        self.ratio = ratio

    @classmethod
    def of_stats(
        cls,
        score: float,
        precisions: list[float],
        bp: float,
        stats: tuple[Any, ...],
        signature: str,
    ) -> BLEUScore:
        """The score of statistics ``(sys_len, ref_len, *counts, *totals)``
        (no add-k: its counts are not the statistics)."""
        order = len(precisions)
        self = object.__new__(cls)  # (one per sentence: not through Score's __init__)
        self.name = "BLEU"
        self.score = score
        self._mean = -1.0
        self._ci = -1.0
        self._verbose = ""  # (SacreBLEU's order of attributes: set by _parts)
        counts, totals = list(stats[2 : 2 + order]), list(stats[2 + order :])
        self._parts(counts, totals, precisions, bp, int(stats[0]), int(stats[1]))
        self.stats = stats
        self.signature = signature
        return self


class CHRFScore(Score):
    """A chrF or chrF++ score, as SacreBLEU's ``CHRFScore`` (name ``chrF2``, ``chrF2++``...)."""

    def __init__(self, score: float, char_order: int, word_order: int, beta: int) -> None:
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class TERScore(Score):
    """A TER score, as SacreBLEU's ``TERScore``: the edits as a whole number,
    and the summed average reference lengths."""

    def __init__(self, score: float, num_edits: float, ref_length: float) -> None:
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length
