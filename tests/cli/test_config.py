"""Settings from TOML: discovery, precedence, errors, --show-config, both parsers.

Every check runs the real command in a subprocess whose working directory is
a fresh temporary directory; scores and signatures are compared with
SacreBLEU's, never with numbers bleustream computed itself.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from sacrebleu.metrics.bleu import BLEU

from bleustream.cli.config import Key, build_schema, check_value, render
from bleustream.cli.options import DEFAULTS, config_options
from bleustream.cli.parser import build_parser
from bleustream.errors import UsageError
from bleustream.metrics.protocol import OptionSpec

# Mixed case, punctuation and Chinese: lowercasing and the tokenizer matter.
PAIRS = [
    ("The Cat sat on the mat.", "the cat sat on a mat."),
    ("It rained today, She said.", "it rained today , she said ."),
    ("猫坐在垫子上。", "猫坐在了垫子上。"),
    ("A QUICK brown fox!", "a quick brown fox jumps!"),
]
PASTE = "".join(f"{hyp}\t{ref}\n" for hyp, ref in PAIRS)
SIGNATURE_FIELDS = ("nrefs", "case", "eff", "tok", "smooth")


def without_note(stderr: str) -> str:
    """stderr without the line naming a config file found by discovery."""
    return re.sub(r"^bleustream: settings read from [^\n]*\n", "", stderr)


def bleustream(
    *args: str, cwd: Path, input: str = PASTE, prelude: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m bleustream`` (or ``main`` after ``prelude``) in ``cwd``."""
    if prelude is None:
        command = [sys.executable, "-m", "bleustream", *args]
    else:
        code = f"{prelude}\nimport sys\nfrom bleustream.cli.main import main\nsys.exit(main())"
        command = [sys.executable, "-c", code, *args]
    return subprocess.run(
        command, cwd=cwd, input=input, capture_output=True, encoding="utf-8", timeout=60
    )


def corpus_record(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    assert without_note(proc.stderr) == ""
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["type"] for r in records][-1] == "corpus"
    return records[-1]


def assert_sacrebleu(record: dict[str, Any], **settings: Any) -> None:
    """The record's score and signature are SacreBLEU's with ``settings``."""
    bleu = BLEU(**settings)
    expected = bleu.corpus_score([h for h, _ in PAIRS], [[r for _, r in PAIRS]])
    assert record["score"] == expected.score
    info = bleu.get_signature().info
    for field in SIGNATURE_FIELDS:
        assert record[field] == str(info[field]), field


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def shown(proc: subprocess.CompletedProcess[str]) -> dict[str, tuple[str, str]]:
    """--show-config output: key -> (value text, origin), unset keys included."""
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        setting, _, origin = line.partition("  # from: ")
        if not origin:
            continue
        key, _, value = setting.lstrip("# ").partition(" = ")
        out[key.strip()] = (value.strip(), origin)
    return out


# ----------------------------------------------------------------------------
# Precedence and the signature
# ----------------------------------------------------------------------------


def test_without_any_config_the_defaults_are_sacrebleus(tmp_path: Path) -> None:
    assert_sacrebleu(corpus_record(bleustream("-f", "jsonl", cwd=tmp_path)))


def test_flag_over_file_over_default(tmp_path: Path) -> None:
    write(
        tmp_path / "bleustream.toml",
        """\
        tokenize = "char"
        lowercase = true
        smooth-method = "floor"
        """,
    )
    # tokenize: command line; lowercase, smooth-method: file; the rest: defaults.
    record = corpus_record(bleustream("-f", "jsonl", "-tok", "intl", cwd=tmp_path))
    assert_sacrebleu(record, tokenize="intl", lowercase=True, smooth_method="floor")
    origins = shown(bleustream("--show-config", "-tok", "intl", cwd=tmp_path))
    assert origins["tokenize"] == ('"intl"', "command line")
    assert origins["lowercase"] == ("true", "bleustream.toml")
    assert origins["smooth-method"] == ('"floor"', "bleustream.toml")
    assert origins["max-ngram-order"] == ("4", "default")
    assert origins["format"] == ('"text"', "default")


