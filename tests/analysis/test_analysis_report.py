"""The ``--analyze`` report opened in a real browser (headless Chromium):
it draws something, logs no console error, renders with the network cut
off, and shows the JSON document's numbers.

Chromium comes from Debian's packages (``.ci/run`` installs it); without
it these tests are skipped, saying so.
"""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.helpers.clirun import run

pytest.importorskip("numpy")
pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,  # a real browser
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium; .ci/run does)"
    ),
]

# No network: every host name resolves nowhere and every proxy is refused.
OFFLINE = ("--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9")


def chromium(*args: str, page: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            *OFFLINE,
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


def console_errors(stderr: str) -> list[str]:
    """Chromium's log lines of the page's console and failed loads."""
    return [
        line
        for line in stderr.splitlines()
        if "CONSOLE" in line or "Failed to load resource" in line or "net::ERR" in line
    ]


@cache
def made(folder: str) -> tuple[Path, dict]:
    """A report of a small corpus and the JSON document of the same run."""
    from tests.analysis.test_analysis_cli import corpus

    root = Path(folder)
    paths = []
    for name, lines in zip(("ref.txt", "a.txt", "b.txt"), corpus(80)):
        path = root / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    page = root / "report.html"
    proc = run(
        paths[0],
        "-i",
        paths[1],
        paths[2],
        "--analyze",
        "--analyze-n",
        "100",
        "-m",
        "bleu",
        "chrf",
        "--report",
        page,
        "-f",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    return page, json.loads(proc.stdout)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    return made(str(tmp_path_factory.mktemp("report")))


def test_the_screenshot_is_not_blank(report: tuple[Path, dict]) -> None:
    page, _ = report
    shot = page.with_name("shot.png")
    proc = chromium(f"--screenshot={shot}", "--window-size=1200,3000", page=page)
    assert shot.exists(), proc.stderr
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 3000)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, tables, bars in colour
    white = max(count for count, colour in colours if colour == (255, 255, 255))
    assert white < 0.95 * image.size[0] * image.size[1]


def test_no_console_error_and_nothing_fetched(report: tuple[Path, dict]) -> None:
    page, _ = report
    proc = chromium("--dump-dom", page=page)
    assert proc.returncode == 0, proc.stderr
    assert console_errors(proc.stderr) == []
    text = page.read_text(encoding="utf-8")
    for outside in ("<script", "<link", "<img", "<iframe", "@import"):
        assert outside not in text
    # Only references inside the page (SVG's clip paths: url(#id), href="#id").
    assert re.findall(r"url\((?!#)|(?:src|href)=\"(?!#)", text) == []


def test_a_console_error_and_a_fetch_would_be_seen(tmp_path: Path) -> None:
    """The check above can fail: a page that logs an error and fetches from
    the network (cut off here) is caught."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="https://example.org/x.png">'
        '<script>console.error("broken")</script></body></html>',
        encoding="utf-8",
    )
    proc = chromium("--dump-dom", page=page)
    found = console_errors(proc.stderr)
    assert any("broken" in line for line in found), proc.stderr


class Cells(html.parser.HTMLParser):
    """Each table's ``data-value`` cells, row by row, from the browser's DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.current: list[list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.current = self.tables.setdefault(found["data-table"] or "", [])
        elif tag == "tr" and self.current is not None:
            self.current.append([])
        elif tag == "td" and self.current is not None:
            self.current[-1].append(found.get("data-value") or "")


def test_the_page_shows_the_documents_numbers(report: tuple[Path, dict]) -> None:
    page, doc = report
    proc = chromium("--dump-dom", page=page)
    cells = Cells()
    cells.feed(proc.stdout)
    scores = [row for row in cells.tables["scores"] if row]
    assert len(scores) == 2
    for row, entry in zip(scores, doc["scores"]):
        expected = []
        for numbers in entry["metrics"].values():
            expected += [
                repr(numbers[k]) if numbers.get(k) is not None else ""
                for k in ("score", "mean", "ci", "p_value")
            ]
        assert row[1:] == expected
    for section in doc["sentence_buckets"]:
        rows = [row for row in cells.tables[section["by"]] if row]
        assert len(rows) == len(section["buckets"])
        for row, bucket in zip(rows, section["buckets"]):
            assert row[1] == str(bucket["segments"])
            shown = [row[2 + k * 3 : 4 + k * 3] for k in range(len(doc["systems"]))]
            for values, entry in zip(shown, bucket["systems"]):
                wanted = [entry["metrics"][m]["score"] for m in doc["metrics"]]
                assert values == ["" if v is None else repr(v) for v in wanted]
    words = [row for row in cells.tables["word_accuracy"] if row]
    for row, bucket in zip(words, doc["word_accuracy"]["buckets"]):
        assert row[1] == str(bucket["reference_words"])
        assert row[4] == repr(bucket["systems"][0]["f_measure"])
