"""The shell recipe: split a corpus, score the shards in parallel, add them up.

Run through a real shell, as the README gives it::

    split -n l/4 -d corpus.tsv shard.
    printf '%s\\n' shard.?? | xargs -P 4 -I{} sh -c 'bleustream -f stats < {} > {}.stats'
    bleustream --input-format stats shard.??.stats

The merged output must be what one ``bleustream`` process prints for the
whole file, for every output format and every registered metric; shards
that cannot be added (other counting settings, a garbled record) are bad
input, reported with their file and line, and no score is printed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
from sacrebleu.metrics.chrf import CHRF

from bleustream.metrics.registry import METRICS
from tests.conftest import real_sets, require_real_data
from tests.helpers.clirun import COMMAND

SEGMENTS = 1200  # the first lines of WMT17 en-de: enough for uneven shards, quick to score
METRIC_ARGS = "-m " + " ".join(METRICS)

# The runners of one command per shard, four at a time; GNU parallel only where installed.
RUNNERS = {
    "xargs": "printf '%s\\n' shard.?? "
    "| xargs -P 4 -I{} sh -c 'bleustream {opts} -f stats < {} > {}.stats'",
}
if shutil.which("parallel") is not None:
    RUNNERS["parallel"] = "parallel -j 4 'bleustream {opts} -f stats < {} > {}.stats' ::: shard.??"


def sh(script: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run ``script`` with bash, ``bleustream`` on the PATH."""
    env = {**os.environ, "PATH": f"{cwd / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", "-c", "set -eo pipefail\n" + script],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
    )


def ok(script: str, cwd: Path) -> bytes:
    proc = sh(script, cwd)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
    return proc.stdout


def runner_script(runner: str, opts: str) -> str:
    # The runners' own {} stays for them to fill in.
    return RUNNERS[runner].replace("{opts}", opts)


