"""The man page and README document what the command does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from bleustream.errors import EXIT_SIGTERM, EXIT_STATUSES
from tests.helpers.clirun import run
from tests.helpers.paths import ROOT
from tests.helpers.required import missing

MAN = ROOT / "man" / "bleustream.1"
README = ROOT / "README.md"


def help_options() -> set[str]:
    text = run("--help").stdout.decode()
    # An option stands after white space, a bracket or a comma.
    return set(re.findall(r"(?:^|(?<=[\s\[(,]))(--?[A-Za-z][\w-]*)", text, re.M))


def man_text() -> str:
    return (
        MAN.read_text(encoding="utf-8").replace("\\-", "-").replace("\\fB", "").replace("\\fP", "")
    )


def test_help_lists_options() -> None:
    options = help_options()
    assert {"--tokenize", "-tok", "--format", "--every", "--sentence-level"} <= options


def test_every_help_option_is_in_the_man_page() -> None:
    man = man_text()
    missing = sorted(
        opt for opt in help_options() if not re.search(rf"(?<![\w-]){opt}(?![\w-])", man)
    )
    assert not missing, f"options in --help but not in man/bleustream.1: {missing}"


def test_man_page_renders_without_warnings() -> None:
    if shutil.which("groff") is None:
        missing("groff is not installed (.ci/run installs it): cannot render the man page")
    proc = subprocess.run(
        ["groff", "-man", "-ww", "-z", str(MAN)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert proc.stderr == ""


def test_man_l_renders_without_warnings() -> None:
    if shutil.which("man") is None:
        missing("man is not installed (.ci/run installs it)")
    env = {**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MAN_KEEP_FORMATTING": "0"}
    proc = subprocess.run(
        ["man", "--warnings", "-l", str(MAN)], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert "EXIT STATUS" in re.sub(".\b", "", proc.stdout)


def test_exit_statuses_agree_in_help_and_man() -> None:
    """Every status of ``errors.EXIT_STATUSES`` (and 143, which 130's row names)."""
    statuses = {str(status) for status, _ in EXIT_STATUSES} | {str(EXIT_SIGTERM)}
    assert len(statuses) == len(EXIT_STATUSES) + 1
    helptext = run("--help").stdout.decode()
    man = man_text()
    for status in statuses:
        assert (
            re.search(rf"^\s+{status}\s", helptext, re.M) or f"({status} for SIGTERM)" in helptext
        )
        assert re.search(rf"^\.B {status}$", man, re.M) or f"({status} for SIGTERM)" in man


def test_readme_leaves_exit_statuses_to_the_man_page() -> None:
    """The man page is the one reference: the README links to it, and has no table."""
    readme = README.read_text(encoding="utf-8")
    assert "](man/bleustream.1)" in readme
    assert "exit statuses" in readme
    assert not re.search(r"^\| 65 \|", readme, re.M)


def test_readme_commands_are_what_ci_runs() -> None:
    """The README's install and test commands, each a line of a fenced block, are CI's."""
    readme = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    fenced = [
        line
        for block in re.findall(r"^```[a-z]*\n(.*?)^```$", readme, re.M | re.S)
        for line in block.splitlines()
    ]
    for command in ("python3 -m pip install -e '.[test]'", "python3 -m pytest"):
        assert command in fenced, f"{command!r} is not a line of a fenced block of README.md"
        assert command in ci, f"{command!r} is not a line of .ci/run"


def test_readme_is_at_most_15_kb() -> None:
    size = README.stat().st_size
    assert size <= 15 * 1024, f"README.md is {size} bytes, more than 15 KB"


def test_readme_links_every_document() -> None:
    readme = README.read_text(encoding="utf-8")
    docs = sorted((ROOT / "docs").glob("*.md"))
    assert {path.name for path in docs} >= {
        "guide.md",
        "scaling-out.md",
        "stats-record.md",
        "design.md",
        "sacrebleu-differences.md",
    }
    for path in docs:
        assert f"](docs/{path.name})" in readme, f"README.md does not link docs/{path.name}"
    assert "](man/bleustream.1)" in readme


def man_options_section() -> str:
    """The man page's OPTIONS section, between ``.SH OPTIONS`` and the next ``.SH``."""
    text = MAN.read_text(encoding="utf-8")
    match = re.search(r"^\.SH OPTIONS\n(.*?)^\.SH ", text, re.M | re.S)
    assert match, "man/bleustream.1 has no OPTIONS section"
    return match.group(1).replace("\\-", "-")


def table_options() -> set[str]:
    from bleustream.cli.options import all_options

    flags: set[str] = set()
    for option in all_options():
        flags.update(option.flags)
        if option.kind == "bool":
            flags.update("--no-" + flag[2:] for flag in option.flags if flag.startswith("--"))
    return flags


def test_man_options_section_lists_exactly_the_option_table() -> None:
    section = man_options_section()
    # The options a .TP entry names: its tag line, the line after .TP.
    tags = re.findall(r"^\.TP\n(.*)$", section, re.M)
    named = {
        flag
        for tag in tags
        for flag in re.findall(r"(?:^|(?<=[\s\"]))(--?[A-Za-z][\w-]*)", tag.replace("\\fI", " "))
    }
    in_section = set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*[a-z0-9])(?![\w-])", section))
    table = table_options()
    builtin = {"-h", "--help", "-V", "--version"}
    missing = sorted(table - named)
    assert not missing, f"options of the option table not in the man page's OPTIONS: {missing}"
    unknown = sorted((named | in_section) - table - builtin)
    assert not unknown, f"options in the man page's OPTIONS that the option table lacks: {unknown}"


