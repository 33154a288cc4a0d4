"""The package's layers import only downward, with no cycle, and the
examples use only the public API.

The layers, lowest first (docs/design.md draws the same map):

    _version, errors, extras, kernels  the base, with the C kernels (_native/)
    tokenizers                       text to tokens
    metrics                          the pure core
    inputs | output | significance   each on the core, not on each other
    parallel                         on inputs and the core
    analysis                         compare-mt's analyses: accumulators the record loop drives
    scorer, run                      the streaming API and the record loop
    api                              the functions of the facade
    sacrebleu                        SacreBLEU's tree of modules, on the api
    cli, engines, hf, rewards        the shell, the engines' tasks, the evaluate module,
                                     the training loops' reward functions
    __init__, __main__, dropin       the facade, ``python -m`` and the install

Every import counts, at module level, inside a function or inside a
module's ``__getattr__`` (PEP 562): an import put off to run time still
ties the two modules together, for the layers and for the cycles alike.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import bleustream
from tests.helpers.paths import ROOT

PACKAGE = ROOT / "bleustream"

BASE = frozenset({"_version", "errors", "extras", "frozen", "kernels", "_native"})
CORE = frozenset({"tokenizers", "metrics"})
# The facade: the package's names, ``python -m``, and what registers
# bleustream's SacreBLEU tree under SacreBLEU's names.
FACADE = frozenset({"__init__", "__main__", "dropin"})

# What each layer may import, besides itself.
ALLOWED: Mapping[str, frozenset[str]] = {
    "base": frozenset({"base"}),
    "tokenizers": frozenset({"base"}),
    "metrics": frozenset({"base", "tokenizers"}),
    "inputs": frozenset({"base", "tokenizers", "metrics"}),
    # COMET's models, on the base alone (the metrics layer's level).
    "comet": frozenset({"base"}),
    "output": frozenset({"base", "tokenizers", "metrics"}),
    "significance": frozenset({"base", "tokenizers", "metrics"}),
    "parallel": frozenset({"base", "tokenizers", "metrics", "inputs"}),
    # compare-mt's analyses: accumulators that the record loop drives.
    "analysis": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel"}
    ),
    "scorer": frozenset({"base", "tokenizers", "metrics"}),
    "run": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"analysis"}
    ),
    "api": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "analysis"}
    ),
    # SacreBLEU's modules, each a front on the layers below.
    "sacrebleu": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "api", "analysis"}
    ),
    # The command's -t and --list read SacreBLEU's test sets (sacrebleu.dataset).
    "cli": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "api", "analysis", "sacrebleu"}
    ),
    # The engines read argv with the command's own options, so they sit
    # with it; the evaluate module is on the api.
    "engines": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "api", "cli", "analysis"}
    ),
    "hf": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "api", "analysis"}
    ),
    # The reward functions of TRL and verl are on the api.
    "rewards": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "api", "analysis"}
    ),
    "facade": frozenset(
        {"base", "tokenizers", "metrics", "inputs", "output", "significance", "parallel", "scorer"}
        | {"run", "api", "cli", "engines", "hf", "analysis", "rewards", "sacrebleu"}
    ),
}

# COMET's models (``bleustream.comet``), on the base beside the core: every
# layer from the metrics up may load them (the metric ``-m comet`` runs one).
ALLOWED = {
    layer: allowed | {"comet"} if layer not in ("base", "tokenizers", "comet") else allowed
    for layer, allowed in ALLOWED.items()
}

# Standard-library modules the pure core may not use: it knows no shell.
SHELL_MODULES = frozenset({"argparse", "subprocess", "signal", "shutil", "tomllib", "tomli"})


def layer_of(module: str) -> str:
    """The layer of a module of the package (``bleustream.metrics.bleu``)."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in FACADE:
        return "facade"
    head = parts[0]
    if head in BASE:
        return "base"
    return head


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(source: str, module: str, known: Iterable[str]) -> set[str]:
    """Every module a source imports, the package's resolved to the module
    (``from bleustream.metrics import bleu`` is ``bleustream.metrics.bleu``)."""
    known = set(known)
    package = module if module.count(".") == 0 else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            for alias in node.names:
                if f"{name}.{alias.name}" in known:
                    found.add(f"{name}.{alias.name}")
    return found


