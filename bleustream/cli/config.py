"""Settings from TOML: ``bleustream.toml`` or ``[tool.bleustream]`` in ``pyproject.toml``.

The keys of a config file are the long option names without their dashes
(``smooth-method = "floor"``).  Which keys exist, and what each allows, is
derived from the table of options (``bleustream.cli.options``), so an
option added there is a config key at once:

* an option with ``choices`` takes a string from that set;
* a ``bool`` option takes ``true`` or ``false``;
* an ``int`` or ``float`` option takes a TOML value of that type (an integer
  for ``int``, an integer or float for ``float``; a boolean is neither),
  which is then read by the option's own ``parse``, so that
  ``max-ngram-order = 0`` fails as ``--max-ngram-order 0`` does;
* any other option takes a string.

Everything here is independent of the process: the working directory is a
parameter, and errors are ``UsageError`` exceptions naming the
file (exit status 2).  A file is read whole and checked whole before any of
it is used.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any, Callable

from bleustream.errors import UsageError
from bleustream.frozen import Factory, Frozen
from bleustream.metrics.protocol import OptionSpec

CONFIG_NAME = "bleustream.toml"
PYPROJECT_NAME = "pyproject.toml"
PYPROJECT_TABLE = ("tool", "bleustream")

# Origins of a setting, besides the display name of a config file.
FROM_COMMAND_LINE = "command line"
FROM_DEFAULT = "default"

# What an unset (None) built-in default means, for --show-config; keyed by dest.
UNSET_NOTES: dict[str, str] = {"smooth_value": "the method's default"}

_KIND_NAMES = {
    "bool": "true or false",
    "int": "an integer",
    "float": "a number",
    "str": "a string",
}


def toml_parser() -> ModuleType:
    """The TOML parser: the standard library's ``tomllib`` (3.11+), else ``tomli``.

    Imported when first needed, so that a run without a config file never
    needs it.
    """
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            raise UsageError(
                "reading a TOML config file needs the 'tomli' package before Python 3.11 "
                "(pip install 'tomli>=1.1'), or use --no-config"
            ) from None
    return tomllib


# ----------------------------------------------------------------------------
# The schema, from the table of options
# ----------------------------------------------------------------------------


class Key(Frozen):
    """One config key: a setting's TOML name and what its value may be."""

    name: str  # the TOML key: the long option without its dashes
    dest: str  # the argparse dest, as in the table of defaults
    option: str  # the long option, e.g. --smooth-method
    kind: str  # bool, int, float or str
    choices: tuple[Any, ...] | None = None
    convert: Callable[[str], Any] | None = None  # the option's argparse type
    multiple: bool = False  # the option takes a list of values

    def allowed(self, element: bool = False) -> str:
        """What the key (or, with ``element``, one item of its array) allows, for messages."""
        if self.choices is not None:
            what = "one of " + ", ".join(str(c) for c in self.choices)
        else:
            what = _KIND_NAMES[self.kind]
        if self.multiple and not element:
            return f"an array whose items are each {what}"
        return what


def build_schema(options: Iterable[OptionSpec]) -> dict[str, Key]:
    """The config keys, by TOML name: one per option that is a config key."""
    schema: dict[str, Key] = {}
    for option in options:
        flag = option.long_flag
        if flag is None:
            raise ValueError(f"the setting {option.dest!r} has no long command line option")
        kind = option.kind
        choices = option.choices
        if kind == "choice":
            kind = "str"
        convert = option.parse if option.kind in ("int", "float") or option.reader else None
        name = flag[2:]
        schema[name] = Key(name, option.dest, flag, kind, choices, convert, option.multiple)
    return schema


# ----------------------------------------------------------------------------
# Checking values
# ----------------------------------------------------------------------------


