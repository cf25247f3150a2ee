"""The Python side of ``pnpm bench -- --only python``: bench/python.ts starts the reference server
(``--clock manual --control``) and runs this script with Debian's /usr/bin/python3 (or
LEASEHOLD_PYTHON) and ``PYTHONPATH=packages/python/src``. It prints one JSON line of figures per
round on stdout (``kind``: ``meta`` and ``held`` once, ``renew`` and ``cadence`` per round); progress
goes to stderr.

1. ``renew``: ``lease.renew()`` of the SDK vs the same ``POST …/renew`` through a raw
   ``httpx.Client`` on ``leasehold.http_transport()`` (the SDK's own transport: kept alive,
   ``TCP_NODELAY``), ``calls`` sequential calls each, which goes first alternating per round.
2. ``held``: one client on a manual clock (the server's moves with it, as in
   packages/python/tests/test_scale.py) takes ``leases`` leases, one after another, with
   tracemalloc on: the bytes still traced after a full collection, per lease.
3. ``cadence``: both clocks moved by one renewal cadence; the HTTP requests the client sent until
   the heartbeat's answer was applied (an httpx request hook counts them)."""

from __future__ import annotations

import argparse
import gc
import json
import platform
import secrets
import sys
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Union

import httpx

from leasehold import Leasehold, SpaceLease, http_transport

LEASE_SECONDS = 600
"""The renewed leases' term: every renew asks for it, and the renew client's cadence (600 / 3 s) stays out of the rounds."""
HOLD_TTL = 30.0
"""The holding client's heartbeat ttl (the SDK's default): a cadence is a third of it, plus up to 10 % jitter."""
CADENCE_STEP = HOLD_TTL / 3 + 1
"""How far one cadence moves both clocks: a third of the term plus the jitter (test_scale.py's 11 s)."""


@dataclass(frozen=True)
class Config:
    """What bench/python.ts passes on the command line."""

    url: str
    api_key: str
    space_id: str
    run_id: str
    rounds: int
    calls: int
    warmup: int
    leases: int


class ManualClock:
    """The holding client's monotonic clock: it moves only when the benchmark moves the server's."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class RequestCounter:
    """An httpx request hook counting the requests a client sends (counts only: it keeps nothing per request)."""

    def __init__(self) -> None:
        self.requests = 0
        self.heartbeats = 0
        """Of them, ``POST /v1/claims/heartbeat``."""
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> None:
        with self._lock:
            self.requests += 1
            if request.url.path.endswith("/v1/claims/heartbeat"):
                self.heartbeats += 1


def log(message: str) -> None:
    """Progress on stderr (bench/python.ts passes it through)."""
    print(f"[bench] python: {message}", file=sys.stderr, flush=True)


def per_call_us(fn: Callable[[], None], calls: int) -> float:
    """Wall time of ``calls`` sequential calls of ``fn``, per call, in µs."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) * 1e6 / calls


class RenewPair:
    """The SDK's ``lease.renew()`` and the same request through a raw ``httpx.Client``, each on its own lease."""

    def __init__(self, cfg: Config) -> None:
        self.lh = Leasehold(base_url=cfg.url, api_key=cfg.api_key, heartbeat_ttl=LEASE_SECONDS)
        self.lease = self.lh.space(cfg.space_id).run(cfg.run_id, holder="bench", lease_seconds=LEASE_SECONDS).claim("py-renew-sdk").acquire()
        self.raw = httpx.Client(timeout=30, transport=http_transport())
        self._auth = f"Bearer {cfg.api_key}"
        claims = f"{cfg.url}/v1/spaces/{cfg.space_id}/claims"
        acquired = self.raw.post(
            claims, headers=self._headers(),
            content=json.dumps({"key": "py-renew-raw", "scopeId": cfg.run_id, "holder": "bench", "holderSession": "bench-session",
                                "leaseSeconds": LEASE_SECONDS}).encode(),
        )
        if acquired.status_code != 201:
            raise RuntimeError(f"raw acquire: {acquired.status_code} {acquired.text}")
        token = acquired.json()["token"]
        self._url = f"{claims}/py-renew-raw/renew"
        self._body = json.dumps({"token": token, "leaseSeconds": LEASE_SECONDS}).encode()
        self._release = (f"{claims}/py-renew-raw/release", json.dumps({"token": token}).encode())

    def _headers(self) -> dict[str, str]:
        # The SDK sends a fresh Idempotency-Key on every POST; so does the raw client, so the server does the same work.
        return {"Authorization": self._auth, "Content-Type": "application/json", "Idempotency-Key": "idk_" + secrets.token_urlsafe(16)}

    def sdk(self) -> None:
        """One ``lease.renew()``."""
        self.lease.renew()

    def raw_renew(self) -> None:
        """The same POST through the raw client; the answer decoded and checked."""
        response = self.raw.post(self._url, headers=self._headers(), content=self._body)
        data = response.json()
        if response.status_code != 200:
            raise RuntimeError(f"raw renew: {response.status_code} {data}")

    def measure(self, round_index: int, calls: int) -> tuple[float, float]:
        """(SDK, raw) µs per call; the SDK first in even rounds, the raw client first in odd ones."""
        if round_index % 2 == 0:
            sdk = per_call_us(self.sdk, calls)
            raw = per_call_us(self.raw_renew, calls)
        else:
            raw = per_call_us(self.raw_renew, calls)
            sdk = per_call_us(self.sdk, calls)
        return sdk, raw

    def close(self) -> None:
        """Releases both leases and closes both clients."""
        self.lh.close()
        self.raw.post(self._release[0], headers=self._headers(), content=self._release[1])
        self.raw.close()


