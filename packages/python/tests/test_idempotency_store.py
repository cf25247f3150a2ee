"""FileIdempotencyStore: racing writers agree on one key, a torn or corrupt file never becomes a
key, expired entries are replaced, the sweep removes debris."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from leasehold import FileIdempotencyStore


def test_racing_reserves_agree_on_one_key(tmp_path: Path) -> None:
    got: list[str] = []
    start = threading.Barrier(8)

    def racer(n: int) -> None:
        store = FileIdempotencyStore(str(tmp_path))  # one store per racer, as separate processes would
        start.wait()
        got.append(store.reserve("op", f"idk_candidate_{n}", 60))

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(got) == 8 and len(set(got)) == 1
    assert FileIdempotencyStore(str(tmp_path)).get("op") == got[0]


def test_torn_corrupt_and_expired_entries_are_not_keys(tmp_path: Path) -> None:
    now = [1000.0]
    store = FileIdempotencyStore(str(tmp_path), clock=lambda: now[0])
    assert store.reserve("a", "idk_first", 10) == "idk_first"
    (tmp_path / ".tmp-999-dead").write_text('{"key": "idk_to')  # a writer killed mid-write
    assert store.get("a") == "idk_first"
    path = next(p for p in tmp_path.iterdir() if p.suffix == ".json")
    path.write_text("{not json")
    assert store.get("a") is None and store.reserve("a", "idk_second", 10) == "idk_second"
    now[0] += 11
    assert store.get("a") is None and store.reserve("a", "idk_third", 10) == "idk_third"
    os.utime(tmp_path / ".tmp-999-dead", (0, 0))
    now[0] += 11
    assert store.sweep(older_than=60) == 2  # the expired entry and the old temp file
    assert list(tmp_path.iterdir()) == []
    store.delete("a")  # absent: no error
