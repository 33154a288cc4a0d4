"""The HTML report: one page that opens from disk with no server and no
network (docs/analysis.md says why it is built this way).

Every plot is drawn by matplotlib (the ``report`` extra, imported only
here) as SVG and put inline in the page; the page has no script, no style
sheet and no font from elsewhere.  Tables show the document's numbers,
each cell carrying the exact value in a ``data-value`` attribute, so that
a test can read the page back and compare it with the JSON document.

``write_report`` writes the page atomically: to a temporary file in the
same folder, then ``os.replace``, so a browser reloading it never sees half
a page.
"""

from __future__ import annotations

import html
import io
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from bleustream.analysis.examples import differing_words
from bleustream.analysis.layout import TITLES
from bleustream.errors import WriteError
from bleustream.extras import require

STYLE = """
body{font-family:sans-serif;margin:2em;max-width:75em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}
td,th{border:1px solid #bbb;padding:0.2em 0.6em;text-align:right}
th{background:#eee}td.text{text-align:left}
.miss{background:#fcc}
.plot{display:inline-block;vertical-align:top;margin-right:1em;max-width:100%}
.plot svg{max-width:100%;height:auto}
"""


def require_matplotlib() -> Any:
    matplotlib = require("matplotlib", "--report", "matplotlib", "report")
    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    return plt


def _svg(plt: Any, fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # no XML declaration or doctype inside HTML


def _cell(value: Any, digits: int = 2, ci: float | None = None) -> str:
    if value is None:
        return "<td>-</td>"
    if isinstance(value, float):
        shown = f"{value:.{digits}f}"
        if ci is not None:
            shown += f" ± {ci:.{digits}f}"
        return f'<td data-value="{value!r}">{shown}</td>'
    return f'<td data-value="{value}">{html.escape(str(value))}</td>'


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], name: str) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    return f'<table data-table="{html.escape(name)}"><tr>{cells}</tr>{body}</table>'


# Points between a plot's title and its axes, for the legend's row.
_LEGEND_PAD = 20


def _legend_above(ax: Any, entries: int) -> None:
    """The legend in one row between the title and the axes: outside them,
    so that it covers no bar or line, whatever the values."""
    ax.legend(
        fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=entries, frameon=False
    )


def _bars(plt: Any, title: str, labels: Sequence[str], series: Mapping[str, Any]) -> str:
    """Grouped bars per bucket, one series per system, error bars from the CIs."""
    fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(labels) * len(series)), 3.2))
    width = 0.8 / max(1, len(series))
    for k, (name, (values, errors)) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(labels))]
        heights = [0.0 if v is None else v for v in values]
        errs = [0.0 if e is None else e for e in errors]
        ax.bar(xs, heights, width, yerr=errs, capsize=2, label=name)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_title(title, fontsize=10, pad=_LEGEND_PAD)
    _legend_above(ax, len(series))
    return f'<div class="plot">{_svg(plt, fig)}</div>'


def _scores_section(plt: Any, doc: Mapping[str, Any]) -> str:
    head = ["system"]
    for m in doc["metrics"]:
        head += [m, f"{m} mean", f"{m} ±95%", f"{m} p"]
    rows = []
    for entry in doc["scores"]:
        row = [f'<td class="text">{html.escape(entry["system"])}</td>']
        for numbers in entry["metrics"].values():
            row += [_cell(numbers.get(k)) for k in ("score", "mean", "ci")]
            row.append(_cell(numbers.get("p_value"), 4))
        rows.append(row)
    parts = ["<h2>Scores</h2>", _table(head, rows, "scores")]
    for entry in doc["scores"][1:]:
        for label, dist in entry.get("differences", {}).items():
            fig, ax = plt.subplots(figsize=(4.5, 2.8))
            edges, counts = dist["edges"], dist["counts"]
            ax.stairs(counts, edges, fill=True)
            ax.axvline(0, color="black", linewidth=0.8)
            ax.set_title(f"{label}: {entry['system']} minus {doc['baseline']}", fontsize=10)
            ax.set_xlabel("bootstrap difference", fontsize=8)
            parts.append(f'<div class="plot">{_svg(plt, fig)}</div>')
    points = doc["running"]["points"]
    if points:
        fig, ax = plt.subplots(figsize=(4.5, 2.8))
        for s, name in enumerate(doc["systems"]):
            ax.plot(
                [p["segments"] for p in points], [p["scores"][s][0] for p in points], label=name
            )
        ax.set_title(f"running {doc['metrics'][0]}", fontsize=10, pad=_LEGEND_PAD)
        ax.set_xlabel("segments", fontsize=8)
        _legend_above(ax, len(doc["systems"]))
        parts.append(f'<div class="plot">{_svg(plt, fig)}</div>')
    return "".join(parts)


