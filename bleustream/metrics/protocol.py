"""What every metric module provides: the small surface the rest is built on.

A metric is a plain module (``bleustream.metrics.bleu``, ``bleustream.metrics.chrf``,
``bleustream.metrics.ter``) registered by name in ``bleustream.metrics.registry.METRICS``.
Nothing outside a metric's own module tests a metric's name: the command
line, the config file, the record loop and the formats learn everything from
the attributes below.

The glossary, used everywhere in the package with these meanings only:

* a *row* (``Row``) is one metric's statistics of one segment: a flat
  tuple of numbers in SacreBLEU's per-segment layout;
* *rows* (``bleustream.metrics.counting.Rows``) are one segment's rows, per
  system and then per metric;
* *summed rows* (``Summed``) are a batch's rows added up where they were
  counted (a worker), to be added into the totals by whoever gathers them;
* *totals* (``Totals``) are the running sums of one system: one row per
  metric, with the number of segments they cover;
* a *stats record* is rows or totals written as JSON by ``-f stats``
  (docs/stats-record.md), read back by ``--input-format stats``.

Rows add element by element, in input order, as SacreBLEU sums them, so a
running total is bit-identical to SacreBLEU's corpus statistics; shards,
workers and resamples add the same way.

The surface (``M`` is the module, ``S`` its ``Settings``):

* ``NAME``: the registry key and ``-m`` name (``"bleu"``);
* ``TITLE``: the name of its group of options in ``--help``;
* ``Settings``: a ``Frozen`` record (``bleustream.frozen``) of everything
  that decides the score, checked when made;
* ``OPTIONS``: the command line options (and so config keys) of the metric;
* ``settings_from(options) -> S``: the settings from resolved options, by
  dest; raises ``UsageError`` for options that do not fit together;
* ``SCORE_ONLY``: the fields of ``S`` that change the score but not the
  statistics (they may be set anew when statistics are added up);
* ``SCORE_ONLY_ONE_REF``: the fields that change only the score when each
  segment has one reference, but with several choose among the references
  (they may be set anew when statistics of one reference are added up);
* ``label(S) -> str``: SacreBLEU's name of the metric (``"chrF2++"``);
* ``row_size(S) -> int``: the length of a row;
* ``check_row(Row, S, segments, nrefs) -> str | None``: what is wrong with a
  row read back from outside (a stats record) that covers ``segments``
  segments of ``nrefs`` references each (``"var"`` when it varies), as a
  phrase, or None when a run could have written it: a whole number is one
  by value, whatever its JSON spelling (``3`` or ``3.0``); a row of one
  segment must have that segment's structure exactly, a sum what every
  sum of such rows has;
* ``from_record(Row, S) -> Row``: a row that passed ``check_row``, in the
  types a run writes (whole numbers as ``int``);
* ``prepare_refs(S) -> (refs -> R)``: reference work done once per segment
  and shared by every system scored against it (tokens, n-gram counts);
* ``count(S) -> (hyp, R -> Row)``: one hypothesis against its prepared
  references, to its statistics;
* ``score(Row, S) -> MetricResult``: corpus score of summed statistics, pure;
* ``sentence_score(Row, S) -> MetricResult``: the score of one segment, as
  SacreBLEU's ``sentence_score`` computes it (BLEU turns on effective order);
* ``signature(S, nrefs) -> dict[str, str]``: SacreBLEU's signature fields in
  its order, ``version`` last;
* ``SIGNATURE_SHORT``: SacreBLEU's short names of the signature's fields
  (``Signature.format(short=True)``, ``--short``), besides the common ones
  (``scores.COMMON_SHORT``);
* ``score_object(MetricResult, S) -> scores.Score``: SacreBLEU's score object of a
  score (``BLEUScore``...), what the Python API hands back;
* ``json_fields(MetricResult, S) -> dict``: what a JSON record holds besides
  ``metric``, ``type`` and ``score`` (the raw statistics by name, and parts
  such as BLEU's precisions);
* ``tsv_fields(MetricResult, S) -> list[tuple[str, str]]``: the TSV columns of a
  record, (column, value), the columns fixed by the settings;
* ``verbose(MetricResult, S, width) -> str``: detail after the score on a text line
  (empty when SacreBLEU prints none); the scores it adds of its own are
  written to ``width`` decimals, as the score is;
* ``score_rows(array, S) -> array``: scores of many summed rows at once
  (numpy, for resampling), with SacreBLEU's float32 arithmetic;
* the batch functions (below): ``count_batch``, ``sum_batch``, ``score_batch``;
* ``LOOP`` (optional): how a run reads and scores the metric's input, read
  by ``registry.loop_of`` alone: ``"stream"`` (the default: rows summed as
  segments come), ``"corpus"`` (tables of the whole input, scored at the
  end: NIST) or ``"set"`` (each input a set of sentences scored against
  each other: Self-BLEU).

A *batch* is a list of segments, given as two sequences of the same
length: ``hyps`` (segment ``i``'s hypothesis, a ``str``) and ``refs``
(its references, a sequence of at least one ``str``).  The batch functions
are factories, as ``prepare_refs`` and ``count`` are: called once with the
settings (where a metric loads what it needs once, a table or a model),
they return the function of a batch:

* ``count_batch(S) -> CountBatch``, ``(hyps, refs) -> list[Row]``: each
  segment's row, ``count(S)(hyps[i], prepare_refs(S)(refs[i]))``;
* ``sum_batch(S) -> SumBatch``, ``(hyps, refs) -> Part``: the rows of a
  batch of at least one segment, ready to add into totals
  (``batch_part``): ``("sum", row)``, their sum, where rows are whole
  numbers (any grouping sums them alike), else ``("rows", rows)``, to be
  added one by one in input order (TER's rows of several references);
* ``sum_block(S) -> SumBlock``, ``(hyp_block, ref_blocks) -> (Part,
  tokenized) | None``: ``sum_batch`` of the lines of blocks of bytes, as
  the reader hands them over (``inputs.blocks``): a hypothesis file's
  lines and each reference file's same lines, UTF-8 joined by "\n"
  (``bytes.split(b"\n")`` gives them), each line right-stripped; with
  ``tokenized``, ``looks_tokenized`` of the hypotheses; None where a line
  is not UTF-8 (the reader then finds it); ``decoded_blocks(sum_batch)``
  decodes and calls ``sum_batch``, where a metric reads nothing faster;
* ``score_batch(S) -> ScoreBatch``, ``(rows, signature, one) -> list``:
  each row's score object, equal to ``one(row, signature)`` (the pure
  ``Spec.score_object``), which is also what a row the batch cannot
  score goes to.

A factory never returns None and the functions it makes take any
batch, so a caller never tests which path it has.  Where a metric has C
batches, each name is bound in its module, in one line, to the compiled
twin (``c_<name>``) or the pure one (``py_<name>``), of the same
signature, and ``KERNEL_TWINS`` maps the name to the pair
(``tests/native/test_kernel_twins.py`` reads it); a metric without them
(TER) binds its pure functions and lists none.  A metric whose count is a
model's forward pass on the segment's source too (COMET) declares
``NEEDS_SOURCE = True`` and counts a *window* instead: ``count_window(S)``,
``(segments) -> rows per segment and system``, each segment ``(source,
hyps per system, refs)``; it makes its model on the first window, and the
run reads sources in lockstep (``run/model_batches.py``).  Its batch
functions still exist (so no caller tests for them) and refuse a batch
without sources.
``segment_rows``, ``sum_of_rows`` and ``each_score`` are the batch
functions of a metric that counts segment by segment.

A result (``MetricResult``: each metric's ``<Name>Result``, such as
``bleu.BleuResult``, apart from SacreBLEU's score classes in ``scores``)
has at least ``score`` (a float) and ``row`` (the statistics it was
computed from).  Results are records that may change (``Fields``), whose
``__init__`` assigns each field directly: one is built per sentence score.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, Callable, Protocol

from bleustream.frozen import Frozen

Row = tuple  # tuple[int | float, ...], SacreBLEU's per-segment layout


def add_rows(a: Sequence[Any], b: Sequence[Any]) -> Row:
    """Element-wise sum of two rows of the same metric."""
    # Through a list: a tuple made straight from an iterator of unknown
    # length is allocated at a guessed size and resized, once per segment.
    return tuple(list(map(operator.add, a, b)))


def is_whole(value: Any) -> bool:
    """A whole number: an ``int`` that is not a ``bool`` (as JSON tells them apart)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A number: an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# The largest count a row read back may hold: above it a float no longer
