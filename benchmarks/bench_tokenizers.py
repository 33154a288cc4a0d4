#!/usr/bin/env python3
"""Tokenizer benchmark: bleustream's tokenizers against SacreBLEU's, in process.

Every reference and hypothesis line of a real data set (``13a``, ``intl``,
``char`` and ``none`` on WMT17 en-de; ``zh`` on WMT21 en-zh), each distinct
line once, goes through ``bleustream.tokenizers.registry.TOKENIZERS[name]`` and
through SacreBLEU's tokenizer class followed by ``.split()`` (the tokens its
BLEU counts).  The table gives lines per second of each (the best of
``--repeat`` passes), their ratio, and the first-call set-up time of each
(SacreBLEU: constructing the tokenizer and its first line; bleustream: its
first line, which builds the ``intl`` tables).  The token lists must be
equal on every line: otherwise the differences are printed and the exit
status is 1.  Without the data, or without SacreBLEU, the benchmark is
skipped with exit status 0.

SacreBLEU's tokenizers are behind ``functools.lru_cache``.  Its ``__call__``
is called through ``__wrapped__``, around the cache; the caches it uses
inside (13a's and zh's regular-expression post-tokenizer, zh's per-character
test) are part of its cost and stay, but all of them are cleared before
each pass, and with each line given once no lookup finds a stored line.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

DEFAULT_ZH_SET = "wmt21-en-zh"
NAMES = ("13a", "intl", "zh", "char", "none")
# SacreBLEU's tokenizer classes: module under sacrebleu.tokenizers, class.
SACREBLEU_CLASSES = {
    "13a": ("tokenizer_13a", "Tokenizer13a"),
    "intl": ("tokenizer_intl", "TokenizerV14International"),
    "zh": ("tokenizer_zh", "TokenizerZh"),
    "char": ("tokenizer_char", "TokenizerChar"),
    "none": ("tokenizer_none", "NoneTokenizer"),
}
SHOWN_DIFFERENCES = 5

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2

TokenizeAll = Callable[[list[str]], "list[list[str]]"]


def load_lines(data: Path, set_name: str) -> list[str]:
    """The distinct reference and hypothesis lines of a set, in file order."""
    manifest = read_manifest(data)
    if set_name not in manifest:
        raise SystemExit(f"bench_tokenizers: set {set_name!r} is not in {data / 'MANIFEST.json'}")
    entry = manifest[set_name]
    seen: dict[str, None] = {}
    for name in [*entry["refs"], *entry["hyps"]]:
        seen.update(dict.fromkeys(read_lines(data / set_name / name)))
    return list(seen)


def clear_sacrebleu_caches() -> None:
    """Empty every lru_cache in SacreBLEU's loaded tokenizer modules."""
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("sacrebleu.tokenizers") or module is None:
            continue
        for value in vars(module).values():
            members = vars(value).values() if isinstance(value, type) else [value]
            for member in members:
                func = getattr(member, "__func__", member)  # staticmethod
                if hasattr(func, "cache_clear"):
                    func.cache_clear()


def sacrebleu_tokenizer(name: str) -> tuple[TokenizeAll, float]:
    """SacreBLEU's tokenizer as a list-in, token-lists-out function; set-up seconds."""
    module_name, class_name = SACREBLEU_CLASSES[name]
    start = time.perf_counter()
    module = importlib.import_module(f"sacrebleu.tokenizers.{module_name}")
    cls = getattr(module, class_name)
    tokenizer = cls()
    call = getattr(cls.__call__, "__wrapped__", cls.__call__)
    call(tokenizer, "Setup, 1 line.")
    setup = time.perf_counter() - start

    def tokenize_all(lines: list[str]) -> list[list[str]]:
        return [call(tokenizer, line).split() for line in lines]

    return tokenize_all, setup


def bleustream_tokenizer(name: str) -> tuple[TokenizeAll, float]:
    """bleustream's tokenizer over a list of lines; set-up seconds."""
    from bleustream.tokenizers.registry import TOKENIZERS

    tokenize = TOKENIZERS[name]
    start = time.perf_counter()
    tokenize("Setup, 1 line.")
    setup = time.perf_counter() - start

    def tokenize_all(lines: list[str]) -> list[list[str]]:
        return [tokenize(line) for line in lines]

    return tokenize_all, setup


def best_pass(
    tokenize_all: TokenizeAll, lines: list[str], repeat: int, before: Callable[[], None]
) -> tuple[float, list[list[str]]]:
    """The fastest of ``repeat`` passes over the lines, and the tokens."""
    best = float("inf")
    tokens: list[list[str]] = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        tokens = tokenize_all(lines)
        best = min(best, time.perf_counter() - start)
    return best, tokens