def _describe(value: Any) -> str:
    """A TOML value as a message names it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # dates and times


def _has_kind(value: Any, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # TOML true is not 1
    if kind == "int":
        return isinstance(value, int)
    if kind == "float":
        return isinstance(value, (int, float))
    return isinstance(value, str)


def _check_one(key: Key, value: Any, label: str) -> Any:
    if not _has_kind(value, key.kind):
        raise UsageError(f"{label}: must be {key.allowed(True)}, not {_describe(value)}")
    if key.convert is not None and key.kind != "bool":
        # The option's own type function reads the value as it would read it
        # on the command line (a huge TOML integer then fails as too large,
        # where float() would overflow).
        try:
            text = _toml_value(value) if isinstance(value, float) else str(value)
            value = key.convert(text)
        except (ValueError, TypeError) as exc:
            reason = str(exc) or f"must be {key.allowed(True)}"
            raise UsageError(f"{label}: {reason}") from None
    elif key.kind == "float":
        try:
            value = float(value)
        except OverflowError:
            raise UsageError(f"{label}: {value} is too large") from None
    if key.choices is not None and value not in key.choices:
        shown = repr(value) if isinstance(value, str) else _describe(value)
        raise UsageError(
            f"{label}: {shown} is not one of " + ", ".join(str(c) for c in key.choices)
        )
    return value


def check_value(key: Key, value: Any, label: str | None = None) -> Any:
    """``value`` from TOML, checked and converted as the command line would."""
    label = label or f"key {key.name!r}"
    if not key.multiple:
        return _check_one(key, value, label)
    if not isinstance(value, list):
        raise UsageError(f"{label}: must be {key.allowed()}, not {_describe(value)}")
    return [_check_one(key, item, f"{label}[{i}]") for i, item in enumerate(value)]


def unknown_key_message(name: str, schema: Mapping[str, Key], where: str = "") -> str:
    import difflib  # (only for a mistaken key)

    message = f"unknown key {name!r}{where}"
    close = difflib.get_close_matches(name.replace("_", "-"), list(schema), n=1)
    if close:
        message += f"; did you mean {close[0]!r}?"
    return message + " (known keys: " + ", ".join(sorted(schema)) + ")"


# ----------------------------------------------------------------------------
# Reading files
# ----------------------------------------------------------------------------


class Config(Frozen):
    """The settings read from one config file, checked, by dest."""

    path: str  # the file as given, or its name in the working directory
    table: str | None = None  # "tool.bleustream" in a pyproject.toml
    values: dict[str, Any] = Factory(dict)

    @property
    def origin(self) -> str:
        return self.path if self.table is None else f"{self.path} [{self.table}]"


_LINE_RE = re.compile(r"\bat line (\d+)")


def parse_toml(path: str | os.PathLike[str], display: str) -> dict[str, Any]:
    """A TOML file as a dict; any problem is a UsageError naming ``display``."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise UsageError(
            f"cannot read config file: {exc.strerror or exc}", source=display
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"not a UTF-8 text file (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            source=display,
        ) from None
    parser = toml_parser()
    try:
        return parser.loads(text)
    except parser.TOMLDecodeError as exc:
        message = str(exc)
        found = _LINE_RE.search(message)
        lineno = int(found.group(1)) if found else getattr(exc, "lineno", None)
        raise UsageError(
            f"not valid TOML: {message}",
            source=display,
            line=lineno if isinstance(lineno, int) else None,
        ) from None


def read_settings(
    table: Mapping[str, Any], schema: Mapping[str, Key], display: str, table_name: str | None
) -> Config:
    """Check every key of a settings table; the first problem is a UsageError."""
    where = "" if table_name is None else f" in [{table_name}]"
    values: dict[str, Any] = {}
    for name, value in table.items():
        key = schema.get(name)
        if key is None:
            raise UsageError(unknown_key_message(name, schema, where), source=display)
        try:
            values[key.dest] = check_value(key, value, f"key {name!r}{where}")
        except UsageError as exc:
            raise UsageError(exc.message, source=display) from None
    return Config(display, table_name, values)