# holds every whole number, and no corpus comes near it.
MAX_COUNT = 2**53


def as_whole(value: Any) -> int | None:
    """``value`` as a whole number if it is one, whatever its JSON spelling
    (``3`` or ``3.0``), else None."""
    if is_whole(value):
        return value
    if isinstance(value, float) and value.is_integer():  # false for nan and inf
        return int(value)
    return None


def whole_counts(row: Sequence[Any]) -> str | None:
    """What is wrong with a row of counts (whole numbers from 0 to
    ``MAX_COUNT``, by value), or None."""
    for value in row:
        whole = as_whole(value)
        if whole is None or whole < 0:
            return f"counts must be whole numbers of at least 0, not {value!r}"
        if whole > MAX_COUNT:
            return f"a count above 2**53: {value}"
    return None


def totals_problem(totals: Sequence[int], length: int, segments: int, items: str) -> str | None:
    """What is wrong with the n-gram totals of orders 1..N (``totals``) of
    ``segments`` segments of ``length`` ``items`` in all, or None.

    A segment of L items has max(0, L - n + 1) n-grams of order n.  Over
    several segments, order n has as many n-grams fewer than order n - 1 as
    there are segments of at least n - 1 items: never more than the
    segments, never more than order n - 1 had fewer than order n - 2, and
    not none while n-grams of order n are left.
    """
    if segments == 1:
        sound = list(totals) == [max(0, length - n) for n in range(len(totals))]
    else:
        drops = [a - b for a, b in zip(totals, totals[1:])]
        sound = (
            (not totals or totals[0] == length)
            and all(0 <= drop <= segments for drop in drops)
            and all(a >= b for a, b in zip(drops, drops[1:]))
            and not (drops and totals[-1] and not drops[-1])
        )
    if sound:
        return None
    shown = "/".join(map(str, totals))
    if segments == 1:
        return f"{shown} n-grams of orders 1 to {len(totals)} in a segment of {length} {items}"
    return (
        f"{shown} n-grams of orders 1 to {len(totals)} in {segments} segments "
        f"of {length} {items} in all"
    )


