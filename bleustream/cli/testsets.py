"""SacreBLEU's built-in test sets: ``-t``, ``--echo``, ``--list``, ``--citation``,
``--download``.

The registry and the cache are SacreBLEU's own (the optional extra
``bleustream[testsets]``, the ``sacrebleu`` package), imported only when a
test-set option is given.  Scoring against ``-t NAME -l PAIR`` reads the
cached reference files in lockstep with the hypotheses, as REF operands
are read; the files are fetched into the cache first when they are not
there (``$SACREBLEU``, else ``~/.sacrebleu``).
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import Any

from bleustream.errors import BleustreamError, UsageError
from bleustream.sacrebleu.dataset import EXTRA
from bleustream.sacrebleu.dataset import registry as dataset_registry


class TestSetError(BleustreamError):
    """A test set that cannot be fetched or read from the cache."""

    status = 74  # EXIT_IOERR


def say_what_sacrebleu_says(quiet: bool) -> None:
    """SacreBLEU's information lines while it fetches a test set ("Downloading
    URL to FILE", "Extracting ..."), on stderr with bleustream's prefix, as
    SacreBLEU says them; none with ``-q``."""
    if quiet:
        return
    import logging

    from bleustream.cli.options import PROG
    from bleustream.cli.parser import to_stderr

    class _Stderr(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            to_stderr(f"{PROG}: {record.getMessage()}\n")

    logger = logging.getLogger("sacrebleu")
    logger.addHandler(_Stderr())
    logger.setLevel(logging.INFO)
    logger.propagate = False


def cache_dir() -> str:
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))


def registry() -> Any:
    """SacreBLEU's ``dataset`` and ``utils`` (``bleustream.sacrebleu.dataset``); a usage
    error (status 2) without the extra."""
    try:
        return dataset_registry()
    except ImportError:
        raise UsageError(f"test-set options need SacreBLEU's test set registry: {EXTRA}") from None


def _names(test_set: str) -> list[str]:
    return test_set.split(",")


def check(values: dict[str, Any]) -> None:
    """SacreBLEU's checks of -t and -l, each one line with its hint (status 2)."""
    dataset, utils = registry()
    test_set, pair = values.get("test_set"), values.get("language_pair")
    if not test_set:
        return
    for name in _names(test_set):
        if name not in dataset.DATASETS:
            raise UsageError(
                f"unknown test set {name!r}: run with --list to see the available test sets"
            )
    if values["refs"]:
        raise UsageError(
            "give exactly one of a test set (-t) and REF files: SacreBLEU reads no REF "
            "files with -t"
        )
    if values.get("list") or values.get("citation"):
        return
    if pair is None:
        raise UsageError("-t needs a language pair (-l): --list -t NAME shows its pairs")
    for name in _names(test_set):
        pairs = utils.get_langpairs_for_testset(name)
        if pair not in pairs:
            raise UsageError(
                f"no language pair {pair!r} in {name!r}; its pairs are: {', '.join(pairs)}"
            )


def action(values: dict[str, Any]) -> str | None:
    """What --list, --citation, --echo and --download print (they exit 0), or None."""
    dataset, utils = registry()
    test_set, pair = values.get("test_set"), values.get("language_pair")
    if values.get("download"):
        _fetch(values["download"], pair, lambda: utils.download_test_set(values["download"], pair))
        return ""
    if values.get("list"):
        if test_set:
            lines = []
            for lp in [pair] if pair else utils.get_langpairs_for_testset(test_set):
                # A set of WMT's XML files names its fields in them: fetched first.
                fields = _fetch(
                    test_set, lp, lambda lp=lp: dataset.DATASETS[test_set].fieldnames(lp)
                )
                lines.append(f"{lp}: {', '.join(fields)}")
            return "\n".join(lines) + "\n"
        if pair:
            lines = [f"The available test sets for {pair} are:"]
            names = utils.get_available_testsets_for_langpair(pair)
        else:
            lines = ["The available test sets are:"]
            names = utils.get_available_testsets()
        for name in sorted(names):
            lines.append(f"{name:<30}: {dataset.DATASETS[name].description}")
        return "\n".join(lines) + "\n"
    if values.get("citation"):
        if not test_set:
            raise UsageError("--citation needs a test set (-t)")
        out = []
        for name in _names(test_set):
            citation = getattr(dataset.DATASETS[name], "citation", None)
            if not citation:
                raise UsageError(f"no citation for {name}")
            out.append(citation + "\n")
        return "".join(out)
    if values.get("echo"):
        if not (test_set and pair):
            raise UsageError("--echo needs a test set (-t) and a language pair (-l)")
        buffer = io.StringIO()
        for name in _names(test_set):
            with contextlib.redirect_stdout(buffer):
                _fetch(
                    name,
                    pair,
                    lambda name=name: utils.print_test_set(
                        name, pair, values["echo"], values.get("origlang"), values.get("subset")
                    ),
                )
        return buffer.getvalue()
    return None