def load_config(
    path: str | os.PathLike[str],
    display: str,
    schema: Mapping[str, Key],
    pyproject: bool | None = None,
) -> Config | None:
    """The settings of one file.

    A ``pyproject.toml`` (``pyproject`` None: judged by the file name) holds
    them in its ``[tool.bleustream]`` table; without that table it has none
    and the result is None.  Any other file holds them at its top level.
    """
    document = parse_toml(path, display)
    if pyproject is None:
        pyproject = os.path.basename(path) == PYPROJECT_NAME
    if not pyproject:
        return read_settings(document, schema, display, None)
    table: Any = document
    for part in PYPROJECT_TABLE:
        table = table.get(part) if isinstance(table, dict) else None
    table_name = ".".join(PYPROJECT_TABLE)
    if table is None:
        return None
    if not isinstance(table, dict):
        raise UsageError(f"[{table_name}] must be a table, not {_describe(table)}", source=display)
    return read_settings(table, schema, display, table_name)


def find_config(
    explicit: str | None, no_config: bool, cwd: str | os.PathLike[str], schema: Mapping[str, Key]
) -> Config | None:
    """The config in force.

    ``explicit`` (``--config FILE``, relative to ``cwd``) must exist.  Else,
    unless ``no_config``, ``bleustream.toml`` in ``cwd``, else a
    ``[tool.bleustream]`` table in ``cwd``'s ``pyproject.toml``; the first
    file found is the only one read.
    """
    # (os.path, not pathlib: a run without a config file looks up two names)
    if explicit is not None:
        return load_config(os.path.join(cwd, explicit), explicit, schema)
    if no_config:
        return None
    candidate = os.path.join(cwd, CONFIG_NAME)
    if os.path.exists(candidate):
        return load_config(candidate, CONFIG_NAME, schema, pyproject=False)
    candidate = os.path.join(cwd, PYPROJECT_NAME)
    if os.path.exists(candidate):
        return load_config(candidate, PYPROJECT_NAME, schema, pyproject=True)
    return None


# ----------------------------------------------------------------------------
# Merging and showing
# ----------------------------------------------------------------------------


def merge(
    defaults: Mapping[str, Any], command_line: Mapping[str, Any], config: Config | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings in force and where each came from, by dest.

    A command line value (not None) wins over the config file's, which wins
    over the built-in default.
    """
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for dest, default in defaults.items():
        given = command_line.get(dest)
        if given is not None:
            values[dest], origins[dest] = given, FROM_COMMAND_LINE
        elif config is not None and dest in config.values:
            values[dest], origins[dest] = config.values[dest], config.origin
        else:
            values[dest], origins[dest] = default, FROM_DEFAULT
    return values, origins


def _toml_string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return _toml_string(str(value))


COMMENT_COLUMN = 47  # where --show-config's "# from:" comments start, at most


def render(
    values: Mapping[str, Any],
    origins: Mapping[str, str],
    schema: Mapping[str, Key],
    header: str = "",
) -> str:
    """The settings as TOML, each with its origin as a comment.

    Saved as ``bleustream.toml``, the text gives the same settings.  A
    setting whose value is None is written as a comment: TOML has no null.
    """
    width = max((len(name) for name in schema), default=0)
    entries: list[tuple[str, str]] = []
    for name, key in schema.items():
        value = values[key.dest]
        origin = origins.get(key.dest, FROM_DEFAULT)
        if value is None:
            note = UNSET_NOTES.get(key.dest, "the built-in default")
            entries.append((f"# {name} = (unset: {note})", origin))
        else:
            entries.append((f"{name.ljust(width)} = {_toml_value(value)}", origin))
    # The comments line up; a value too long for their column (the
    # analyses' bucket edges) pushes its own comment further right.
    column = min(max((len(setting) for setting, _ in entries), default=0), COMMENT_COLUMN)
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines += [f"{setting.ljust(column)}  # from: {origin}" for setting, origin in entries]
    return "\n".join(lines) + "\n"