def settle(lh: Leasehold, predicate: Callable[[], bool], timeout: float = 120.0) -> None:
    """Waits (bounded) until the renewal thread made ``predicate`` true (test_scale.py's harness)."""
    core = lh.renewal.core
    with core.settled:
        if not core.settled.wait_for(predicate, timeout):
            raise RuntimeError("the renewal thread did not get there in time")


class Holder:
    """One client on a manual clock holding ``leases`` leases; ``cadence()`` moves both clocks by one renewal cadence."""

    def __init__(self, cfg: Config, control: Leasehold) -> None:
        self.cfg = cfg
        self.control = control
        """Moves the server's clock: another client, so its requests are not counted."""
        self.clock = ManualClock()
        self.counter = RequestCounter()
        http = httpx.Client(timeout=30, transport=http_transport(), event_hooks={"request": [self.counter]})
        self.lh = Leasehold(base_url=cfg.url, api_key=cfg.api_key, heartbeat_ttl=HOLD_TTL, clock=self.clock, http_client=http)
        self.run = self.lh.space(cfg.space_id).run(str(uuid.uuid4()), holder="bench")
        self.leases: list[SpaceLease] = []

    def acquire(self) -> dict[str, float]:
        """Takes the leases one after another under tracemalloc; answers what they keep, per lease."""
        for n in range(16):  # the connection open and the acquire path warm before the baseline
            self.run.claim(f"py-hold/warm/{n}").acquire().release()
        gc.collect()
        tracemalloc.start()
        t0 = time.perf_counter()
        self.leases = [self.run.claim(f"py-hold/{n}").acquire() for n in range(self.cfg.leases)]
        acquire_s = time.perf_counter() - t0
        gc.collect()
        kept, _peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        core = self.lh.renewal.core
        if len(core.leases) != self.cfg.leases or core.stats.heartbeats != 0:
            raise RuntimeError(f"tracking {len(core.leases)} of {self.cfg.leases} leases, {core.stats.heartbeats} heartbeats sent")
        return {"bytesPerLease": kept / self.cfg.leases, "acquirePerS": self.cfg.leases / acquire_s}

    def _advance(self) -> None:
        self.clock.now += CADENCE_STEP
        self.lh.renewal.wake()

    def cadence(self) -> dict[str, float]:
        """One renewal cadence: the requests the client sent from moving its clock to the heartbeat's answer applied."""
        core = self.lh.renewal.core
        beats, renewed = core.stats.heartbeats, core.stats.renewed
        self.control.control.advance(CADENCE_STEP)
        requests, heartbeats = self.counter.requests, self.counter.heartbeats
        t0 = time.perf_counter()
        self._advance()
        settle(self.lh, lambda: core.stats.heartbeats == beats + 1 and not core.in_flight)
        wall_ms = (time.perf_counter() - t0) * 1000
        if core.stats.renewed - renewed != self.cfg.leases or not all(lease.is_held for lease in self.leases):
            raise RuntimeError(f"the heartbeat renewed {core.stats.renewed - renewed} of {self.cfg.leases} leases")
        return {
            "requests": self.counter.requests - requests,
            "heartbeatRequests": self.counter.heartbeats - heartbeats,
            "namedIds": core.stats.named[-1],
            "cadenceMs": wall_ms,
        }

    def close(self) -> None:
        """Lets go of every lease with two requests (a cancel of the run, then the heartbeat that
        reports them lost) rather than one release each, then closes the client."""
        try:
            if self.leases:
                core = self.lh.renewal.core
                self.run.cancel()
                self.control.control.advance(CADENCE_STEP)
                self._advance()
                settle(self.lh, lambda: core.stats.lost == len(self.leases))
        finally:
            self.lh.close()


def emit(kind: str, figures: Mapping[str, Union[float, str]]) -> None:
    """One JSON line of figures on stdout."""
    print(json.dumps({"kind": kind, **figures}), flush=True)


def main() -> None:
    """Renew rounds first (one lease per client), then the held leases and one cadence per round."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    for name in ("url", "api-key", "space-id", "run-id"):
        parser.add_argument(f"--{name}", required=True)
    for name in ("rounds", "calls", "warmup", "leases"):
        parser.add_argument(f"--{name}", type=int, required=True)
    args = parser.parse_args()
    cfg = Config(args.url, args.api_key, args.space_id, args.run_id, args.rounds, args.calls, args.warmup, args.leases)
    emit("meta", {"python": platform.python_version(), "httpx": httpx.__version__})
    pair = RenewPair(cfg)
    try:
        for _ in range(cfg.warmup):
            pair.sdk()
            pair.raw_renew()
        log(f"{cfg.rounds} rounds × {cfg.calls} renews per client, after {cfg.warmup} warm-up renews each")
        for r in range(cfg.rounds):
            sdk_us, raw_us = pair.measure(r, cfg.calls)
            emit("renew", {"round": r, "sdkUs": sdk_us, "rawUs": raw_us})
        holder = Holder(cfg, pair.lh)
        try:
            log(f"acquiring {cfg.leases} leases with one client (tracemalloc on)")
            emit("held", holder.acquire())
            holder.cadence()  # warm-up: the first heartbeat of this client
            log(f"{cfg.rounds} cadences of {cfg.leases} held leases")
            for r in range(cfg.rounds):
                emit("cadence", {"round": r, **holder.cadence()})
        finally:
            holder.close()
    finally:
        pair.close()


if __name__ == "__main__":
    main()