class OptionSpec(Frozen):
    """One option, as plain data: its flags, what it takes, and its help.

    The command line builds its parser from these, the config file its
    keys (the long name without dashes), and ``--show-config`` its table,
    so an option is declared once.  ``parse`` reads the option's text (or a
    config file's value as text) and raises ``ValueError`` with the reason
    when it does not fit.

    ``kind`` is one of ``bool`` (``--x``/``--no-x``), ``flag`` (``--x``
    alone, never a config key), ``int``, ``float``, ``choice`` or ``str``.

    ``reader``: a text reader for values no kind and bounds describe (a
    seed or "none"); it raises ValueError with the reason.  ``field``: the
    field of the metric's Settings the option sets, when it has one (the
    dest, unless named): how merged statistics learn which score-only
    settings the command line changed.  ``yields_to``: a setting whose
    value given in a config file gives way when the option named here is
    given on the command line (a file's smooth-value does not stop -s exp).
    ``default_from``: a default that follows another option: (its dest, the
    function of its value), applied when this option is left at its default
    and that one is set (-l en-zh chooses -tok zh).
    """

    flags: tuple[str, ...]
    dest: str
    default: Any = None
    kind: str = "str"
    help: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    metavar: str | None = None
    multiple: bool = False  # one or more values
    config: bool = True  # a config key (and in --show-config)
    reader: Callable[[str], Any] | None = None
    field: str | None = None
    yields_to: str | None = None
    default_from: tuple[str, Callable[[Any], Any]] | None = None

    @property
    def settings_field(self) -> str:
        return self.field or self.dest

    @property
    def long_flag(self) -> str | None:
        for flag in self.flags:
            if flag.startswith("--"):
                return flag
        return None

    def parse(self, text: str) -> Any:
        """The value of the option's text; ``ValueError`` says why it does not fit."""
        if self.reader is not None:
            return self.reader(text)
        if self.kind == "int":
            try:
                value: Any = int(text)
            except ValueError:
                raise ValueError(f"not a whole number: {text!r}") from None
        elif self.kind == "float":
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"not a number: {text!r}") from None
        else:
            return text
        low, high = self.minimum, self.maximum
        if not ((low is None or value >= low) and (high is None or value <= high)):
            # (also taken for nan, which no bound holds)
            raise ValueError(f"{_requirement(self.kind, low, high)}: {text!r}")
        return value


