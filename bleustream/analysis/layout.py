"""The analysis document laid out as text tables, TSV and LaTeX tables.

Every layout reads the document (``document.build``) and nothing else, so
what the terminal shows is what the JSON holds, rounded to ``width``
decimals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

TITLES = {
    "length": "reference length",
    "length_diff": "baseline length minus reference length",
    "sentence_bleu": "baseline sentence BLEU",
}
TSV_HEADER = ("analysis", "by", "bucket", "segments", "system", "measure")
TSV_NUMBERS = ("value", "mean", "ci", "p_value")


def _num(value: float | None, width: int) -> str:
    return "-" if value is None else f"{value:.{width}f}"


def _with_ci(numbers: Mapping[str, Any], width: int, key: str = "score") -> str:
    text = _num(numbers.get(key), width)
    if numbers.get("ci") is not None:
        text += f" ± {numbers['ci']:.{width}f}"
    if numbers.get("p_value") is not None:
        text += f" (p={numbers['p_value']:.4f})"
    return text


def _grid(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def text(doc: Mapping[str, Any], width: int = 2) -> str:
    """Plain text tables, one section per analysis."""
    out: list[str] = []
    resampling = doc["resampling"]
    how = "no intervals"
    if resampling["samples"]:
        test = "paired bootstrap" if resampling["test"] == "paired-bs" else "bootstrap"
        how = f"{test}, {resampling['samples']} samples, seed {resampling['seed']}"
    out.append(f"Scores: {doc['segments']} segments, baseline {doc['baseline']} ({how})")
    rows = [["system", *doc["metrics"]]]
    for entry in doc["scores"]:
        rows.append([entry["system"], *(_with_ci(n, width) for n in entry["metrics"].values())])
    out += _grid(rows)
    for section in doc["sentence_buckets"]:
        out += ["", f"Sentence buckets by {TITLES[section['by']]}"]
        rows = [["bucket", "segments"]]
        rows[0] += [f"{s} {m}" for s in doc["systems"] for m in doc["metrics"]]
        for bucket in section["buckets"]:
            row = [bucket["label"], str(bucket["segments"])]
            for entry in bucket["systems"]:
                row += [_with_ci(n, width) for n in entry["metrics"].values()]
            rows.append(row)
        out += _grid(rows)
    out += ["", *_word_text(doc, width)]
    out += _ngram_text(doc, width)
    out += _example_text(doc, width)
    return "\n".join(out) + "\n"


def _word_text(doc: Mapping[str, Any], width: int) -> list[str]:
    words = doc["word_accuracy"]
    out = [f"Word F-measure by frequency (frequencies from {words['frequency_from']})"]
    rows = [["bucket", "ref words", *doc["systems"]]]
    for bucket in words["buckets"]:
        row = [bucket["label"], str(bucket["reference_words"])]
        for entry in bucket["systems"]:
            cell = f"{entry['f_measure']:.4f}"
            if "intervals" in entry:
                cell += f" ± {entry['intervals']['f_measure']['ci']:.4f}"
            row.append(cell)
        rows.append(row)
    return out + _grid(rows)


def _ngram_text(doc: Mapping[str, Any], width: int) -> list[str]:
    ngrams = doc["ngram_differences"]
    out = []
    low, high = ngrams["orders"]
    for compared in ngrams["compared"]:
        for key, first, second in (
            ("baseline_more", doc["baseline"], compared["system"]),
            ("system_more", compared["system"], doc["baseline"]),
        ):
            out += ["", f"N-grams ({low} to {high} words) {first} matches more than {second}"]
            rows = [["n-gram", "score", doc["baseline"], compared["system"]]]
            for x in compared[key]:
                rows.append([x["ngram"], f"{x['score']:.4f}", str(x["baseline"]), str(x["system"])])
            out += _grid(rows)
    return out


def _example_text(doc: Mapping[str, Any], width: int) -> list[str]:
    examples = doc["examples"]
    out = []
    for compared in examples["compared"]:
        for key, word in (("better", "above"), ("worse", "below")):
            out += [
                "",
                f"Segments where {compared['system']}'s sentence "
                f"{examples['metric']} is furthest {word} {doc['baseline']}'s",
            ]
            for x in compared[key]:
                out.append(
                    f"segment {x['segment']}: "
                    f"{_num(x['baseline_score'], width)} -> {_num(x['system_score'], width)}"
                )
                if x["source"] is not None:
                    out.append(f"  src: {x['source']}")
                out += [
                    f"  ref: {x['reference']}",
                    f"  {doc['baseline']}: {x['baseline']}",
                    f"  {compared['system']}: {x['system']}",
                ]
    return out


def tsv_rows(doc: Mapping[str, Any]) -> Iterator[tuple[Any, ...]]:
    """One row per number: the analysis, the bucket, the system and the measure."""
    for entry in doc["scores"]:
        for label, n in entry["metrics"].items():
            yield ("scores", "", "", doc["segments"], entry["system"], label, *_numbers(n))
    for section in doc["sentence_buckets"]:
        for bucket in section["buckets"]:
            for entry in bucket["systems"]:
                for label, n in entry["metrics"].items():
                    yield (
                        "sentence_buckets",
                        section["by"],
                        bucket["label"],
                        bucket["segments"],
                        entry["system"],
                        label,
                        *_numbers(n),
                    )
    for bucket in doc["word_accuracy"]["buckets"]:
        for entry in bucket["systems"]:
            for measure in ("precision", "recall", "f_measure"):
                ci = entry.get("intervals", {}).get(measure, {})
                yield (
                    "word_accuracy",
                    "frequency",
                    bucket["label"],
                    bucket["reference_words"],
                    entry["system"],
                    measure,
                    entry[measure],
                    ci.get("mean"),
                    ci.get("ci"),
                    None,
                )
    for compared in doc["ngram_differences"]["compared"]:
        for key in ("baseline_more", "system_more"):
            for x in compared[key]:
                yield (
                    "ngram_differences",
                    key,
                    x["ngram"],
                    x["baseline"] + x["system"],
                    compared["system"],
                    "score",
                    x["score"],
                    None,
                    None,
                    None,
                )


def _numbers(n: Mapping[str, Any]) -> tuple[Any, ...]:
    return (n.get("score"), n.get("mean"), n.get("ci"), n.get("p_value"))


def tsv(doc: Mapping[str, Any]) -> str:
    lines = ["\t".join(TSV_HEADER + TSV_NUMBERS)]
    for row in tsv_rows(doc):
        lines.append("\t".join("" if x is None else str(x) for x in row))
    return "\n".join(lines) + "\n"


def _tex(text: str) -> str:
    for a, b in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("<", r"$<$"),
        (">", r"$>$"),
        ("~", r"\textasciitilde{}"),
        ("±", r"$\pm$"),
        ("^", r"\textasciicircum{}"),
    ):
        text = text.replace(a, b) if a != "\\" else text.replace(a, "\x00")
    return text.replace("\x00", r"\textbackslash{}")


def latex(doc: Mapping[str, Any], width: int = 2) -> str:
    """One booktabs table per sentence bucketing and for word accuracy."""
    out: list[str] = []
    first = doc["metrics"][0]
    for section in doc["sentence_buckets"]:
        head = ["bucket", "n", *(f"{s} {first}" for s in doc["systems"])]
        rows = [
            [
                bucket["label"],
                str(bucket["segments"]),
                *(_with_ci(e["metrics"][first], width) for e in bucket["systems"]),
            ]
            for bucket in section["buckets"]
        ]
        out += _tabular(f"{first} by {TITLES[section['by']]}", head, rows)
    head = ["frequency", "ref words", *(f"{s} F" for s in doc["systems"])]
    rows = [
        [
            bucket["label"],
            str(bucket["reference_words"]),
            *(f"{e['f_measure']:.4f}" for e in bucket["systems"]),
        ]
        for bucket in doc["word_accuracy"]["buckets"]
    ]
    out += _tabular("Word F-measure by frequency", head, rows)
    return "\n".join(out)


def _tabular(caption: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = [
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{l" + "r" * (len(head) - 1) + "}",
        r"\toprule",
        " & ".join(_tex(h) for h in head) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(_tex(cell) for cell in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(caption)}}}", r"\end{table}", ""]
    return lines
