"""A plain run imports what it uses, and each new import is a choice.

The command runs in a child interpreter started without ``site`` (``-S``,
so that no ``.pth`` file of the environment imports anything first) with
the repository first on its path; it reports the modules that the run
added to ``sys.modules``.  bleustream's own must be exactly the declared
ones, on each path (the compiled kernels and ``BLEUSTREAM_PUREPYTHON=1``):
a module that a run of BLEU alone, or of chrF and TER, starts to import
must be added here on purpose, and one it stops importing taken out.  The
standard library's must be among the declared ones (a later Python may
import fewer), and never one of ``NEVER``: compression, JSON, statistics,
test sets, resampling and the analyses load only for the options and
inputs that use them (docs/design.md, "Start-up").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.files import write_lines
from tests.helpers.paths import ROOT

# The child: the modules present before bleustream is imported are the
# interpreter's own; the run adds the rest.
CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
from bleustream.cli.entry import main
sys.argv = ["bleustream", *sys.argv[2:]]
status = main()
import bleustream
sys.stdout.flush()
print("\\n".join(sorted(set(sys.modules) - before)), file=sys.stderr)
print("kernels", bleustream.KERNELS, file=sys.stderr)
sys.exit(status)
"""

# What both runs import of bleustream, on the pure path.
COMMON = frozenset(
    {
        "bleustream",
        "bleustream._version",
        "bleustream.analysis",
        "bleustream.analysis.edges",
        "bleustream.cli",
        "bleustream.cli.abbrev",
        "bleustream.cli.config",
        "bleustream.cli.entry",
        "bleustream.cli.main",
        "bleustream.cli.options",
        "bleustream.cli.parser",
        "bleustream.cli.signals",
        "bleustream.errors",
        "bleustream.frozen",
        "bleustream.inputs",
        "bleustream.inputs.blocks",
        "bleustream.inputs.items",
        "bleustream.inputs.lines",
        "bleustream.inputs.formats",
        "bleustream.inputs.options",
        "bleustream.kernels",
        "bleustream.metrics",
        "bleustream.metrics.arguments",
        "bleustream.metrics.bleu_options",
        "bleustream.metrics.chrf_options",
        "bleustream.metrics.comet_options",
        "bleustream.metrics.counting",
        "bleustream.metrics.ngrams",
        "bleustream.metrics.nist_options",
        "bleustream.metrics.protocol",
        "bleustream.metrics.registry",
        "bleustream.metrics.scores",
        "bleustream.metrics.self_bleu_options",
        "bleustream.metrics.smoothing",
        "bleustream.metrics.ter_options",
        "bleustream.output",
        "bleustream.output.records",
        "bleustream.run",
        "bleustream.run.final",
        "bleustream.run.state",
        "bleustream.run.stream",
        "bleustream.scorer",
        "bleustream.tokenizers",
        "bleustream.tokenizers.mecab",
        "bleustream.tokenizers.registry",
        "bleustream.tokenizers.spm",
    }
)
# bleustream's modules of each run, on the pure path; the compiled path
# adds the extension.
PURE = {
    "bleu": COMMON | {"bleustream.metrics.bleu", "bleustream.metrics.bleu_batches"},
    "chrf ter": COMMON
    | {
        "bleustream.metrics.chrf",
        "bleustream.metrics.chrf_batches",
        "bleustream.metrics.chrf_fscore",
        "bleustream.metrics.ter",
        "bleustream.metrics.ter_search",
        "bleustream.tokenizers.ter_normalize",
    },
}
COMPILED_ONLY = frozenset({"bleustream._native", "bleustream._native._kernels"})

# The standard library's modules either run may import (Python 3.11's).
STDLIB = frozenset(
    {
        "__future__",
        "_bisect",
        "_collections",
        "_collections_abc",
        "_functools",
        "_locale",
        "_operator",
        "_sre",
        "_stat",
        "_typing",
        "argparse",
        "bisect",
        "collections",
        "collections.abc",
        "contextlib",
        "copyreg",
        "enum",
        "errno",
        "functools",
        "gc",
        "genericpath",
        "gettext",
        "itertools",
        "keyword",
        "locale",
        "math",
        "operator",
        "os",
        "os.path",
        "posixpath",
        "re",
        "re._casefix",
        "re._compiler",
        "re._constants",
        "re._parser",
        "reprlib",
        "signal",
        "stat",
        "types",
        "typing",
        "typing.io",
        "typing.re",
        "warnings",
        "zlib",
    }
)
# Never on these paths, whatever else changes.
NEVER = frozenset(
    {
        "bz2",
        "dataclasses",  # (its classes are made by generating code: bleustream.frozen)
        "decimal",
        "difflib",
        "fractions",
        "gzip",
        "inspect",
        "json",
        "lzma",
        "pathlib",
        "random",
        "shutil",
        "statistics",
        "urllib.parse",
        "bleustream.analysis.collect",
        "bleustream.cli.testsets",
        "bleustream.dataset",
        "bleustream.engines",
        "bleustream.metrics.bootstrap",
        "bleustream.metrics.nist",
        "bleustream.metrics.self_bleu",
        "bleustream.parallel",
        "bleustream.significance",
    }
)


def imported(tmp_path: Path, pure: bool, metrics: list[str]) -> tuple[set[str], str]:
    """The modules a run of ``bleustream REF -b -m METRICS`` added, and its
    kernels (BLEU with no ``-m``: the default)."""
    args = [] if metrics == ["bleu"] else ["-m", *metrics]
    ref = write_lines(tmp_path / "ref.txt", ["The cat sat on the mat.", "A dog barked twice."])
    hyp = b"The cat sat on a mat.\nThe dog barked.\n"
    env = {k: v for k, v in os.environ.items() if k != "BLEUSTREAM_PUREPYTHON"}
    if pure:
        env["BLEUSTREAM_PUREPYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-S", "-c", CHILD, str(ROOT), str(ref), "-b", *args],
        input=hyp,
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    scores = done.stdout.decode().split()
    assert len(scores) == len(metrics), scores
    assert all(float(score) > 0 for score in scores), scores
    *modules, kernels = done.stderr.decode().splitlines()
    return set(modules), kernels.removeprefix("kernels ")


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("metrics", ["bleu", "chrf ter"])
def test_a_plain_run_imports_the_declared_modules(tmp_path: Path, pure: bool, metrics: str) -> None:
    modules, kernels = imported(tmp_path, pure, metrics.split())
    if pure:
        assert kernels == "python"
    expected = PURE[metrics] | (COMPILED_ONLY if kernels == "compiled" else frozenset())
    ours = {name for name in modules if name.split(".")[0] == "bleustream"}
    assert sorted(ours - expected) == [], "new imports: declare them here on purpose"
    assert sorted(expected - ours) == [], "no longer imported: take them out of the list"
    assert sorted((modules - ours) - STDLIB) == [], "new imports: declare them here on purpose"
    assert sorted(modules & NEVER) == []
