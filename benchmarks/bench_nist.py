#!/usr/bin/env python3
"""NIST: bleustream beside NIST's own mteval-v13a.pl, on the same text.

    python benchmarks/bench_nist.py --mteval PATH/mteval-v13a.pl [--lines 3004 30040]

The script is Moses' ``scripts/generic/mteval-v13a.pl`` (it needs Perl and
XML::Twig: Debian's ``libxml-twig-perl``); it is not part of bleustream,
so give its path.  For each size, the WMT17 en-de reference and one system
are cycled to that many lines (each line after the first pass numbered, so
that no line repeats), wrapped into the SGML mteval reads (``&``, ``<`` and
``>`` escaped; one document), and timed in a child process each:
``perl mteval-v13a.pl -n`` and ``bleustream -m nist -w 4`` (and ``-j 2``).
The scores must be the same to mteval's 4 decimals, or the exit status is 1.
Without the data, or without ``--mteval``, it says so and exits 0.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realdata import add_data_argument, read_lines

REF = "sacrebleu-wmt17-en-de/newstest2017.en-de.ref.de"
HYP = "sacrebleu-wmt17-en-de/newstest2017.hyp.online-B.0.en-de.de"
BLEUSTREAM = Path(sys.executable).with_name("bleustream")


def cycled(lines: list[str], size: int) -> list[str]:
    return [lines[i % len(lines)] + (f" {i}" if i >= len(lines) else "") for i in range(size)]


def sgml(tag: str, lines: list[str], sysid: str | None = None) -> str:
    """One set of mteval's SGML: one document of ``lines``."""
    escape = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}
    head = f'<{tag} setid="bench" srclang="en" trglang="de"'
    head += f' refid="{sysid}">' if tag == "refset" else ">"
    who = f' sysid="{sysid}"' if sysid else ""
    segs = "".join(f'<seg id="{i}">{x.translate(escape)}</seg>\n' for i, x in enumerate(lines, 1))
    return f'{head}\n<doc{who} docid="d1" genre="news">\n{segs}</doc>\n</{tag}>\n'


def timed(command: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_argument(parser)
    parser.add_argument("--mteval", type=Path, help="the path of mteval-v13a.pl")
    parser.add_argument("--lines", type=int, nargs="+", default=[3004, 30040])
    args = parser.parse_args()
    if not (args.data / REF).is_file():
        print(f"skipped: {args.data / REF} not present")
        return 0
    if args.mteval is None or not args.mteval.is_file() or shutil.which("perl") is None:
        print("skipped: give --mteval PATH to Moses' mteval-v13a.pl (and have Perl, XML::Twig)")
        return 0
    ref_lines, hyp_lines = read_lines(args.data / REF), read_lines(args.data / HYP)
    status = 0
    for size in args.lines:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            refs, hyps = cycled(ref_lines, size), cycled(hyp_lines, size)
            (work / "ref").write_text("".join(f"{x}\n" for x in refs), encoding="utf-8")
            (work / "hyp").write_text("".join(f"{x}\n" for x in hyps), encoding="utf-8")
            (work / "src.sgm").write_text(sgml("srcset", refs), encoding="utf-8")
            (work / "ref.sgm").write_text(sgml("refset", refs, "ref"), encoding="utf-8")
            (work / "tst.sgm").write_text(sgml("tstset", hyps, "sys"), encoding="utf-8")
            perl = ["perl", str(args.mteval), "-n", "-r", str(work / "ref.sgm")]
            perl += ["-s", str(work / "src.sgm"), "-t", str(work / "tst.sgm")]
            mteval_s, printed = timed(perl)
            found = re.search(r"NIST score = ([\d.]+)", printed)
            theirs = found.group(1) if found else "?"
            ours_cmd = [str(BLEUSTREAM), str(work / "ref"), "-i", str(work / "hyp")]
            ours_cmd += ["-m", "nist", "-w", "4", "-b", "--no-config"]
            ours_s, ours = timed(ours_cmd)
            jobs_s, jobs = timed([*ours_cmd, "-j", "2"])
            same = ours.strip() == theirs == jobs.strip()
            status |= not same
            print(f"{size:,} lines: NIST {ours.strip()} (mteval {theirs}; same: {same})")
            print(f"  mteval-v13a.pl -n       {mteval_s:8.2f} s")
            print(f"  bleustream -m nist      {ours_s:8.2f} s  {mteval_s / ours_s:6.1f}x")
            print(f"  bleustream -m nist -j 2 {jobs_s:8.2f} s  {mteval_s / jobs_s:6.1f}x")
    return status


if __name__ == "__main__":
    sys.exit(main())