def _requirement(kind: str, low: float | None, high: float | None) -> str:
    if kind == "float":
        return f"must be a number from {_shown(low)} to {_shown(high)}"
    if high is not None:
        return f"must be a whole number from {_shown(low)} to {_shown(high)}"
    if low == 0:
        return "must not be negative"
    return f"must be at least {_shown(low)}"


def _shown(bound: float | None) -> str:
    """A bound as messages write it: 1000000, not 1e+06."""
    if isinstance(bound, int) or (isinstance(bound, float) and bound.is_integer()):
        return str(int(bound))  # type: ignore[arg-type]
    return f"{bound:g}"


def option_values(
    options: Mapping[str, Any], metric_options: Sequence[OptionSpec]
) -> dict[str, Any]:
    """The values of a metric's options in resolved ``options``, by dest; a
    missing or None value takes the option's default."""
    values = {}
    for option in metric_options:
        value = options.get(option.dest)
        values[option.dest] = option.default if value is None else value
    return values


# A batch's functions (see the module docstring): each segment's row, the
# rows ready to add, each row's score object.
# (Spelled out for type checkers alone: annotations are not evaluated at
# run time, and subscripting Callable costs every start-up.)
if TYPE_CHECKING:
    Lines = Sequence[str]
    References = Sequence[Sequence[str]]
    Part = tuple[str, Any]  # ("sum", row) or ("rows", [row, ...])
    CountBatch = Callable[[Lines, References], list[Row]]
    SumBatch = Callable[[Lines, References], Part]
    ScoreBatch = Callable[[Sequence[Row], str, Callable[[Row, str], Any]], list[Any]]
    SumBlock = Callable[[bytes, Sequence[bytes]], "tuple[Part, int] | None"]
else:
    Lines = References = Part = CountBatch = SumBatch = ScoreBatch = SumBlock = Any


def batch_part(rows: Sequence[Row]) -> Part:
    """A batch's rows (at least one) ready to add into totals: their sum
    where they are whole numbers, else the rows, to be added one by one.

    A float of whole value (TER's average length of one reference) counts
    as whole while the sums stay below 2**53: such floats add exactly, so
    their sum is the same in any grouping, as ints' is."""
    floats = [x for row in rows for x in row if isinstance(x, float)]
    if not all(map(float.is_integer, floats)):
        return ("rows", list(rows))
    total = tuple(map(sum, zip(*rows)))
    if floats and not all(abs(x) < MAX_COUNT for x in total):
        return ("rows", list(rows))
    return ("sum", total)


def segment_rows(
    prepare: Callable[[Sequence[str]], Any], count: Callable[[str, Any], Row]
) -> CountBatch:
    """A ``count_batch`` that counts segment by segment: ``count`` against ``prepare``."""
    return lambda hyps, refs: [count(hyp, prepare(texts)) for hyp, texts in zip(hyps, refs)]


def sum_of_rows(rows: CountBatch) -> SumBatch:
    """A ``sum_batch`` that adds up the rows of ``rows`` (``batch_part``)."""
    return lambda hyps, refs: batch_part(rows(hyps, refs))


def looks_tokenized(hyps: Iterable[str]) -> int:
    """How many of one system's hypotheses end in " .": what SacreBLEU
    counts to warn, at 100, that a system's text looks tokenized (its
    ``_extract_corpus_statistics``); counted once per batch."""
    return sum(map(str.endswith, hyps, repeat(" .")))