def violations(modules: Mapping[str, str]) -> list[str]:
    """What breaks the layering in ``modules`` (name to source)."""
    problems = []
    graph: dict[str, set[str]] = {}
    for module, source in modules.items():
        layer = layer_of(module)
        inner = set()
        for target in imports_of(source, module, modules):
            top = target.split(".")[0]
            if layer in ("base", "tokenizers", "metrics") and top in SHELL_MODULES:
                problems.append(f"{module} imports {target}: the core knows no shell")
            if top != "bleustream":
                continue
            if target == "bleustream" or target.startswith("bleustream.__init__"):
                if layer != "facade":
                    problems.append(f"{module} imports the facade bleustream")
                continue
            if target not in modules and layer_of(target) != "base":
                # A name imported from a package's __init__ (the base's
                # compiled modules have no source but are modules).
                target = target.rsplit(".", 1)[0] if target.rsplit(".", 1)[0] in modules else target
            to = layer_of(target)
            if to != layer and to not in ALLOWED[layer]:
                problems.append(f"{module} ({layer}) imports {target} ({to}): upward")
        for target in imports_of(source, module, modules):
            if target not in modules and target.rsplit(".", 1)[0] in modules:
                target = target.rsplit(".", 1)[0]
            if target.startswith("bleustream.") and target in modules and target != module:
                inner.add(target)
        graph[module] = inner
    problems.extend(f"import cycle: {' -> '.join(c)}" for c in cycles(graph))
    return problems


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One cycle through each module that is on one (depth-first search)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            # A package's __init__ and its own modules import each other by
            # the way Python loads them; only modules proper count.
            if nxt.startswith(node + ".") or node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


# The rooms of the run layer, lowest first: each imports only those before it
# (the package's __init__, which chooses the loop, is on top).
RUN_ROOMS = (
    "bleustream.run.final",
    "bleustream.run.state",
    "bleustream.run.analyze",
    "bleustream.run.sets",
    "bleustream.run.corpus",
    "bleustream.run.model_batches",
    "bleustream.run.stream",
    "bleustream.run",
)


def room_violations(modules: Mapping[str, str]) -> list[str]:
    """Imports inside the run layer that go up ``RUN_ROOMS``, and rooms it lacks."""
    problems = []
    for module, source in modules.items():
        if layer_of(module) != "run":
            continue
        if module not in RUN_ROOMS:
            problems.append(f"{module} is a room of run that RUN_ROOMS does not place")
            continue
        rank = RUN_ROOMS.index(module)
        for target in imports_of(source, module, modules):
            if target not in modules and target.rsplit(".", 1)[0] in modules:
                target = target.rsplit(".", 1)[0]
            if target in RUN_ROOMS and RUN_ROOMS.index(target) >= rank and target != module:
                problems.append(f"{module} imports {target}: up the run rooms")
    return problems


def sources() -> dict[str, str]:
    return {name: path.read_text(encoding="utf-8") for name, path in package_modules().items()}


def test_the_package_imports_only_downward() -> None:
    assert violations(sources()) == []


def test_an_upward_import_is_found() -> None:
    modules = sources()
    modules["bleustream.metrics.bleu"] += "\nfrom bleustream.cli.main import main\n"
    problems = violations(modules)
    wanted = "bleustream.metrics.bleu (metrics) imports bleustream.cli.main"
    assert any(wanted in p for p in problems)


def test_the_run_rooms_import_only_downward() -> None:
    modules = sources()
    assert {m for m in modules if layer_of(m) == "run"} == set(RUN_ROOMS)
    assert room_violations(modules) == []


def test_an_upward_import_between_run_rooms_is_found() -> None:
    modules = sources()
    modules["bleustream.run.state"] += "\nfrom bleustream.run.stream import summed_text\n"
    problems = room_violations(modules)
    wanted = "bleustream.run.state imports bleustream.run.stream: up the run rooms"
    assert wanted in problems, problems


