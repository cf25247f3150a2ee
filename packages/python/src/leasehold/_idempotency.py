"""Durable memory of each logical operation's ``Idempotency-Key``, so a retry after a crash and a
restart sends the same key and the server replays the first answer instead of doing it twice."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from typing import Optional, Protocol

IDEMPOTENCY_KEY_TTL = 24 * 60 * 60.0
"""How long the server keeps an idempotency record (and so how long a stored key is reused), in seconds."""


def generate_idempotency_key() -> str:
    """A fresh random key (128 bits, URL-safe)."""
    return "idk_" + secrets.token_urlsafe(16)


def is_valid_idempotency_key(key: str) -> bool:
    """1-255 printable ASCII characters, as the server accepts."""
    return 0 < len(key) <= 255 and all(0x21 <= ord(c) <= 0x7E for c in key)


class IdempotencyStore(Protocol):
    """Where the key of each ``operation_id`` is kept; the request function writes it before sending."""

    def get(self, operation_id: str) -> Optional[str]:
        """The live key of an operation, if any (expired entries read as absent)."""

    def reserve(self, operation_id: str, candidate: str, ttl: float) -> str:
        """The live key of an operation, or ``candidate`` once stored durably (racers agree on one)."""

    def delete(self, operation_id: str) -> None:
        """Forgets an operation (no error when absent)."""


class MemoryIdempotencyStore:
    """An in-process :class:`IdempotencyStore` (keys survive retries, not restarts)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._entries: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def get(self, operation_id: str) -> Optional[str]:
        """The live key of an operation, if any."""
        with self._lock:
            entry = self._entries.get(operation_id)
            return entry[0] if entry is not None and entry[1] > self._clock() else None

    def reserve(self, operation_id: str, candidate: str, ttl: float) -> str:
        """The live key, or ``candidate`` after storing it."""
        with self._lock:
            entry = self._entries.get(operation_id)
            if entry is not None and entry[1] > self._clock():
                return entry[0]
            self._entries[operation_id] = (candidate, self._clock() + ttl)
            return candidate

    def delete(self, operation_id: str) -> None:
        """Forgets an operation."""
        with self._lock:
            self._entries.pop(operation_id, None)


class FileIdempotencyStore:
    """A crash-safe :class:`IdempotencyStore` in a directory, shareable by several processes.

    Each operation is one file named by the SHA-256 of its id, written whole to a temp file,
    fsynced, then hard-linked into place (``link`` never replaces, so the first of racing
    writers wins and the others adopt its key) or renamed over an expired entry; the directory
    is fsynced too. A reader sees the old entry or the new one, never a torn one, even after
    ``kill -9``. Leftover temp files are ignored and swept.
    """

    def __init__(self, directory: str, *, clock: Callable[[], float] = time.time, fsync: bool = True) -> None:
        self.directory = os.path.abspath(directory)
        self._clock = clock
        self._fsync = fsync
        os.makedirs(self.directory, mode=0o700, exist_ok=True)

    def _path(self, operation_id: str) -> str:
        return os.path.join(self.directory, hashlib.sha256(operation_id.encode()).hexdigest() + ".json")

    def _read(self, path: str) -> Optional[tuple[str, float]]:
        try:
            with open(path, encoding="utf-8") as file:
                entry = json.load(file)
            key, expires = entry["key"], float(entry["expiresAt"])
            return (key, expires) if isinstance(key, str) and is_valid_idempotency_key(key) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def get(self, operation_id: str) -> Optional[str]:
        """The live key of an operation, if any (expired or unreadable entries read as absent)."""
        entry = self._read(self._path(operation_id))
        return entry[0] if entry is not None and entry[1] > self._clock() else None

    def _write_temp(self, operation_id: str, key: str, ttl: float) -> str:
        temp = os.path.join(self.directory, f".tmp-{os.getpid()}-{secrets.token_hex(6)}")
        data = json.dumps({"operationId": operation_id, "key": key, "expiresAt": self._clock() + ttl}).encode()
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
            if self._fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        return temp

    def _sync_dir(self) -> None:
        if not self._fsync:
            return
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def reserve(self, operation_id: str, candidate: str, ttl: float) -> str:
        """The live key of an operation, or ``candidate`` once it is durably on disk."""
        path = self._path(operation_id)
        for _ in range(8):
            existing = self._read(path)
            if existing is not None and existing[1] > self._clock():
                return existing[0]
            temp = self._write_temp(operation_id, candidate, ttl)
            try:
                if existing is None:
                    try:
                        os.link(temp, path)  # never replaces: of racing writers exactly one wins
                        self._sync_dir()
                        return candidate
                    except FileExistsError:
                        winner = self._read(path)
                        if winner is not None:
                            continue  # live: adopt it next round; expired: replace it next round
                # An expired entry (or a corrupt one: a complete file that does not parse) is
                # replaced whole. Two writers replacing the same stale entry at once can still
                # disagree (the TypeScript store arbitrates that with a successor marker).
                os.replace(temp, path)
                self._sync_dir()
                return candidate
            finally:
                if os.path.exists(temp):
                    os.unlink(temp)
        raise OSError(f"could not reserve an idempotency key in {self.directory}")

    def delete(self, operation_id: str) -> None:
        """Forgets an operation (no error when absent)."""
        try:
            os.unlink(self._path(operation_id))
            self._sync_dir()
        except FileNotFoundError:
            pass

    def sweep(self, older_than: float = 60.0) -> int:
        """Deletes expired entries and temp files older than ``older_than`` seconds; returns how many."""
        removed = 0
        now = self._clock()
        for name in os.listdir(self.directory):
            path = os.path.join(self.directory, name)
            try:
                if name.startswith(".tmp-"):
                    if now - os.stat(path).st_mtime > older_than:
                        os.unlink(path)
                        removed += 1
                elif name.endswith(".json"):
                    entry = self._read(path)
                    if entry is None or entry[1] <= now:
                        os.unlink(path)
                        removed += 1
            except OSError:
                continue
        return removed