def _bucket_section(plt: Any, doc: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    title = f"Sentence buckets by {TITLES[section['by']]}"
    head = ["bucket", "segments"]
    for name in doc["systems"]:
        head += [f"{name} {m}" for m in doc["metrics"]] + [f"{name} p"]
    rows = []
    for bucket in section["buckets"]:
        row = [f'<td class="text">{html.escape(bucket["label"])}</td>', _cell(bucket["segments"])]
        for entry in bucket["systems"]:
            for numbers in entry["metrics"].values():
                row.append(_cell(numbers["score"], 2, numbers.get("ci")))
            first = next(iter(entry["metrics"].values()))
            row.append(_cell(first.get("p_value"), 4))
        rows.append(row)
    labels = [b["label"] for b in section["buckets"]]
    plots = []
    for m in doc["metrics"]:
        series = {
            name: (
                [b["systems"][s]["metrics"][m]["score"] for b in section["buckets"]],
                [b["systems"][s]["metrics"][m].get("ci") for b in section["buckets"]],
            )
            for s, name in enumerate(doc["systems"])
        }
        plots.append(_bars(plt, f"{m} by {TITLES[section['by']]}", labels, series))
    return f"<h2>{html.escape(title)}</h2>" + _table(head, rows, section["by"]) + "".join(plots)


def _word_section(plt: Any, doc: Mapping[str, Any]) -> str:
    words = doc["word_accuracy"]
    head = ["frequency", "reference words"]
    for name in doc["systems"]:
        head += [f"{name} precision", f"{name} recall", f"{name} F-measure"]
    rows = []
    for bucket in words["buckets"]:
        row = [
            f'<td class="text">{html.escape(bucket["label"])}</td>',
            _cell(bucket["reference_words"]),
        ]
        for entry in bucket["systems"]:
            intervals = entry.get("intervals", {})
            for measure in ("precision", "recall", "f_measure"):
                row.append(_cell(entry[measure], 4, intervals.get(measure, {}).get("ci")))
        rows.append(row)
    series = {
        name: (
            [b["systems"][s]["f_measure"] for b in words["buckets"]],
            [
                b["systems"][s].get("intervals", {}).get("f_measure", {}).get("ci")
                for b in words["buckets"]
            ],
        )
        for s, name in enumerate(doc["systems"])
    }
    labels = [b["label"] for b in words["buckets"]]
    title = f"Word F-measure by frequency (from {words['frequency_from']})"
    return (
        f"<h2>{html.escape(title)}</h2>"
        + _table(head, rows, "word_accuracy")
        + _bars(plt, "word F-measure by frequency", labels, series)
    )


def _ngram_section(doc: Mapping[str, Any]) -> str:
    ngrams = doc["ngram_differences"]
    parts = [f"<h2>N-gram differences (orders {ngrams['orders'][0]} to {ngrams['orders'][1]})</h2>"]
    for compared in ngrams["compared"]:
        for key, first in (("baseline_more", doc["baseline"]), ("system_more", compared["system"])):
            parts.append(f"<h3>{html.escape(first)} matches more</h3>")
            rows = [
                [
                    f'<td class="text">{html.escape(x["ngram"])}</td>',
                    _cell(x["score"], 4),
                    _cell(x["baseline"]),
                    _cell(x["system"]),
                ]
                for x in compared[key]
            ]
            head = ["n-gram", "score", doc["baseline"], compared["system"]]
            parts.append(_table(head, rows, f"ngrams {compared['system']} {key}"))
    return "".join(parts)


def _marked(hypothesis: str, reference: str) -> str:
    """A hypothesis with the words it does not share with the reference
    (outside difflib's matching blocks of the two) marked as misses, whichever
    system it is and whichever is better."""
    words = hypothesis.split()
    misses, _ = differing_words(words, reference.split())
    return " ".join(
        f'<span class="miss">{html.escape(w)}</span>' if miss else html.escape(w)
        for w, miss in zip(words, misses)
    )


def _example_section(doc: Mapping[str, Any]) -> str:
    examples = doc["examples"]
    parts = [
        "<h2>Examples</h2>",
        "<p>In each hypothesis, the words it does not share with the reference, in "
        'the reference\'s order, are <span class="miss">marked</span>.</p>',
    ]
    for compared in examples["compared"]:
        for key, word in (("better", "above"), ("worse", "below")):
            parts.append(
                f"<h3>{html.escape(compared['system'])}'s sentence "
                f"{examples['metric']} furthest {word} the baseline's</h3>"
            )
            rows = []
            for x in compared[key]:
                base = _marked(x["baseline"], x["reference"])
                system = _marked(x["system"], x["reference"])
                src = "" if x["source"] is None else html.escape(x["source"])
                rows.append(
                    [
                        _cell(x["segment"]),
                        _cell(x["difference"]),
                        f'<td class="text">{src}</td>',
                        f'<td class="text">{html.escape(x["reference"])}</td>',
                        f'<td class="text">{base}</td>',
                        f'<td class="text">{system}</td>',
                    ]
                )
            head = [
                "segment",
                "difference",
                "source",
                "reference",
                doc["baseline"],
                compared["system"],
            ]
            parts.append(_table(head, rows, f"examples {compared['system']} {key}"))
    return "".join(parts)


def render(doc: Mapping[str, Any]) -> str:
    """The whole page."""
    plt = require_matplotlib()
    title = f"bleustream analysis: {', '.join(doc['systems'])}"
    body = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{doc['segments']} segments; baseline {html.escape(doc['baseline'])}; "
        f"bootstrap samples {doc['resampling']['samples']}, seed {doc['resampling']['seed']}.</p>",
        _scores_section(plt, doc),
        *(_bucket_section(plt, doc, section) for section in doc["sentence_buckets"]),
        _word_section(plt, doc),
        _ngram_section(doc),
        _example_section(doc),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


def write_report(doc: Mapping[str, Any], path: str) -> None:
    """Writes the page to ``path`` atomically (a temporary file, then a rename)."""
    page = render(doc)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=folder)
    except OSError as exc:
        raise WriteError(f"cannot write the report beside {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as exc:
        os.unlink(temporary)
        raise WriteError(f"cannot write the report {path}: {exc.strerror}") from None
