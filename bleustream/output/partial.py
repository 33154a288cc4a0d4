"""No unmarked partial score: where an interrupted run's score may go.

A run cut short by SIGINT or SIGTERM scores the segments read so far.  The
rule, written once here (and in the manual's EXIT STATUS):

* a format that can mark that score on every line or record carrying it
  writes it to standard output, marked: text records (``[PARTIAL: ...]``
  on each line), JSON Lines and statistics records (``"partial": true``),
  TSV (the ``partial`` column), bleustream's JSON document (``"partial":
  true`` in each object);
* a format that cannot (``-b``; SacreBLEU's layouts: its text and JSON in
  ``--compat sacrebleu``, its tables of several systems, LaTeX) writes no
  score to standard output at all: the score goes to standard error, each
  line marked partial with the segments it covers.

The exit status says the run was interrupted either way.

Statistics read back (``--input-format stats``) from a record of an
interrupted run (``"partial": true``) make a partial score too, and follow
the same rule: marked where the format can mark it, naming where that
record was read, else kept off standard output; one line on standard error
names the record's file and line, and the exit status is the data error's
(65), unless this run was interrupted too.
"""

from __future__ import annotations

from bleustream.errors import count_of
from bleustream.output.records import Context

# What begins each line of a withheld score on standard error.
PARTIAL_PREFIX = "PARTIAL"


def unmarkable_because(
    fmt: str, ctx: Context, several: bool, at_the_end: bool = False
) -> str | None:
    """What cannot carry a partial mark on every line of ``fmt`` with a score
    (for a message), or None when every line can.

    ``several``: the run has more than one system (text then writes a table).
    ``at_the_end``: segment records are scored at the end too, from tables
    of the whole input (NIST, Self-BLEU), so they are partial as well;
    otherwise they were written as each segment was read, whole.
    This follows what the record loop writes at the end (``final_text``).
    """
    if fmt == "stats" or (ctx.sentence_only and not at_the_end):
        return None  # records that say partial, or no corpus score
    if ctx.score_only:
        return "-b's bare numbers"
    if fmt == "latex":
        return "SacreBLEU's LaTeX table"
    if ctx.compat and fmt in ("text", "json"):
        return f"SacreBLEU's {fmt.upper() if fmt == 'json' else fmt} (--compat sacrebleu)"
    if fmt == "text" and several and not ctx.sentence_only:
        return "the table of several systems"
    return None


def withheld_lines(text: str, covered: str, reason: str) -> list[str]:
    """The messages that carry a score kept off standard output: one line
    saying why, then each line of ``text`` marked partial with what it
    covers (``covered``: "126 segments")."""
    lines = [
        f"the partial score is not written to standard output ({reason}: no place to mark it):"
    ]
    lines += [f"{PARTIAL_PREFIX} ({covered}): {line}" for line in text.splitlines() if line.strip()]
    return lines


def partial_input(partial_at: list[tuple[str, int]]) -> str | None:
    """Where statistics of an interrupted run were read back (``partial_at``:
    the first such record of each file), for a mark: ``shard.stats:3``,
    ``shard.stats:3 and 2 other files``; None if nowhere."""
    if not partial_at:
        return None
    name, line = partial_at[0]
    others = len(partial_at) - 1
    return f"{name}:{line}" + (f" and {count_of(others, 'other file')}" if others else "")


def partial_input_message(partial_at: list[tuple[str, int]]) -> str:
    """The line on standard error that says statistics read back are partial:
    it begins with the first such record's file and line, and counts the
    other files that hold one."""
    name, line = partial_at[0]
    others = len(partial_at) - 1
    more = f"; {count_of(others, 'other file')} too" if others else ""
    return (
        f'{name}:{line}: a record of an interrupted run ("partial": true{more}): '
        "the score read back is partial"
    )
