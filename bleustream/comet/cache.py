"""COMET's score cache: segment scores kept in an SQLite file the user names.

A score is kept under a key made of the model's identity (its family, the
digest of its weights, its maximum length and precision: whatever decides
the number) and the segment's texts (source, hypothesis and, for a model
that reads them, the reference), hashed with SHA-256.  Another model or
setting makes other keys, so it never reads an old score; the same segment
scored again by the same model is read back, with no forward pass.  SQLite
stores a score as an IEEE double: it is read back bit for bit.

Standard library only (``sqlite3``, ``hashlib``).  A file that is not an
SQLite database, or cannot be written, is one ``ModelCacheError`` line.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from bleustream.errors import EXIT_DATAERR, BleustreamError

SCHEMA = "CREATE TABLE IF NOT EXISTS comet_scores (key BLOB PRIMARY KEY, score REAL NOT NULL)"
# The error spans of a model with word-level tags (XCOMET), as JSON, by the
# same key: a score of such a model is read back only with its spans.
SPANS_SCHEMA = "CREATE TABLE IF NOT EXISTS comet_spans (key BLOB PRIMARY KEY, spans TEXT NOT NULL)"
# Seconds a reader or writer waits for another process's transaction.
LOCK_TIMEOUT = 120.0
# Keys asked for in one statement (SQLite's default limit on parameters is 999).
_CHUNK = 500


class CacheError(BleustreamError):
    """The cache file cannot be read or written."""

    status = EXIT_DATAERR


def segment_key(identity: str, source: str, hypothesis: str, reference: str | None) -> bytes:
    """The key of a segment's score: each text's length before it, so that
    no two different segments (or models) make the same text to hash."""
    parts = (identity, source, hypothesis, "" if reference is None else "\x01" + reference)
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(b"%d:" % len(data))
        digest.update(data)
    return digest.digest()


class ScoreCache:
    """Scores by key, in the SQLite file ``path`` (made if missing)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.read_back = 0  # scores found (for messages and tests)
        try:
            # Workers of an engine may share the file: a writer waits its turn.
            self._db = sqlite3.connect(path, timeout=LOCK_TIMEOUT)
            self._db.execute(SCHEMA)
            self._db.execute(SPANS_SCHEMA)
            self._db.commit()
        except sqlite3.Error as exc:
            raise CacheError(f"--comet-cache {path}: not a score cache ({exc})") from None

    def get(self, keys: Sequence[bytes]) -> dict[bytes, float]:
        """The scores kept for any of ``keys``."""
        found = {key: float(score) for key, score in self._select("score", "comet_scores", keys)}
        self.read_back += len(found)
        return found

    def get_spans(self, keys: Sequence[bytes]) -> dict[bytes, str]:
        """The error spans (JSON) kept for any of ``keys``."""
        return {key: str(spans) for key, spans in self._select("spans", "comet_spans", keys)}

    def _select(self, column: str, table: str, keys: Sequence[bytes]) -> list[tuple[bytes, Any]]:
        found = []
        try:
            for start in range(0, len(keys), _CHUNK):
                chunk = list(keys[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, {column} FROM {table} WHERE key IN ({marks})", chunk
                )
                found.extend((bytes(key), value) for key, value in rows)
        except sqlite3.Error as exc:
            raise CacheError(f"--comet-cache {self.path}: cannot be read ({exc})") from None
        return found

    def put(
        self, scored: Iterable[tuple[bytes, float]], spans: Iterable[tuple[bytes, str]] = ()
    ) -> None:
        """Keeps scores (and error spans, as JSON), in one transaction."""
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO comet_scores (key, score) VALUES (?, ?)", scored
                )
                self._db.executemany(
                    "INSERT OR REPLACE INTO comet_spans (key, spans) VALUES (?, ?)", spans
                )
        except sqlite3.Error as exc:
            raise CacheError(f"--comet-cache {self.path}: cannot be written ({exc})") from None

    def close(self) -> None:
        self._db.close()
