"""The set loop: a metric of a set of sentences scored against each other
(Self-BLEU), each input one set.

The loop reads each set, or a sample of it, into a table of every
sentence's n-grams, then scores every sentence against the others and
writes the records once the input ends.
"""

from __future__ import annotations

from typing import Any, BinaryIO

from bleustream.errors import EXIT_OK, InputError, Interrupted, count_of, signal_status
from bleustream.inputs.lines import BadLinePolicy
from bleustream.output.records import FORMATTERS, Record, header
from bleustream.run.final import final_text
from bleustream.run.state import (
    Report,
    RunOptions,
    State,
    marked_or_withheld,
    systems_of,
    write_whole,
)

# One set read: each sentence's line, its words' ids, and the table of
# every sentence's n-grams.
_Set = tuple[list[int], list[Any], Any]


def run_sets(options: RunOptions, stdin: BinaryIO | None, stdout: BinaryIO, report: Report) -> int:
    """Self-BLEU of each input (``-i FILE...`` or stdin; one set each): read
    the set, or a sample of it, then score every sentence against the others."""
    policy = BadLinePolicy(options.reading.skip_bad_lines, report)
    sets, status = _read_sets(options, stdin, policy, report)
    state = State(options, options.specs[:1], 1, systems_of(options))
    state.partial = status != EXIT_OK
    return write_whole(stdout, _sets_text(state, sets, policy.count, report), status)


def _read_sets(
    options: RunOptions, stdin: BinaryIO | None, policy: BadLinePolicy, report: Report
) -> tuple[list[_Set], int]:
    """Each input's set, and the exit status so far: a signal ends the
    reading, with the sentences read so far."""
    from bleustream.inputs.lines import open_source
    from bleustream.inputs.sentences import sentences
    from bleustream.metrics import self_bleu

    reading = options.reading
    settings: self_bleu.Settings = options.specs[0].settings
    words = self_bleu.words_of(settings)
    sets: list[_Set] = []
    for path in reading.inputs:
        lines: list[int] = []
        kept: list[Any] = []
        table = self_bleu.OthersTable(settings.max_order)
        vocabulary = self_bleu.Vocabulary()
        sets.append((lines, kept, table))
        source = open_source(path, stdin, reading.encoding, reading.encoding_errors, policy)
        try:
            read = sentences(source, options.self_bleu_column)
            if settings.sample:
                read = iter(self_bleu.sample(read, settings.sample, settings.seed))
            for line, text in read:
                ids = vocabulary(words(text))
                table.add(ids)
                lines.append(line)
                kept.append(ids)
        except Interrupted as exc:
            report(
                f"interrupted; the score covers the {count_of(len(kept), 'sentence')} read so far"
            )
            return sets, signal_status(exc.signum)
        finally:
            source.close()
        if len(kept) == 1 or (not kept and not options.allow_empty):
            what = "one sentence" if kept else "no sentences"
            raise InputError(
                f"{what}: Self-BLEU scores each sentence against the others, so it needs "
                "at least two" + ("" if kept else " (--allow-empty scores 0)"),
                source.name,
            )
    return sets, EXIT_OK


def _sets_text(state: State, sets: list[_Set], skipped: int, report: Report) -> str:
    """The header and the records of the sets read, every sentence scored
    against the others read; of an interrupted run, marked or withheld."""
    from bleustream.metrics import self_bleu

    options, spec, partial = state.options, state.specs[0], state.partial
    ctx = state.context()
    formatter = FORMATTERS[options.format]
    out: list[str] = []
    finals = []
    for (lines, kept, table), system in zip(sets, state.systems):
        values = self_bleu.values_of(kept, table, spec.settings) if len(kept) > 1 else []
        total = spec.zero()
        for line, value in zip(lines, values):
            row = (value, 1)
            total = self_bleu.add_row(total, row)
            if options.reading.sentence_level:
                # Each sentence is scored against the others read: partial too.
                score = spec.sentence_score(row)
                record = Record("segment", (score,), 1, line=line, system=system, partial=partial)
                out.append(formatter(record, ctx))
        finals.append(
            Record(
                "corpus",
                (spec.score(total),),
                len(values),
                system=system,
                partial=partial,
                skipped=skipped,
            )
        )
    if skipped:
        report(f"skipped {count_of(skipped, 'bad line')}")
    out.append(final_text(options.format, ctx, finals, None))
    text = "".join(out)
    if partial:
        read = sum(len(kept) for _, kept, _ in sets)
        text = marked_or_withheld(
            report, options.format, ctx, text, finals, read, "sentence", at_the_end=True
        )
    return header(options.format, ctx) + text
