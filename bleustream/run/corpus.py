"""The corpus-wide loop: a metric scored at the end from tables of the
whole input (NIST, whose weights need every reference).

The loop keeps the reference table and each segment's matched n-grams, and
writes every record once the input ends: ``-sl``'s segment records and
``--nist-docs``' document records are scored then, with the corpus-wide
weights.  Statistics read back (``--input-format stats``) are NIST's
tables, merged the same way.
"""

from __future__ import annotations

import json
from typing import Any, BinaryIO

from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_OK,
    InputError,
    Interrupted,
    count_of,
    signal_status,
)
from bleustream.inputs.items import Item, input_name, items_of_segments, text_items
from bleustream.inputs.lines import BadLinePolicy, LineSource
from bleustream.metrics.registry import Spec
from bleustream.output.partial import partial_input, partial_input_message
from bleustream.output.records import FORMATTERS, Record, header
from bleustream.run.final import final_text
from bleustream.run.state import (
    Report,
    RunOptions,
    State,
    marked_or_withheld,
    segment_record,
    systems_of,
    write_whole,
)


def run_corpus_wide(
    options: RunOptions,
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Report,
    opened: tuple[list[LineSource], BadLinePolicy] | None = None,
) -> int:
    """NIST: read everything into one ``NistCorpus`` (the reference table and
    each system's matched n-grams), then score with the corpus-wide weights.

    ``-sl`` keeps each segment's counts too, for its record at the end.
    ``-j N`` counts blocks of regular files on workers and merges their
    tables; statistics read back (``--input-format stats``) merge the same
    way: the numbers are one process's, with the settings the records
    carry.  ``opened``: the statistics files, already opened, and their policy.
    """
    settings = options.specs[0].settings
    policy = BadLinePolicy(options.reading.skip_bad_lines, report) if opened is None else opened[1]
    systems = systems_of(options)
    status, partial = EXIT_OK, False
    read_partial: list[tuple[str, int]] = []  # records of an interrupted run read back
    try:
        if options.reading.input_format == "stats":
            corpus, names, settings, read_partial = _nist_read_back(options, stdin, policy, opened)
            if names is not None:
                systems = names
            counted, where, docs = None, [], {}
        else:
            corpus, counted, where, docs = _nist_count(
                options, stdin, policy, settings, len(systems)
            )
    except _NistInterrupted as stop:
        corpus, counted, where, docs = stop.corpus, stop.counted, stop.where, stop.docs
        partial = True
        status = signal_status(stop.signum)
        report(
            f"interrupted; the score covers the {count_of(corpus.segments, 'segment')} read so far"
        )
    nrefs = corpus.nrefs
    spec = Spec(options.specs[0].metric, settings._replace(nrefs=nrefs or 1))
    state = State(options, (spec,), nrefs or len(options.reading.refs) or 1, systems)
    state.partial = partial
    segments = corpus.segments
    if state.is_empty(segments, policy.count):
        report(state.empty_message(policy.count))
        if not options.allow_empty:
            return EXIT_DATAERR
    elif policy.count:
        report(
            f"skipped {count_of(policy.count, 'bad line')}; the score covers "
            f"{count_of(segments, 'segment')}"
        )
    if read_partial:
        report(partial_input_message(read_partial))
        status = status if status != EXIT_OK else EXIT_DATAERR
    if options.format == "stats":
        partly = partial or bool(read_partial)
        out = [
            json.dumps(
                _nist_record(corpus, index, spec, system, partly, policy.count), ensure_ascii=False
            )
            for index, system in enumerate(systems)
        ]
        return write_whole(stdout, "".join(line + "\n" for line in out), status)
    read = (counted, where, docs)
    text = _corpus_text(state, corpus, read, read_partial, policy.count, report)
    return write_whole(stdout, text, status)


