#!/usr/bin/env python3
"""Score on a Dask cluster: the records ``bleustream`` prints, byte for byte.

    python examples/dask_score.py REF... -i HYP... [bleustream options]
    python examples/dask_score.py -i PASTE_FILE [bleustream options]
    python examples/dask_score.py REF... -i HYP --scheduler tcp://host:8786 --partitions 64

The options are ``bleustream``'s (metrics and their settings, ``-f``,
``-w``, ``-b``, several systems, ``--paired-bs``, ``--config``...), read by
its own parser, plus ``--scheduler``, ``--partitions`` and ``--workers``.
Without ``--scheduler`` a ``LocalCluster`` of worker processes is started
and closed at the end.

The text never passes through this process: the workers read the files,
so they must be readable at the same (absolute) path on every worker.  One
task per file indexes its line starts (``Job.index``); the lines are cut
into ``--partitions`` parts at those offsets (``Job.plan``); each part is a
task that reads and counts its lines (``Job.part_stats``); the parts'
statistics are added on the cluster, pairwise, in any order (they add
exactly), and the records are formatted here (``Job.records``).
``bleustream.engines`` does all of that; this file is only Dask's part.

``-sl``, ``--every``, ``--skip-bad-lines``, log and statistics input and
standard input are refused; ``-j`` and ``--progress`` do nothing (the
cluster's workers are the parallelism).

Exit status: 0 success; 2 usage error, or Dask not installed; 65 bad
input (an undecodable line, a wrong number of fields, files of different
lengths); 66 a file that cannot be opened; 69 the scheduler cannot be
reached; 71 a worker died; 74 a read or write error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import operator
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bleustream import engines

PROG = "dask_score.py"
EXIT_UNAVAILABLE = 69  # the scheduler cannot be reached (EX_UNAVAILABLE)
PARTITIONS_PER_THREAD = 4  # default partitions: enough to even out uneven ranges
MIN_PARTITION_LINES = 500  # default partitions are no smaller (task overhead)


def build_dask_parser() -> argparse.ArgumentParser:
    """bleustream's parser, with the cluster's options added."""
    scheduler, parts, workers = engines.engine_options(
        (
            "--scheduler",
            "a running scheduler to use (tcp://host:8786); default: start a local cluster",
        ),
        "worker processes of the local cluster, one thread each (default: the cores)",
    )
    partitions = parts._replace(
        flags=("--partitions",),
        dest="partitions",
        help=f"parts of the lines to score as tasks (default: {PARTITIONS_PER_THREAD} per "
        f"worker thread, of at least {MIN_PARTITION_LINES} lines each)",
    )
    return engines.engine_parser(
        PROG,
        "Dask",
        (scheduler._replace(metavar="ADDRESS"), partitions, workers),
        "Score on a Dask cluster and print the records that bleustream prints for the\n"
        "same files and options. Each worker reads its own range of the files' lines,\n"
        "so the files must be readable at the same path on every worker.",
        "exit status: 0 success; 2 usage error, or Dask not installed; 65 bad input;\n"
        "66 a file cannot be opened; 69 the scheduler cannot be reached; 71 a worker\n"
        "died; 74 a read or write error; 130 interrupted\n\n"
        "examples:\n"
        f"  python {PROG} ref.A.de ref.B.de -i hyp.de -f jsonl\n"
        f"  python {PROG} -i paste.tsv -m bleu chrf ter --workers 8\n"
        f"  python {PROG} ref.de -i hyp.de --scheduler tcp://10.0.0.5:8786 --partitions 256\n",
    )


@contextmanager
def cluster_client(args: argparse.Namespace) -> Iterator[Any]:
    """A Client of the scheduler named, else of a local cluster started (and closed) here."""
    from distributed import Client, LocalCluster

    if args.scheduler:
        try:
            client = Client(args.scheduler)
        except OSError as exc:  # refused, or timed out
            raise engines.EngineFailure(
                f"cannot reach the scheduler at {args.scheduler}: {exc}", EXIT_UNAVAILABLE
            ) from None
        with client:
            yield client
        return
    cluster = LocalCluster(
        n_workers=args.workers,  # None: one per core
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with cluster, Client(cluster) as client:
        yield client


def score(job: engines.Job, args: argparse.Namespace) -> engines.Stats:
    """The statistics of the whole input, counted and added on the cluster."""
    from distributed import KilledWorker

    if args.scheduler and args.workers:
        raise engines.UsageError(
            "--workers sizes the local cluster; with --scheduler the cluster is given"
        )
    try:
        with cluster_client(args) as client:
            futures = [client.submit(job.index, k, pure=False) for k in range(len(job.paths))]
            indexes = [future.result() for future in futures]  # the first error in file order
            wanted = args.partitions or default_partitions(client, indexes[0].lines)
            totals = client.map(job.part_stats, job.plan(indexes, wanted), pure=False)
            while len(totals) > 1:  # a tree of sums, next to their inputs
                pairs = zip(totals[::2], totals[1::2])
                added = [client.submit(operator.add, a, b, pure=False) for a, b in pairs]
                totals = added + totals[len(added) * 2 :]
            return totals[0].result()
    except KilledWorker as exc:
        raise engines.EngineFailure(f"a worker process died ({exc}); no score is printed") from None


def default_partitions(client: Any, lines: int) -> int:
    """A few partitions per worker thread, none of them tiny."""
    threads = sum(client.nthreads().values()) or 1
    return max(1, min(PARTITIONS_PER_THREAD * threads, lines // MIN_PARTITION_LINES))


def main(argv: Sequence[str] | None = None) -> int:
    return engines.run(
        score,
        argv,
        prog=PROG,
        engine="Dask",
        extra="bleustream[dask]",
        requires=("distributed",),
        parser=build_dask_parser(),
    )


if __name__ == "__main__":
    sys.exit(main())