def reference_files(values: dict[str, Any]) -> list[str]:
    """The cached reference files of -t and -l (fetched first when missing).

    Several test sets (``-t wmt17,wmt18``) are read one after the other, as
    SacreBLEU concatenates them: their references are joined, stream by
    stream, into files of a temporary folder removed at exit.
    """
    _dataset, utils = registry()
    pair = values["language_pair"]
    per_set = []
    for name in _names(values["test_set"]):
        files = _fetch(name, pair, lambda name=name: utils.get_reference_files(name, pair))
        for path in files:
            if not os.path.isfile(path):
                raise TestSetError(f"test set {name}/{pair}: {path} is missing from the cache")
        if not files:
            raise TestSetError(f"no references found for test set {name}/{pair} in {cache_dir()}")
        per_set.append(list(files))
    if len(per_set) == 1:
        return per_set[0]
    if len({len(files) for files in per_set}) > 1:
        raise UsageError(
            f"the test sets of -t {values['test_set']} have different numbers of references: "
            "score them one at a time"
        )
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="bleustream-testsets-")
    atexit.register(shutil.rmtree, folder, True)
    joined = []
    for k, streams in enumerate(zip(*per_set)):
        path = os.path.join(folder, f"ref.{k}")
        with open(path, "wb") as out:
            for stream in streams:
                with open(stream, "rb") as part:
                    data = part.read()
                out.write(data if data.endswith(b"\n") or not data else data + b"\n")
        joined.append(path)
    return joined


def kept_lines(values: dict[str, Any], empty_ok: bool = False) -> frozenset[int] | None:
    """With ``--origlang``/``--subset``: the numbers of the test set's lines
    that SacreBLEU's own ``filter_subset`` keeps (from the cache's raw files);
    none kept is a ``UsageError`` unless ``empty_ok``."""
    origlang, subset = values.get("origlang"), values.get("subset")
    if origlang is None and subset is None:
        return None
    _dataset, utils = registry()
    test_set, pair = values["test_set"], values["language_pair"]
    lines = 0
    for path in values["refs"][:1]:
        with open(path, "rb") as stream:
            lines = sum(1 for _ in stream)
    try:
        (kept,) = utils.filter_subset([list(range(1, lines + 1))], test_set, pair, origlang, subset)
    except Exception as exc:  # no raw file, no annotation for the set
        what = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise TestSetError(
            f"test set {test_set}/{pair}: --origlang/--subset cannot be read from the cache "
            f"{cache_dir()}: {what}"
        ) from None
    if not kept and not empty_ok:
        message = f"test set {test_set!r} contains no sentence with"
        if origlang:
            message += f" origlang={origlang}"
        if subset:
            message += f" subset={subset}"
        raise UsageError(message)
    return frozenset(kept)


def _fetch(name: str, pair: str | None, get: Any) -> Any:
    """``get()``, with a failure to download or read the cache as one line."""
    try:
        return get()
    except BleustreamError:
        raise
    except SystemExit as exc:
        raise TestSetError(
            f"test set {name}{'/' + pair if pair else ''}: SacreBLEU could not get it "
            f"into the cache {cache_dir()} (exit {exc.code})"
        ) from None
    except Exception as exc:  # network, md5 mismatch, corrupt archive, missing fields
        what = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise TestSetError(
            f"test set {name}{'/' + pair if pair else ''}: could not get it into the cache "
            f"{cache_dir()}: {what}"
        ) from None