def _corpus_text(
    state: State,
    corpus: Any,
    read: Any,
    read_partial: list[tuple[str, int]],
    skipped: int,
    report: Report,
) -> str:
    """The header and every record of the corpus read, scored now with the
    corpus-wide weights: the segments' and documents' records (``read``, as
    ``_nist_detail_records`` takes it), then each system's corpus record;
    of an interrupted run, marked or withheld."""
    options, spec, systems, partial = state.options, state.specs[0], state.systems, state.partial
    ctx = state.context()
    formatter = FORMATTERS[options.format]
    records = _nist_detail_records(spec, corpus, systems, read)
    if partial:
        # Scored now with the weights of the references read: of an
        # interrupted input, each is partial.
        records = [r._replace(partial=True) for r in records]
    finals = [
        Record(
            "corpus",
            (spec.score(row),),
            corpus.segments,
            system=system,
            partial=partial or bool(read_partial),
            partial_input=partial_input(read_partial),  # statistics of an interrupted run
            skipped=skipped,
        )
        for system, row in zip(systems, corpus.rows())
    ]
    text = "".join(formatter(r, ctx) for r in records)
    text += final_text(options.format, ctx, finals, None)
    if partial or read_partial:
        text = marked_or_withheld(
            report, options.format, ctx, text, finals, corpus.segments, at_the_end=True
        )
    return header(options.format, ctx) + text


def _nist_detail_records(spec: Spec, corpus: Any, systems: list[Any], read: Any) -> list[Record]:
    """NIST's segment records (``-sl``) and document records, scored now
    with the corpus-wide weights; ``read``: the counts of each segment,
    the items they came from and the documents' counts (statistics read
    back have none)."""
    from bleustream.metrics import nist

    counted, where, docs = read
    records = []
    if counted is not None:
        cache: dict[str, float] = {}
        for position, item in enumerate(where):
            for index, system in enumerate(systems):
                row = nist.weighted_row(counted[index][position], corpus.table, cache)
                records.append(segment_record(item, (spec.sentence_score(row),), system))
    for doc in sorted(docs):  # mteval's order of the documents: their ids' string order
        for index, system in enumerate(systems):
            counts = docs[doc][index]
            records.append(
                Record(
                    "document",
                    (spec.score(counts.row(corpus.table)),),
                    counts.segments,
                    id=doc,
                    system=system,
                )
            )
    return records


class _NistInterrupted(Exception):
    """A signal while NIST was counting: what was counted, to score as partial."""

    def __init__(
        self, signum: int, corpus: Any, counted: Any, where: list[Item], docs: Any
    ) -> None:
        self.signum, self.corpus, self.counted, self.where = signum, corpus, counted, where
        self.docs = docs


