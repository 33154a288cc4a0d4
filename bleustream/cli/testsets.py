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

EXTRA = "pip install 'bleustream[testsets]'"


class TestSetError(BleustreamError):
    """A test set that cannot be fetched or read from the cache."""

    status = 74  # EXIT_IOERR


def wanted(options: dict[str, Any]) -> bool:
    """Whether a test-set option is given."""
    return bool(
        options.get("test_set")
        or options.get("echo")
        or options.get("list")
        or options.get("citation")
        or options.get("download")
    )


def cache_dir() -> str:
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))


def _registry() -> Any:
    try:
        import sacrebleu.dataset as dataset  # the optional extra
        import sacrebleu.utils as utils
    except ImportError:
        raise UsageError(f"test-set options need SacreBLEU's test set registry: {EXTRA}") from None
    return dataset, utils


def _names(test_set: str) -> list[str]:
    return test_set.split(",")


def check(options: dict[str, Any]) -> None:
    """SacreBLEU's checks of -t and -l, each one line with its hint (status 2)."""
    dataset, utils = _registry()
    test_set, pair = options.get("test_set"), options.get("language_pair")
    if not test_set:
        return
    for name in _names(test_set):
        if name not in dataset.DATASETS:
            raise UsageError(
                f"unknown test set {name!r}: run with --list to see the available test sets"
            )
    if options["refs"]:
        raise UsageError(
            "give exactly one of a test set (-t) and REF files: SacreBLEU reads no REF "
            "files with -t"
        )
    if options.get("list") or options.get("citation"):
        return
    if pair is None:
        raise UsageError("-t needs a language pair (-l): --list -t NAME shows its pairs")
    for name in _names(test_set):
        pairs = utils.get_langpairs_for_testset(name)
        if pair not in pairs:
            raise UsageError(
                f"no language pair {pair!r} in {name!r}; its pairs are: {', '.join(pairs)}"
            )


def action(options: dict[str, Any]) -> str | None:
    """What --list, --citation, --echo and --download print (they exit 0), or None."""
    dataset, utils = _registry()
    test_set, pair = options.get("test_set"), options.get("language_pair")
    if options.get("download"):
        _fetch(
            options["download"], pair, lambda: utils.download_test_set(options["download"], pair)
        )
        return ""
    if options.get("list"):
        if test_set:
            lines = []
            for lp in [pair] if pair else utils.get_langpairs_for_testset(test_set):
                fields = dataset.DATASETS[test_set].fieldnames(lp)
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
    if options.get("citation"):
        if not test_set:
            raise UsageError("--citation needs a test set (-t)")
        out = []
        for name in _names(test_set):
            citation = getattr(dataset.DATASETS[name], "citation", None)
            if not citation:
                raise UsageError(f"no citation for {name}")
            out.append(citation + "\n")
        return "".join(out)
    if options.get("echo"):
        if not (test_set and pair):
            raise UsageError("--echo needs a test set (-t) and a language pair (-l)")
        buffer = io.StringIO()
        for name in _names(test_set):
            with contextlib.redirect_stdout(buffer):
                _fetch(
                    name,
                    pair,
                    lambda name=name: utils.print_test_set(
                        name, pair, options["echo"], options.get("origlang"), options.get("subset")
                    ),
                )
        return buffer.getvalue()
    return None


def reference_files(options: dict[str, Any]) -> list[str]:
    """The cached reference files of -t and -l (fetched first when missing)."""
    _dataset, utils = _registry()
    test_set, pair = options["test_set"], options["language_pair"]
    names = _names(test_set)
    if len(names) > 1:
        raise UsageError("several test sets in one -t are not supported yet: score each alone")
    if options.get("origlang") or options.get("subset"):
        raise UsageError("--origlang and --subset are not supported yet when scoring")
    files = _fetch(test_set, pair, lambda: utils.get_reference_files(test_set, pair))
    for path in files:
        if not os.path.isfile(path):
            raise TestSetError(f"test set {test_set}/{pair}: {path} is missing from the cache")
    if not files:
        raise TestSetError(f"no references found for test set {test_set}/{pair} in {cache_dir()}")
    return list(files)


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
