"""Abbreviated options, checked against SacreBLEU's.

argparse takes any unique prefix of a long option (``--tok`` for
``--tokenize``), as SacreBLEU's parser does; bleustream has options that
SacreBLEU lacks, so a prefix could mean one option here and another
there (``-t`` was ``-tok`` before ``-t`` became ``--test-set``).  A script
written for SacreBLEU must never be read differently: an abbreviation
that SacreBLEU resolves to one option is that option here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

# SacreBLEU 2.6's option strings (sacrebleu.py, parse_args), each with the
# bleustream option string of the same meaning.
SACREBLEU_OPTIONS: Mapping[str, str] = {
    **{flag: flag for flag in (
        "--citation", "--cite", "--list", "--test-set", "-t", "--language-pair", "-l",
        "--origlang", "-ol", "--subset", "--download", "--echo", "--input", "-i",
        "--num-refs", "-nr", "--encoding", "-e", "--metrics", "-m", "--sentence-level",
        "-sl", "--smooth-method", "-s", "--smooth-value", "-sv", "--tokenize", "-tok",
        "--lowercase", "-lc", "--force", "--chrf-char-order", "-cc", "--chrf-word-order",
        "-cw", "--chrf-beta", "--chrf-whitespace", "--chrf-lowercase",
        "--chrf-eps-smoothing", "--ter-case-sensitive", "--ter-asian-support",
        "--ter-no-punct", "--ter-normalized", "--confidence", "-ci", "--confidence-n",
        "-cin", "--paired-ar", "-par", "--paired-bs", "-pbs", "--paired-ar-n", "-parn",
        "--paired-bs-n", "-pbsn", "--paired-jobs", "-j", "--quiet", "-q", "--short",
        "-sh", "--score-only", "-b", "--width", "-w", "--detail", "-d", "--no-color",
        "-nc", "--format", "-f", "--version", "-V", "--help", "-h",
    )},
}  # fmt: skip


def _matches(token: str, flags: Iterable[str]) -> set[str]:
    """The option strings argparse may read ``token`` as (Python 3.8+).

    A long prefix matches the long options it starts; a single-dash token
    matches the short options it starts, and a one-letter option followed
    by its value (``-w0``).
    """
    if token.startswith("--"):
        return {flag for flag in flags if flag.startswith("--") and flag.startswith(token)}
    return {
        flag
        for flag in flags
        if not flag.startswith("--") and (flag.startswith(token) or flag == token[:2])
    }


def expand_abbreviations(argv: Sequence[str], dests: Mapping[str, str]) -> list[str]:
    """``argv`` with each long abbreviation read as SacreBLEU reads it.

    A prefix SacreBLEU resolves to one option is that option here, even
    where bleustream's own options would make it ambiguous (``--sh`` is
    ``--short``, not ``--show-config``).  Other abbreviations are left to
    argparse: one SacreBLEU lacks is bleustream's own, and one ambiguous to
    SacreBLEU is ambiguous here too (every SacreBLEU option is one of
    bleustream's, so a prefix of several of them is a prefix of as many).
    ``dests``: every bleustream option string and the setting it sets.
    """
    out = []
    for index, token in enumerate(argv):
        if token == "--":
            return out + list(argv[index:])
        name, equals, value = token.partition("=")
        if token.startswith("--") and name not in dests:
            there = _matches(name, SACREBLEU_OPTIONS)
            if len(there) == 1:
                token = SACREBLEU_OPTIONS[there.pop()] + equals + value
        out.append(token)
    return out