def test_the_file_alone_decides_score_and_signature(tmp_path: Path) -> None:
    write(
        tmp_path / "bleustream.toml",
        """\
        tokenize = "zh"
        lowercase = true
        smooth-method = "add-k"
        smooth-value = 2
        effective-order = true
        format = "jsonl"
        """,
    )
    record = corpus_record(bleustream(cwd=tmp_path))
    assert_sacrebleu(
        record,
        tokenize="zh",
        lowercase=True,
        smooth_method="add-k",
        smooth_value=2.0,
        effective_order=True,
    )
    assert (
        record["signature"]
        == "nrefs:1|case:lc|eff:yes|tok:zh|smooth:add-k[2.00]|"
        + (record["signature"].rsplit("|", 1)[1])
    )


def test_no_flag_overrides_a_true_in_the_file(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "lowercase = true\ntokenize = 'none'\n")
    record = corpus_record(bleustream("-f", "jsonl", "--no-lowercase", cwd=tmp_path))
    assert_sacrebleu(record, tokenize="none", lowercase=False)


def test_max_ngram_order_from_the_file_shows_in_the_signature(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "max-ngram-order = 2\n")
    record = corpus_record(bleustream("-f", "jsonl", cwd=tmp_path))
    assert_sacrebleu(record, max_ngram_order=2)
    assert record["order"] == "2"
    record = corpus_record(bleustream("-f", "jsonl", "--max-ngram-order", "3", cwd=tmp_path))
    assert_sacrebleu(record, max_ngram_order=3)


def test_output_settings_from_the_file(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "sentence-level = true\nevery = 2\nformat = 'jsonl'\n")
    proc = bleustream(cwd=tmp_path)
    kinds = [json.loads(line)["type"] for line in proc.stdout.splitlines()]
    assert kinds == ["segment", "segment", "running", "segment", "segment", "running", "corpus"]
    write(tmp_path / "bleustream.toml", "score-only = true\nwidth = 3\n")
    expected = BLEU().corpus_score([h for h, _ in PAIRS], [[r for _, r in PAIRS]]).score
    assert bleustream(cwd=tmp_path).stdout == f"{expected:.3f}\n"


# ----------------------------------------------------------------------------
# Discovery and --no-config
# ----------------------------------------------------------------------------

PYPROJECT = """\
[project]
name = "experiment"

[tool.ruff]
line-length = 3

[tool.bleustream]
tokenize = "char"
lowercase = true
"""