@dataclass
class Result:
    tokenizer: str
    data_set: str
    lines: int
    bleustream_lines_per_second: float
    sacrebleu_lines_per_second: float
    ratio: float  # bleustream throughput / SacreBLEU throughput
    bleustream_setup_seconds: float
    sacrebleu_setup_seconds: float
    differing_lines: int


def bench(name: str, data_set: str, lines: list[str], repeat: int) -> tuple[Result, list[str]]:
    sacre_all, sacre_setup = sacrebleu_tokenizer(name)
    bleu_all, bleu_setup = bleustream_tokenizer(name)
    sacre_seconds, sacre_tokens = best_pass(sacre_all, lines, repeat, clear_sacrebleu_caches)
    bleu_seconds, bleu_tokens = best_pass(bleu_all, lines, repeat, lambda: None)
    differences = [
        f"{name} line {i + 1} of the distinct lines: {line!r}\n"
        f"  bleustream: {mine!r}\n  sacrebleu:  {theirs!r}"
        for i, (line, mine, theirs) in enumerate(zip(lines, bleu_tokens, sacre_tokens))
        if mine != theirs
    ]
    result = Result(
        tokenizer=name,
        data_set=data_set,
        lines=len(lines),
        bleustream_lines_per_second=len(lines) / bleu_seconds,
        sacrebleu_lines_per_second=len(lines) / sacre_seconds,
        ratio=sacre_seconds / bleu_seconds,
        bleustream_setup_seconds=bleu_setup,
        sacrebleu_setup_seconds=sacre_setup,
        differing_lines=len(differences),
    )
    return result, differences


def format_table(results: list[Result]) -> str:
    header = (
        "tokenizer",
        "data",
        "lines",
        "bleustream l/s",
        "sacrebleu l/s",
        "ratio",
        "setup bs s",
        "setup sb s",
        "tokens",
    )
    rows = [header]
    for r in results:
        rows.append(
            (
                r.tokenizer,
                r.data_set,
                f"{r.lines:,}",
                f"{r.bleustream_lines_per_second:,.0f}",
                f"{r.sacrebleu_lines_per_second:,.0f}",
                f"{r.ratio:.2f}x",
                f"{r.bleustream_setup_seconds:.3f}",
                f"{r.sacrebleu_setup_seconds:.3f}",
                "equal" if r.differing_lines == 0 else f"{r.differing_lines} DIFFER",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    out = []
    for n, row in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(row[:2], widths[:2])]
        cells += [c.rjust(w) for c, w in zip(row[2:], widths[2:])]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def parse_names(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in NAMES]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"tokenizers are among {', '.join(NAMES)}: {text!r}")
    return names


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Tokenizer throughput, bleustream against SacreBLEU, on real MT output.",
    )
    add_data_argument(parser)
    parser.add_argument(
        "--set", default=DEFAULT_SET, help=f"set for all but zh (default: {DEFAULT_SET})"
    )
    parser.add_argument(
        "--zh-set", default=DEFAULT_ZH_SET, help=f"set for zh (default: {DEFAULT_ZH_SET})"
    )
    parser.add_argument(
        "--tokenize",
        type=parse_names,
        default=list(NAMES),
        metavar="NAME[,NAME...]",
        help=f"tokenizers to measure (default: {','.join(NAMES)})",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="K",
        help="passes over the lines per tokenizer; the fastest counts (default: 3)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    data: Path = args.data
    if not (data / "MANIFEST.json").is_file():
        print(f"skipped: real data {data / 'MANIFEST.json'} not found", file=sys.stderr)
        return EXIT_OK
    try:
        import sacrebleu
    except ImportError:
        print("skipped: sacrebleu is not installed", file=sys.stderr)
        return EXIT_OK
    import bleustream

    line_cache: dict[str, list[str]] = {}
    results: list[Result] = []
    all_differences: list[str] = []
    for name in args.tokenize:
        data_set = args.zh_set if name == "zh" else args.set
        if data_set not in line_cache:
            line_cache[data_set] = load_lines(data, data_set)
        result, differences = bench(name, data_set, line_cache[data_set], args.repeat)
        results.append(result)
        all_differences.extend(differences[:SHOWN_DIFFERENCES])

    if args.json:
        out = {
            "data": str(data),
            "repeat": args.repeat,
            "python": sys.version.split()[0],
            "bleustream": bleustream.__version__,
            "sacrebleu": sacrebleu.__version__,
            "results": [asdict(r) for r in results],
            "ok": not all_differences,
        }
        print(json.dumps(out, indent=2))
    else:
        print(
            f"data: {data}; python {sys.version.split()[0]}; bleustream "
            f"{bleustream.__version__}; sacrebleu {sacrebleu.__version__}; best of "
            f"{args.repeat} pass(es); distinct lines; ratio = bleustream / sacrebleu throughput"
        )
        print(format_table(results))
    if all_differences:
        print("bench_tokenizers: the token lists differ:", file=sys.stderr)
        for text in all_differences:
            print(text, file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