def _nist_count(
    options: RunOptions, stdin: BinaryIO | None, policy: BadLinePolicy, settings: Any, nsys: int
) -> tuple[Any, list[list[Any]] | None, list[Item], dict[str, list[Any]]]:
    """The text's ``NistCorpus``; with ``-sl`` each segment's counts and items
    too, and with ``--nist-docs`` each document's counts, per system."""
    from bleustream.metrics import nist

    words = nist.words_of(settings)
    corpus = nist.NistCorpus.empty(settings.order, nsys)
    counted: list[list[Any]] | None = (
        [[] for _ in range(nsys)] if options.reading.sentence_level else None
    )
    where: list[Item] = []
    docs: dict[str, list[Any]] = {}
    sources: list[LineSource] = []
    counter = None
    doc_of = None
    try:
        segments, sources = text_items(options.reading, stdin, policy)
        if options.nist_docs is not None:
            doc_of = _DocIds(options, stdin)
        if options.jobs > 1 and counted is None and doc_of is None:
            from bleustream.parallel.block_tasks import NistTask, block_tasks, nist_block
            from bleustream.parallel.pool import ParallelCounter

            counter = ParallelCounter(options.specs, nsys, options.jobs, True)
            blocks = block_tasks(options.reading, sources, counter)
            if blocks is not None:
                tasks = (NistTask(block, settings, nsys) for block in blocks)
                for _, done in counter.mapped(nist_block, tasks):
                    for bad in done.skipped:
                        policy(bad)
                    if done.error is not None:
                        raise done.error
                    corpus.merge(done.corpus)
                return corpus, None, [], docs
        for item in items_of_segments(segments, options.reading, sources, policy):
            refs = [words(ref) for ref in item.refs]
            if not any(refs):
                raise InputError(nist.EMPTY_REFERENCES, input_name(options.reading), item.line)
            added = corpus.add([words(hyp) for hyp in item.hyps], refs)
            if counted is not None:
                for index, counts in enumerate(added):
                    counted[index].append(counts)
                where.append(item._replace(hyps=(), refs=()))
            if doc_of is not None:
                doc_id = doc_of(item.line)
                if doc_id not in docs:
                    docs[doc_id] = [nist.SystemCounts(settings.order) for _ in range(nsys)]
                for system, counts in zip(docs[doc_id], added):
                    system.add(counts)
    except Interrupted as exc:
        raise _NistInterrupted(exc.signum, corpus, counted, where, docs) from None
    finally:
        if counter is None or not counter.reading:
            for source in sources:
                source.close()
        if counter is not None:
            counter.close()
        if doc_of is not None:
            doc_of.close()
    return corpus, counted, where, docs


class _DocIds:
    """``--nist-docs FILE``: the document id of an input line, read in step."""

    def __init__(self, options: RunOptions, stdin: BinaryIO | None) -> None:
        from bleustream.inputs.lines import open_source

        assert options.nist_docs is not None
        self.source = open_source(options.nist_docs, stdin, options.reading.encoding)
        self.last: str | None = None

    def __call__(self, line: int) -> str:
        source = self.source
        while source.line < line:
            text = next(source, None)
            if text is None and source.line < line:
                raise InputError(
                    f"the document ids end at line {source.line}; the input has a line {line}",
                    source.name,
                )
            self.last = text
        if not self.last or not self.last.strip():
            raise InputError("an empty document id", source.name, source.line)
        return self.last.strip()

    def close(self) -> None:
        self.source.close()


def _nist_read_back(
    options: RunOptions,
    stdin: BinaryIO | None,
    policy: BadLinePolicy,
    opened: tuple[list[LineSource], BadLinePolicy] | None,
) -> tuple[Any, list[str | int | None] | None, Any, list[tuple[str, int]]]:
    """NIST statistics read back: every record's tables merged, per system
    (the systems named by the records, in the order first seen), the
    settings the records carry, and where records of an interrupted run
    were read."""
    from bleustream.inputs.items import open_stats
    from bleustream.inputs.nist_records import NistRecords
    from bleustream.metrics import nist

    given = dict(options.reading.counting_given.get(nist.NAME, {}))
    records = NistRecords(given)
    sources = open_stats(options.reading, stdin, policy) if opened is None else opened[0]
    try:
        for source in sources:
            records.read(source)
    finally:
        for source in sources:
            source.close()
    corpus, names = records.corpus(input_name(options.reading))
    settings = records.settings or options.specs[0].settings
    if corpus is None:
        corpus = nist.NistCorpus.empty(settings.order, 1)
    return corpus, names, settings, records.partial_at


def _nist_record(
    corpus: Any, index: int, spec: Spec, system: str | int | None, partial: bool, skipped: int
) -> dict[str, Any]:
    """System ``index``'s corpus record of ``-f stats``: its ``stats`` are NIST's tables."""
    from bleustream.metrics import nist
    from bleustream.metrics.stats_record import record_object

    extra = {} if system is None else {"system": system}
    stats = (nist.stats_object(corpus, index),)
    record = record_object("corpus", (spec,), stats, corpus.segments, corpus.nrefs or 1, extra)
    record["partial"], record["skipped"] = partial, skipped
    return record
