"""The ``--report`` page as the command writes it, read as HTML and SVG
(no browser: tests/analysis/test_analysis_report.py opens it in one).

In the examples, a hypothesis's words that the reference lacks are marked,
whichever system is better, and the words left unmarked are the
reference's, in its order.  Every chart's legend lies outside its axes, so
that it covers no bar or line.
"""

from __future__ import annotations

import html.parser
import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest

from tests.helpers.clirun import assert_clean_stderr, run

pytest.importorskip("numpy")
pytest.importorskip("matplotlib")

SVG = "{http://www.w3.org/2000/svg}"


@cache
def page(folder: str) -> str:
    from tests.analysis.test_analysis_cli import corpus

    root = Path(folder)
    paths = []
    for name, lines in zip(("ref.txt", "a.txt", "b.txt"), corpus(80)):
        path = root / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    report = root / "report.html"
    proc = run(
        paths[0], "-i", paths[1], paths[2], "--analyze", "--analyze-n", "20",
        "-m", "bleu", "chrf", "ter", "--examples", "5", "--report", report,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc)
    return report.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    return page(str(tmp_path_factory.mktemp("page")))


class Examples(html.parser.HTMLParser):
    """Per examples table, per row, each text cell as (word, marked) pairs."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[list[tuple[str, bool]]]]] = {}
        self.rows: list[list[list[tuple[str, bool]]]] | None = None
        self.cell: list[tuple[str, bool]] | None = None
        self.marked = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            name = found.get("data-table") or ""
            self.rows = self.tables.setdefault(name, []) if name.startswith("examples") else None
        elif tag == "tr" and self.rows is not None:
            self.rows.append([])
        elif tag == "td" and self.rows is not None and found.get("class") == "text":
            self.cell = []
            self.rows[-1].append(self.cell)
        elif tag == "span" and self.cell is not None:
            assert found.get("class") == "miss"
            self.marked = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "span":
            self.marked = False
        elif tag == "td":
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.extend((word, self.marked) for word in data.split())


def is_subsequence(words: list[str], of: list[str]) -> bool:
    it = iter(of)
    return all(any(w == x for x in it) for w in words)


def test_words_the_reference_lacks_are_marked_in_both_directions(report: str) -> None:
    """Among the examples where the system is worse, its words outside the
    reference were shown as matches; each hypothesis is marked against the
    reference now."""
    parser = Examples()
    parser.feed(report)
    assert sorted(parser.tables) == ["examples b.txt better", "examples b.txt worse"]
    marked_in_worse = 0
    for name, rows in parser.tables.items():
        rows = [row for row in rows if row]
        assert len(rows) == 5, name
        for _source, reference, baseline, system in rows:
            assert not any(marked for _, marked in reference)
            ref_words = [w for w, _ in reference]
            for hypothesis in (baseline, system):
                kept = [w for w, marked in hypothesis if not marked]
                assert is_subsequence(kept, ref_words), (hypothesis, ref_words)
                absent = [w for w, _ in hypothesis if w not in ref_words]
                assert all(marked for w, marked in hypothesis if w in absent), hypothesis
            if name.endswith("worse"):
                marked_in_worse += sum(marked for _, marked in system)
    assert marked_in_worse > 0  # the worse system's misses are shown as misses


def numbers(d: str) -> list[tuple[float, float]]:
    values = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return list(zip(values[0::2], values[1::2]))


def legend_outside(svg: ET.Element) -> bool:
    """Whether every mark of the legend (its handles and the places of its
    labels) lies above the axes' frame."""
    groups = {g.get("id"): g for g in svg.iter(f"{SVG}g")}
    frame = groups["patch_2"].find(f"{SVG}path")
    assert frame is not None
    top = min(y for _, y in numbers(frame.get("d") or ""))
    legend = groups["legend_1"]
    glyphs = {id(p) for defs in legend.iter(f"{SVG}defs") for p in defs.iter()}
    ys = []
    for node in legend.iter():
        if id(node) in glyphs:
            continue
        if node.tag == f"{SVG}path":
            ys += [y for _, y in numbers(node.get("d") or "")]
        move = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", node.get("transform") or "")
        if move:
            ys.append(float(move.group(2)))
    assert ys
    return max(ys) < top


def test_every_legend_lies_outside_its_axes(report: str) -> None:
    svgs = [ET.fromstring(s) for s in re.findall(r"<svg.*?</svg>", report, re.S)]
    with_legend = [s for s in svgs if any(g.get("id") == "legend_1" for g in s.iter(f"{SVG}g"))]
    # The bars of three metrics by three kinds of bucket, word accuracy, the running score.
    assert len(with_legend) == 3 * 3 + 2
    assert all(legend_outside(svg) for svg in with_legend)