def test_argparse_in_the_core_is_found() -> None:
    modules = sources()
    modules["bleustream.tokenizers.registry"] += "\nimport argparse\n"
    assert any("knows no shell" in p for p in violations(modules))


def test_importing_the_facade_from_inside_is_found() -> None:
    modules = sources()
    modules["bleustream.scorer"] += "\nfrom bleustream import __version__\n"
    assert any("imports the facade" in p for p in violations(modules))


def test_a_cycle_is_found() -> None:
    modules = sources()
    modules["bleustream.metrics.protocol"] += "\nimport bleustream.metrics.bleu\n"
    assert any(p.startswith("import cycle") for p in violations(modules))


def _example_names(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bleustream"):
            if node.module != "bleustream":
                names.append(f"{node.module} (a module inside the package)")
            else:
                names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.extend(
                f"{a.name} (a module inside the package)"
                for a in node.names
                if a.name.startswith("bleustream.")
            )
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "bleustream"
        ):
            names.append(node.attr)
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_examples_use_only_the_public_api(path: Path) -> None:
    public = set(bleustream.__all__)
    outside = [name for name in _example_names(path) if name not in public]
    assert outside == [], f"{path.name} uses names outside bleustream.__all__"


# The C kernels (bleustream/_native/*.c, the extension _native._kernels) are
# in the base: a module they import by name may be no other layer's.
C_IMPORT = re.compile(r'PyImport_Import\w*\(\s*"([^"]+)"')


def c_sources() -> dict[str, str]:
    return {
        f"bleustream._native.{path.stem}": path.read_text(encoding="utf-8")
        for path in sorted((PACKAGE / "_native").glob("*.c"))
    }


def c_violations(modules: Mapping[str, str]) -> list[str]:
    """What breaks the layering in C sources (name to source)."""
    problems = []
    for module, source in modules.items():
        layer = layer_of(module)
        for target in C_IMPORT.findall(source):
            if target.split(".")[0] != "bleustream":
                continue
            to = layer_of(target)
            if to != layer and to not in ALLOWED[layer]:
                problems.append(f"{module} ({layer}) imports {target} ({to}): upward")
    return problems


def test_the_c_kernels_import_only_the_base() -> None:
    modules = c_sources()
    assert "bleustream._native.module" in modules, sorted(modules)
    assert {layer_of(module) for module in modules} == {"base"}
    assert c_violations(modules) == []


def test_an_upward_import_in_c_is_found() -> None:
    modules = c_sources()
    modules["bleustream._native.scores"] += '\nPyImport_ImportModule("bleustream.metrics.bleu");\n'
    problems = c_violations(modules)
    wanted = "bleustream._native.scores (base) imports bleustream.metrics.bleu (metrics)"
    assert any(wanted in p for p in problems), problems


def test_an_import_in_a_module_getattr_counts_for_the_layers_and_for_cycles() -> None:
    """A PEP 562 ``__getattr__`` is no way around the rules: the shim that
    gave ``bleustream.metrics.bleu.BLEU`` (a cycle with the class's module)
    would fail, as would one reaching up a layer."""
    lazy = "\n\ndef __getattr__(name):\n    from bleustream.{} import x\n    return x\n"
    modules = sources()
    modules["bleustream.metrics.bleu"] += lazy.format("metrics.metric_classes")
    problems = violations(modules)
    assert any(
        p.startswith("import cycle:") and "bleustream.metrics.metric_classes" in p for p in problems
    ), problems
    modules = sources()
    modules["bleustream.metrics.ngrams"] += lazy.format("cli.main")
    problems = violations(modules)
    assert any(
        "bleustream.metrics.ngrams (metrics) imports bleustream.cli.main" in p for p in problems
    )


def test_the_sacrebleu_tree_is_a_layer_above_the_api() -> None:
    modules = sources()
    assert {layer_of(m) for m in modules if m.startswith("bleustream.sacrebleu")} == {"sacrebleu"}
    modules["bleustream.api"] += "\nfrom bleustream.sacrebleu import compat\n"
    problems = violations(modules)
    assert any("bleustream.api (api) imports bleustream.sacrebleu.compat" in p for p in problems)