def test_pyproject_table_is_read(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", PYPROJECT)
    record = corpus_record(bleustream("-f", "jsonl", cwd=tmp_path))
    assert_sacrebleu(record, tokenize="char", lowercase=True)
    origins = shown(bleustream("--show-config", cwd=tmp_path))
    assert origins["tokenize"] == ('"char"', "pyproject.toml [tool.bleustream]")


def test_bleustream_toml_comes_before_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", PYPROJECT)
    write(tmp_path / "bleustream.toml", "tokenize = 'intl'\n")
    # Only the first file found is read: lowercase from pyproject does not apply.
    record = corpus_record(bleustream("-f", "jsonl", cwd=tmp_path))
    assert_sacrebleu(record, tokenize="intl")


def test_pyproject_without_the_table_gives_defaults(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n[tool.other]\ntokenize = "zh"\n')
    assert_sacrebleu(corpus_record(bleustream("-f", "jsonl", cwd=tmp_path)))
    origins = shown(bleustream("--show-config", cwd=tmp_path))
    assert {origin for _, origin in origins.values()} == {"default"}


def test_only_the_working_directory_is_searched(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "tokenize = 'char'\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    assert_sacrebleu(corpus_record(bleustream("-f", "jsonl", cwd=sub)))


def test_config_option_replaces_discovery(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "lowercase = true\n")
    (tmp_path / "conf").mkdir()
    write(tmp_path / "conf" / "zh.toml", "tokenize = 'zh'\n")
    record = corpus_record(bleustream("-f", "jsonl", "--config", "conf/zh.toml", cwd=tmp_path))
    assert_sacrebleu(record, tokenize="zh")  # not lowercased: bleustream.toml is not read
    origins = shown(bleustream("--show-config", "--config", "conf/zh.toml", cwd=tmp_path))
    assert origins["tokenize"] == ('"zh"', "conf/zh.toml")


def test_config_option_with_a_pyproject_reads_its_table(tmp_path: Path) -> None:
    (tmp_path / "exp").mkdir()
    write(tmp_path / "exp" / "pyproject.toml", PYPROJECT)
    record = corpus_record(
        bleustream("-f", "jsonl", "--config", "exp/pyproject.toml", cwd=tmp_path)
    )
    assert_sacrebleu(record, tokenize="char", lowercase=True)


def test_no_config_skips_both_files(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", PYPROJECT)
    write(tmp_path / "bleustream.toml", "tokenize = 'intl'\nlowercase = true\n")
    assert_sacrebleu(corpus_record(bleustream("-f", "jsonl", "--no-config", cwd=tmp_path)))
    # Not even read: a broken file does not matter.
    write(tmp_path / "bleustream.toml", "tokenize = \n")
    assert_sacrebleu(corpus_record(bleustream("-f", "jsonl", "--no-config", cwd=tmp_path)))


def test_config_and_no_config_exclude_each_other(tmp_path: Path) -> None:
    write(tmp_path / "a.toml", "")
    proc = bleustream("--config", "a.toml", "--no-config", cwd=tmp_path)
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr
    assert proc.stdout == ""


# ----------------------------------------------------------------------------
# Errors: one line naming the file and the key, exit status 2, nothing scored
# ----------------------------------------------------------------------------

# Every setting, named after its option: whatever the parser holds today.
KNOWN = "known keys: " + ", ".join(sorted(build_schema(config_options())))

ERRORS = [
    (
        "unknown-key",
        "tokenise = 'zh'\n",
        f"bleustream.toml: unknown key 'tokenise'; did you mean 'tokenize'? ({KNOWN})",
    ),
    (
        "underscore-key",
        "smooth_method = 'floor'\n",
        f"bleustream.toml: unknown key 'smooth_method'; did you mean 'smooth-method'? ({KNOWN})",
    ),
    (
        "not-a-setting",
        "input = 'hyp.txt'\n",
        f"bleustream.toml: unknown key 'input' ({KNOWN})",
    ),
    (
        "choice",
        "tokenize = 'foo'\n",
        "bleustream.toml: key 'tokenize': 'foo' is not one of 13a, char, flores101, "
        "flores200, intl, ja-mecab, ko-mecab, none, spBLEU-1K, spm, zh, nltk",
    ),
    (
        "choice-type",
        "smooth-method = 1\n",
        "bleustream.toml: key 'smooth-method': must be one of exp, floor, add-k, none, "
        "not the integer 1",
    ),
    (
        "bool-type",
        "lowercase = 'yes'\n",
        "bleustream.toml: key 'lowercase': must be true or false, not the string 'yes'",
    ),
    (
        "bool-as-int",
        "lowercase = 1\n",
        "bleustream.toml: key 'lowercase': must be true or false, not the integer 1",
    ),
    (
        "int-as-string",
        "width = '3'\n",
        "bleustream.toml: key 'width': must be an integer, not the string '3'",
    ),
    (
        "int-as-bool",
        "every = true\n",
        "bleustream.toml: key 'every': must be an integer, not true",
    ),
    (
        "int-as-float",
        "max-ngram-order = 4.0\n",
        "bleustream.toml: key 'max-ngram-order': must be an integer, not the float 4.0",
    ),
    (
        "float-as-bool",
        "smooth-method = 'floor'\nsmooth-value = false\n",
        "bleustream.toml: key 'smooth-value': must be a number, not false",
    ),
    (
        "int-range",
        "max-ngram-order = 0\n",
        "bleustream.toml: key 'max-ngram-order': must be a whole number from 1 to 100: '0'",
    ),
    (
        "non-negative",
        "width = -1\n",
        "bleustream.toml: key 'width': must be a whole number from 0 to 30: '-1'",
    ),
    (
        "table-value",
        "[format]\nname = 'json'\n",
        "bleustream.toml: key 'format': must be one of text, tsv, jsonl, json, stats, latex, "
        "not a table",
    ),
    (
        "syntax",
        "tokenize = 'zh'\nlowercase = \n",
        "bleustream.toml:2: not valid TOML: Invalid value (at line 2, column 13)",
    ),
    (
        "duplicate-key",
        "tokenize = 'zh'\nwidth = 2\ntokenize = 'char'\n",
        "bleustream.toml:3: not valid TOML: Cannot overwrite a value (at line 3, column 18)",
    ),
    (
        "smooth-value-for-exp",
        "smooth-value = 0.5\n",
        "-m bleu: a smoothing value applies to floor and add-k, not to exp "
        "(settings read from bleustream.toml)",
    ),
    (
        "no-metrics",
        "metrics = []\n",
        "no metric to score: name at least one (-m bleu chrf ter) "
        "(settings read from bleustream.toml)",
    ),
    (
        "encoding",
        "encoding = 'utf-16'\n",
        "encoding 'utf-16' cannot be read line by line: it does not write a newline as the "
        "single byte 0x0A (ASCII-compatible encodings such as utf-8, latin-1, cp1252 or "
        "gb18030 can be read) (settings read from bleustream.toml)",
    ),
]


def assert_usage_error(proc: subprocess.CompletedProcess[str], message: str) -> None:
    assert proc.returncode == 2
    assert proc.stdout == ""  # nothing scored, nothing shown
    assert without_note(proc.stderr) == f"bleustream: {message}\n"


@pytest.mark.parametrize(
    ("content", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_config_error(tmp_path: Path, content: str, message: str) -> None:
    write(tmp_path / "bleustream.toml", content)
    assert_usage_error(bleustream(cwd=tmp_path), message)
    assert_usage_error(bleustream("--show-config", cwd=tmp_path), message)


def test_first_bad_key_fails_even_after_good_ones(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "tokenize = 'zh'\nlowercase = true\nevery = -2\n")
    assert_usage_error(
        bleustream("-tok", "13a", cwd=tmp_path),
        "bleustream.toml: key 'every': must not be negative: '-2'",
    )


def test_error_in_pyproject_names_the_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", PYPROJECT + "smooth-method = 'best'\n")
    assert_usage_error(
        bleustream(cwd=tmp_path),
        "pyproject.toml: key 'smooth-method' in [tool.bleustream]: 'best' is not one of "
        "exp, floor, add-k, none",
    )
    write(tmp_path / "pyproject.toml", "[tool]\nbleustream = 'zh'\n")
    assert_usage_error(
        bleustream(cwd=tmp_path),
        "pyproject.toml: [tool.bleustream] must be a table, not the string 'zh'",
    )


def test_broken_pyproject_is_an_error(tmp_path: Path) -> None:
    # Whether it holds settings cannot be known: nothing is scored.
    write(tmp_path / "pyproject.toml", "[project\nname = 'x'\n")
    proc = bleustream(cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert without_note(proc.stderr).startswith("bleustream: pyproject.toml:1: not valid TOML: ")
    assert "(at line 1, column " in proc.stderr


def test_missing_config_file_is_a_usage_error(tmp_path: Path) -> None:
    assert_usage_error(
        bleustream("--config", "nowhere.toml", cwd=tmp_path),
        "nowhere.toml: cannot read config file: No such file or directory",
    )


def test_config_file_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "bleustream.toml").write_bytes(b"tokenize = '\xff'\n")
    assert_usage_error(
        bleustream(cwd=tmp_path),
        "bleustream.toml: not a UTF-8 text file (byte 0xff at offset 12)",
    )


def test_command_line_error_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    proc = bleustream("--width", "-1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "argument -w/--width: must be a whole number from 0 to 30" in proc.stderr


# ----------------------------------------------------------------------------
# --show-config
# ----------------------------------------------------------------------------

RUNS = [
    ("defaults", []),
    (
        "bleu-settings",
        ["-tok", "char", "-lc", "-s", "add-k", "-sv", "0.5", "--max-ngram-order", "3"],
    ),
    ("floor-default-value", ["-s", "floor", "--effective-order", "-w", "4"]),
    ("json-records", ["-f", "jsonl", "-sl", "--every", "2", "-tok", "zh"]),
    ("tsv-score-only", ["-f", "tsv", "-b", "--encoding", "latin-1", "--skip-bad-lines"]),
]


@pytest.mark.parametrize("flags", [r[1] for r in RUNS], ids=[r[0] for r in RUNS])
def test_show_config_round_trip(tmp_path: Path, flags: list[str]) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    show = bleustream("--show-config", *flags, cwd=first, input="")
    assert show.returncode == 0 and without_note(show.stderr) == ""
    (second / "bleustream.toml").write_text(show.stdout, encoding="utf-8")
    direct = bleustream(*flags, cwd=first)
    from_file = bleustream(cwd=second)
    assert direct.returncode == from_file.returncode == 0, from_file.stderr
    assert from_file.stdout == direct.stdout
    assert without_note(from_file.stderr) == without_note(direct.stderr)
    # The same settings, now all from the file but those left unset.
    again = shown(bleustream("--show-config", cwd=second))
    before = shown(show)
    assert {k: v for k, (v, _) in again.items()} == {k: v for k, (v, _) in before.items()}
    for key, (value, origin) in again.items():
        assert origin == ("default" if value.startswith("(unset") else "bleustream.toml"), key


def test_show_config_lists_every_setting_once(tmp_path: Path) -> None:
    proc = bleustream("--show-config", cwd=tmp_path)
    import_toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    document = import_toml.loads(proc.stdout)
    unset = {action_long_name(dest) for dest, value in DEFAULTS.items() if value is None}
    keys = {action_long_name(dest) for dest in DEFAULTS}
    assert "smooth-value" in unset
    assert set(document) == keys - unset  # None: written as a comment
    assert re.search(
        r"^# smooth-value = \(unset: the method's default\) +# from: default$",
        proc.stdout,
        re.MULTILINE,
    )
    assert len(shown(proc)) == len(DEFAULTS)


def test_show_config_does_not_read_the_input(tmp_path: Path) -> None:
    proc = bleustream("--show-config", "no-such-ref.txt", cwd=tmp_path, input="not\tread\tx\n")
    assert proc.returncode == 0 and without_note(proc.stderr) == ""
    assert proc.stdout.startswith("# bleustream ")


def test_render_quotes_strings_as_toml() -> None:
    import_toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    schema = build_schema(
        [
            OptionSpec(("--name",), "name"),
            OptionSpec(("--ratio",), "ratio", kind="float", minimum=0),
        ]
    )
    tricky = 'a "quoted" \\ back\tslash\nnew\x01\x7f é 猫 \U0001f600'
    values = {"name": tricky, "ratio": 1e-05}
    text = render(values, {}, schema, "header\n\nlines")
    assert import_toml.loads(text) == {"name": tricky, "ratio": 1e-05}


# ----------------------------------------------------------------------------
# The schema follows the parser
# ----------------------------------------------------------------------------


def action_long_name(dest: str) -> str:
    for action in build_parser()._actions:
        if action.dest == dest:
            return next(o for o in action.option_strings if o.startswith("--"))[2:]
    raise AssertionError(dest)


def test_every_default_is_a_key_named_after_its_long_option() -> None:
    schema = build_schema(config_options())
    assert sorted(key.dest for key in schema.values()) == sorted(DEFAULTS)
    for name, key in schema.items():
        assert name == key.name == key.option[2:] == action_long_name(key.dest)
    assert schema["smooth-method"].choices == ("exp", "floor", "add-k", "none")
    assert schema["lowercase"].kind == "bool"
    assert schema["max-ngram-order"].kind == "int"
    assert schema["smooth-value"].kind == "float"
    assert schema["encoding"].kind == "str"


def test_a_new_option_becomes_a_key() -> None:
    extra = [
        OptionSpec(
            ("--test-layout",), "test_layout", "wide", kind="choice", choices=("wide", "narrow")
        ),
        OptionSpec(("--test-batch-size",), "test_batch_size", 8, kind="int"),
        OptionSpec(("--test-strip",), "test_strip", False, kind="bool"),
        OptionSpec(("--test-tags",), "test_tags", None, multiple=True),
    ]
    schema = build_schema([*config_options(), *extra])
    assert schema["test-layout"] == Key(
        "test-layout", "test_layout", "--test-layout", "str", ("wide", "narrow")
    )
    assert schema["test-batch-size"].kind == "int"
    assert schema["test-strip"].kind == "bool"
    assert schema["test-tags"].multiple
    assert check_value(schema["test-tags"], ["a", "b"]) == ["a", "b"]
    with pytest.raises(UsageError, match=r"key 'test-tags'\[1\]: must be a string, not"):
        check_value(schema["test-tags"], ["a", 2])
    with pytest.raises(UsageError, match="key 'test-batch-size': must be an integer, not true"):
        check_value(schema["test-batch-size"], True)


def test_a_default_without_an_option_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="'nothing' has no long command line option"):
        build_schema([*config_options(), OptionSpec(("-n",), "nothing", 1)])


# ----------------------------------------------------------------------------
# The two TOML parsers
# ----------------------------------------------------------------------------

# At exit, which TOML parsers the run imported.
REPORT_PARSER = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('parser:', *[m for m in ('tomllib', 'tomli') "
    "if sys.modules.get(m)], file=sys.stderr))"
)
BLOCK_TOMLLIB = "import sys\nsys.modules['tomllib'] = None"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is new in Python 3.11")
def test_tomllib_is_used_on_python_311(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "tokenize = 'char'\nformat = 'jsonl'\n")
    proc = bleustream(cwd=tmp_path, prelude=REPORT_PARSER)
    assert without_note(proc.stderr) == "parser: tomllib\n"
    assert_sacrebleu(json.loads(proc.stdout), tokenize="char")


def test_tomli_is_used_without_tomllib(tmp_path: Path) -> None:
    # tomli is a test dependency on every Python, so this path is always tested.
    write(tmp_path / "bleustream.toml", "tokenize = 'char'\nformat = 'jsonl'\n")
    proc = bleustream(cwd=tmp_path, prelude=f"{BLOCK_TOMLLIB}\n{REPORT_PARSER}")
    assert proc.returncode == 0
    assert without_note(proc.stderr) == "parser: tomli\n"
    assert_sacrebleu(json.loads(proc.stdout), tokenize="char")
    # Its errors, too, name the file, the line and the column.
    write(tmp_path / "bleustream.toml", "tokenize = 'zh'\nlowercase = \n")
    proc = bleustream(cwd=tmp_path, prelude=f"{BLOCK_TOMLLIB}\n{REPORT_PARSER}")
    assert proc.returncode == 2 and proc.stdout == ""
    assert without_note(proc.stderr) == (
        "bleustream: bleustream.toml:2: not valid TOML: Invalid value (at line 2, column 13)\n"
        "parser: tomli\n"
    )


def test_no_toml_parser_at_all(tmp_path: Path) -> None:
    block_both = f"{BLOCK_TOMLLIB}\nsys.modules['tomli'] = None"
    write(tmp_path / "bleustream.toml", "tokenize = 'char'\n")
    proc = bleustream(cwd=tmp_path, prelude=block_both)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "needs the 'tomli' package before Python 3.11" in proc.stderr
    # Without a config file, no parser is needed, nor imported.
    proc = bleustream("-f", "jsonl", "--no-config", cwd=tmp_path, prelude=block_both)
    assert_sacrebleu(corpus_record(proc))
    (tmp_path / "bleustream.toml").unlink()
    proc = bleustream("-f", "jsonl", cwd=tmp_path, prelude=REPORT_PARSER)
    assert without_note(proc.stderr) == "parser:\n"
    assert_sacrebleu(json.loads(proc.stdout))


def test_command_line_method_drops_the_files_smoothing_value(tmp_path: Path) -> None:
    write(tmp_path / "bleustream.toml", "smooth-method = 'floor'\nsmooth-value = 0.2\n")
    proc = bleustream("-s", "exp", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["smooth"] == "exp"
    assert_sacrebleu(record, smooth_method="exp")
    shown = bleustream("-s", "exp", "--show-config", cwd=tmp_path).stdout
    assert "# smooth-value = (unset" in shown


def test_huge_toml_number_is_a_usage_error(tmp_path: Path) -> None:
    write(
        tmp_path / "bleustream.toml", "smooth-method = 'floor'\nsmooth-value = " + "9" * 400 + "\n"
    )
    proc = bleustream(cwd=tmp_path)
    assert proc.returncode == 2
    assert without_note(proc.stderr).startswith(
        "bleustream: bleustream.toml: key 'smooth-value': must be a number"
    )