def _as_bytes(block: Any) -> bytes:
    """A bytes-like object's bytes (a TypeError for anything else)."""
    return block if type(block) is bytes else memoryview(block).tobytes()


def _same_lengths(columns: Sequence[Sequence[Any]]) -> None:
    if any(len(column) != len(columns[0]) for column in columns):
        raise ValueError("the blocks have different numbers of lines")


def decode_blocks(
    hyp_block: bytes, ref_blocks: Sequence[bytes]
) -> tuple[list[str], list[tuple[str, ...]]] | None:
    """The lines of blocks (see ``sum_block``; any bytes-like objects),
    decoded and right-stripped: the hypotheses and each segment's
    references; None where a line is not UTF-8.  A ``ValueError`` unless
    there are references, each block with as many lines as the hypotheses'
    (told before a line that is not UTF-8, as the C twins tell it)."""
    hyp, refs = _as_bytes(hyp_block), [_as_bytes(block) for block in ref_blocks]
    if not refs:
        raise ValueError("a segment needs at least one reference")
    try:
        columns = [block.decode("utf-8").split("\n") for block in (hyp, *refs)]
    except UnicodeDecodeError:
        _same_lengths([block.split(b"\n") for block in (hyp, *refs)])
        return None
    _same_lengths(columns)
    hyps, *others = [list(map(str.rstrip, column)) for column in columns]
    return hyps, list(zip(*others))


def decoded_blocks(sum_batch: Callable[[Any], SumBatch]) -> Callable[[Any], SumBlock]:
    """A ``sum_block`` that decodes the lines and sums them with ``sum_batch``."""

    def factory(settings: Any) -> SumBlock:
        summed = sum_batch(settings)

        def sum_block(hyp_block: bytes, ref_blocks: Sequence[bytes]) -> tuple[Part, int] | None:
            lines = decode_blocks(hyp_block, ref_blocks)
            if lines is None:
                return None
            hyps, refs = lines
            return summed(hyps, refs), looks_tokenized(hyps)

        return sum_block

    return factory


def each_score(rows: Sequence[Row], signature: str, one: Callable[[Row, str], Any]) -> list[Any]:
    """A ``ScoreBatch`` that makes each score object by ``one``."""
    return [one(row, signature) for row in rows]


class MetricResult(Protocol):
    """What a metric's ``score`` and ``sentence_score`` return."""

    score: float
    row: Row


class MetricModule(Protocol):
    """The attributes of a metric module (see the module docstring)."""

    NAME: str
    TITLE: str
    Settings: Callable[..., Any]
    OPTIONS: tuple[OptionSpec, ...]
    SCORE_ONLY: frozenset[str]
    SCORE_ONLY_ONE_REF: frozenset[str]
    SIGNATURE_SHORT: Mapping[str, str]

    settings_from: Callable[[Mapping[str, Any]], Any]
    label: Callable[[Any], str]
    row_size: Callable[[Any], int]
    check_row: Callable[[Sequence[Any], Any, int, int | str], str | None]
    from_record: Callable[[Sequence[Any], Any], Row]
    prepare_refs: Callable[[Any], Callable[[Sequence[str]], Any]]
    count: Callable[[Any], Callable[[str, Any], Row]]
    score: Callable[[Sequence[Any], Any], Any]
    sentence_score: Callable[[Sequence[Any], Any], Any]
    signature: Callable[[Any, int | str], dict[str, str]]
    score_object: Callable[[Any, Any], Any]
    json_fields: Callable[[Any, Any], dict[str, Any]]
    tsv_fields: Callable[[Any, Any], list[tuple[str, str]]]
    verbose: Callable[[Any, Any, int], str]
    count_batch: Callable[[Any], CountBatch]
    sum_batch: Callable[[Any], SumBatch]
    sum_block: Callable[[Any], SumBlock]
    score_batch: Callable[[Any], ScoreBatch]
    KERNEL_TWINS: Mapping[str, tuple[Callable[..., Any] | None, Callable[..., Any]]]
