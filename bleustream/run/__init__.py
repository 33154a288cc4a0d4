"""The record loop: segments in, records out.

``run`` reads what its options name, scores it with every metric asked for
and writes the records.  It knows nothing of argparse or of the process: it
is given typed options, the binary streams to use and a function to report
problems with, and returns an exit status.

It chooses the loop by what the metric declares (``LOOP``, read by
``bleustream.metrics.registry.loop_of``), never by its name:

- ``run.stream``: the streaming loop, records written as they complete
  (BLEU, chrF, TER; statistics read back);
- ``run.corpus``: the corpus-wide loop, scored at the end from tables of
  the whole input (NIST);
- ``run.sets``: the set loop, each input a set of sentences scored against
  each other (Self-BLEU).

``run.analyze`` is the loop of ``--analyze`` (``options.analysis``): the
same input into one ``Analyzer``, and its document out.

Below them, ``run.state`` holds what they share (the options, the state,
the output) and ``run.final`` SacreBLEU's end-of-run layouts.
"""

from __future__ import annotations

from typing import BinaryIO, TextIO

from bleustream.errors import UsageError
from bleustream.metrics.registry import loop_of
from bleustream.run.state import Output, Report, RunOptions
from bleustream.run.stream import CI_NEEDS_PAIRED, PAIRED_NEEDS_SYSTEMS, run_stream, summed_text

__all__ = [
    "CI_NEEDS_PAIRED",
    "PAIRED_NEEDS_SYSTEMS",
    "Output",
    "Report",
    "RunOptions",
    "run",
    "summed_text",
]


def run(
    options: RunOptions,
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Report,
    progress_stream: TextIO | None = None,
) -> int:
    """Score the input the options name; returns the exit status.

    With ``options.progress``, progress lines go to ``progress_stream``.
    """
    if options.analysis is not None:
        from bleustream.run.analyze import run_analysis

        return run_analysis(options, stdin, stdout, report)
    loop = loop_of(options.specs)
    if options.parts is not None and loop != "stream":
        names = ", ".join(spec.label for spec in options.specs)
        raise UsageError(
            f"--detail (-d) scores a test set's parts with streamed metrics: not {names}"
        )
    if loop == "set":  # each loop is loaded by the run that needs it
        from bleustream.run.sets import run_sets

        return run_sets(options, stdin, stdout, report)
    if loop == "corpus" and options.reading.input_format != "stats":
        from bleustream.run.corpus import run_corpus_wide

        return run_corpus_wide(options, stdin, stdout, report)
    # Statistics read back are opened by the streaming loop, which hands
    # NIST's tables to the corpus-wide loop.
    corpus_wide = loop == "corpus"
    return run_stream(options, stdin, stdout, report, progress_stream, corpus_wide)