@pytest.fixture(scope="module", params=list(RUNNERS))
def shards(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with corpus.tsv, its four shards and their stats (every metric)."""
    require_real_data()
    wmt17 = next(s for s in real_sets() if s.name == "sacrebleu-wmt17-en-de")
    work = tmp_path_factory.mktemp(f"shards-{request.param}")
    (work / "bin").mkdir()
    wrapper = work / "bin" / "bleustream"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.join(COMMAND)} "$@"\n')
    wrapper.chmod(0o755)
    hyp, ref = shlex.quote(str(wmt17.hyps[0])), shlex.quote(str(wmt17.refs[0]))
    ok(f"paste {hyp} {ref} > all.tsv && head -n {SEGMENTS} all.tsv > corpus.tsv", work)
    ok("split -n l/4 -d corpus.tsv shard.", work)
    ok(runner_script(request.param, METRIC_ARGS), work)
    counts = [len((work / f"shard.0{i}").read_bytes().splitlines()) for i in range(4)]
    assert sum(counts) == SEGMENTS and len(set(counts)) > 1, counts  # uneven shards
    return work


@cache
def whole(work: Path, opts: str) -> bytes:
    """One process over the whole file."""
    return ok(f"bleustream {METRIC_ARGS} {opts} < corpus.tsv", work)


@pytest.mark.parametrize("fmt", ["text", "jsonl", "tsv"])
def test_merged_shards_equal_one_process(shards: Path, fmt: str) -> None:
    merged = ok(f"bleustream --input-format stats -f {fmt} shard.??.stats", shards)
    assert merged == whole(shards, f"-f {fmt}")
    assert merged.count(b"\n") == (2 if fmt == "tsv" else len(METRICS))


def test_smoothing_given_only_at_merge_time(shards: Path) -> None:
    """A score-only setting may be chosen after counting: the shards were counted with -s exp."""
    merged = ok("bleustream --input-format stats -s floor -w 4 shard.??.stats", shards)
    assert b"smooth:floor" in merged
    assert merged == whole(shards, "-s floor -w 4")


@pytest.mark.parametrize("opts", ["--chrf-beta 1", "--chrf-beta 3 --chrf-eps-smoothing"])
def test_chrf_beta_and_smoothing_given_at_merge_time_over_one_reference(
    shards: Path, opts: str
) -> None:
    """With one reference, chrF's beta and smoothing change only the score:
    shards counted with chrF2 may be scored as chrF1, or smoothed."""
    merged = ok(f"bleustream --input-format stats -f jsonl {opts} shard.??.stats", shards)
    assert merged == whole(shards, f"-f jsonl {opts}")
    (record,) = [r for r in map(json.loads, merged.splitlines()) if r["metric"].startswith("chrF")]
    pairs = [line.split("\t") for line in (shards / "corpus.tsv").read_text().splitlines()]
    beta = int(opts.split()[1])
    oracle = CHRF(beta=beta, eps_smoothing="--chrf-eps-smoothing" in opts)
    expected = oracle.corpus_score([hyp for hyp, _ in pairs], [[ref for _, ref in pairs]])
    assert record["metric"] == f"chrF{beta}"
    assert record["score"] == pytest.approx(expected.score, abs=1e-9)


def test_chrf_beta_is_refused_at_merge_time_over_several_references(shards: Path) -> None:
    """With several references beta chose each segment's statistics: a merge
    may repeat it, not change it."""
    ok("awk -F'\\t' '{print $0 \"\\t\" $1}' corpus.tsv > two.tsv", shards)
    ok("bleustream -m chrf -f stats < two.tsv > two.stats", shards)
    message = refused("bleustream --input-format stats --chrf-beta 1 two.stats", shards)
    assert message == (
        "bleustream: two.stats:1: chrf beta=1 cannot be used when adding up these "
        "statistics: counted against 2 references, each segment kept those of the "
        "reference that beta=2 chose"
    )
    again = ok("bleustream --input-format stats --chrf-beta 2 -f jsonl two.stats", shards)
    assert again == ok("bleustream -m chrf -f jsonl < two.tsv", shards)


def test_gzipped_shards(shards: Path) -> None:
    ok("for f in shard.??.stats; do gzip -c $f > $f.gz; done", shards)
    merged = ok("bleustream --input-format stats -f jsonl shard.??.stats.gz", shards)
    assert merged == whole(shards, "-f jsonl")


def test_shards_on_stdin(shards: Path) -> None:
    merged = ok("cat shard.??.stats | bleustream --input-format stats -f jsonl", shards)
    assert merged == whole(shards, "-f jsonl")


# ----------------------------------------------------------------------------
# Shards that cannot be added
# ----------------------------------------------------------------------------


def refused(script: str, cwd: Path) -> str:
    """Status 65, no score, one message on stderr."""
    proc = sh(script, cwd)
    assert proc.returncode == 65, proc.stderr.decode()
    assert proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    ("option", "ours", "theirs"),
    [
        ("-tok intl", 'tokenize="intl"', 'tokenize="13a"'),
        ("-lc", "lowercase=true", "lowercase=false"),
    ],
)
def test_other_counting_settings_are_refused(
    shards: Path, option: str, ours: str, theirs: str
) -> None:
    message = refused(
        "bleustream -f stats < shard.00 > a.stats\n"
        f"bleustream {option} -f stats < shard.01 > b.stats\n"
        "bleustream --input-format stats a.stats b.stats",
        shards,
    )
    assert message.startswith(
        "bleustream: b.stats:1: statistics counted with other settings than those of a.stats:1:"
    )
    here, there = message.split(" here, ")
    assert ours in here and theirs not in here
    assert theirs in there and ours not in there


def test_garbled_record_is_refused(shards: Path) -> None:
    message = refused(
        "head -c 120 shard.01.stats > cut.stats\n"
        "bleustream --input-format stats shard.00.stats cut.stats shard.02.stats",
        shards,
    )
    assert message.startswith("bleustream: cut.stats:1: not a JSON stats record (")