def test_the_guides_batch_example_prints_what_it_says() -> None:
    """The guide's ``sentence_scores`` example runs, and prints the list its
    comment shows (SacreBLEU's sentence BLEU of the two pairs)."""
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", guide, re.M | re.S)
    (block,) = [b for b in blocks if "sentence_scores(" in b]
    shown = re.search(r"^print\(rewards\)  # (.*)$", block, re.M)
    assert shown is not None
    out = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == shown.group(1)
    import sacrebleu  # the oracle, a test dependency

    hyps = ["The cat sat on the mat.", "It is raining today."]
    refs = ["The cat sat on the mat.", "It rains today."]
    theirs = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]
    assert shown.group(1) == str(theirs)


def man_entry(flag: str) -> str:
    """The text of the man page's OPTIONS entry whose tag names ``flag``."""
    entries = re.split(r"^\.TP\n", man_options_section(), flags=re.M)
    (entry,) = [e for e in entries if re.search(rf"(?<![\w-]){flag}(?![\w-])", e.split("\n")[0])]
    return entry


def help_entry(flag: str) -> str:
    """``--help``'s text of the option whose line starts with ``flag``."""
    text = run("--help").stdout.decode()
    match = re.search(rf"^  {flag}\b.*?(?=^  -|^\S|\Z)", text, re.M | re.S)
    assert match, f"--help has no entry for {flag}"
    return " ".join(match.group(0).split())


def test_every_metric_is_named_by_help_and_man_for_m() -> None:
    from bleustream.metrics.registry import CORPUS_METRICS, METRICS

    help_m, man_m = help_entry("-m"), man_entry("-m").replace("\\", "")
    for name in (*METRICS, *CORPUS_METRICS):
        assert re.search(rf"(?<![\w-]){name}(?![\w-])", help_m), (name, help_m)
        assert re.search(rf"(?<![\w-]){name}(?![\w-])", man_m), (name, man_m)


def test_no_help_calls_a_working_option_unsupported() -> None:
    text = " ".join(run("--help").stdout.decode().split())
    assert "not supported" not in text


def test_options_of_an_extra_name_it_in_help_and_readme() -> None:
    """The groups of options that need an extra name it in --help; the
    README's usage lines of those options name it too."""
    text = run("--help").stdout.decode()
    assert "pip install 'bleustream[significance]'" in text
    assert "pip install 'bleustream[testsets]'" in text
    readme = README.read_text(encoding="utf-8")
    usage = readme[readme.index("## Usage") :]
    usage = usage[: usage.index("\n\n", usage.index("    "))]
    for line in usage.splitlines():
        if re.search(r"\s(-pbs|-par|-ci)\s", line):
            assert "bleustream[significance]" in line, line
