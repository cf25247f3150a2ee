"""ONE renewal scheduler per client: one batch heartbeat per cadence naming exactly the leases
this client tracks (``claimIds``, never an unfiltered heartbeat that would keep alive a lease it
never learned of), at most one heartbeat in flight, local deadlines on a monotonic clock counted
from when the heartbeat was SENT minus a drift margin. The decisions live in
:class:`SchedulerCore` (no I/O, no threads); :class:`RenewalScheduler` drives it from one
background thread, :class:`AsyncRenewalScheduler` from one asyncio task."""

from __future__ import annotations

import asyncio
import math
import random as _random
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Optional

from ._exceptions import APIError, ClientClosedError, LeaseholdError
from ._lease_state import LeaseState, default_drift_margin
from ._retry import exponential_delay

MAX_CLAIM_IDS_PER_HEARTBEAT = 10_000
SendHeartbeat = Callable[[dict[str, Any], float], Any]


@dataclass
class HeartbeatPlan:
    """One heartbeat to send now: the ids it names (in chunks of at most 10,000) and its send time."""

    chunks: list[list[str]]
    sent_at: float
    timeout: float


@dataclass
class RenewalStats:
    """Counters of one scheduler."""

    heartbeats: int = 0
    requests: int = 0
    succeeded: int = 0
    """Heartbeats answered (every chunk of the cadence's plan)."""
    failures: int = 0
    lost: int = 0
    leases: int = 0
    renewed: int = 0
    """Lease renewals the heartbeats confirmed (one per lease named and acked ``held``)."""
    named: list[int] = field(default_factory=list)
    """How many ids each heartbeat named (last 100)."""


class SchedulerCore:
    """What to send when, and what each answer means. Every method takes the lock."""

    def __init__(
        self,
        *,
        ttl: float,
        holder_session: str,
        clock: Callable[[], float],
        drift_margin: Callable[[float], float] = default_drift_margin,
        jitter: float = 0.1,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self.ttl = ttl
        self.holder_session = holder_session
        self.clock = clock
        self.drift_margin = drift_margin
        self.jitter = jitter
        self.random = random
        self.lock = threading.RLock()
        self.settled = threading.Condition(self.lock)
        """Notified after every heartbeat answer or failure (tests and tools wait on it)."""
        self.leases: dict[str, LeaseState] = {}
        self.next_heartbeat_at = math.inf
        self.in_flight = False
        self.failures = 0
        self.closed = False
        self.stats = RenewalStats()

    def _factor(self) -> float:
        return 1 + (self.random() * 2 - 1) * self.jitter

    def register(self, lease: LeaseState, duration: Optional[float], sent_at: float) -> bool:
        """Starts renewing ``lease``, granted ``duration`` seconds by a request sent at ``sent_at``.
        Returns whether the next heartbeat moved earlier (the driver must look again): a lease
        due after it changes nothing the driver waits for (its at-risk mark and deadline come
        later still), so registering the n-th lease costs no O(n) pass over the others."""
        with self.lock:
            if self.closed:
                raise ClientClosedError()
            existing = self.leases.get(lease.claim_id)
            if existing is not None and existing is not lease:
                raise LeaseholdError(f"Another lease with claim id {lease.claim_id} is already registered.")
            lease.record(sent_at, duration, self.drift_margin, self.jitter)
            self.leases[lease.claim_id] = lease
            due = lease.renewal_due_at(self._factor())
            # A short term's at-risk mark (or deadline) can fall before its renewal is due. The driver
            # wakes by the next heartbeat at the latest, so a lease (new, or renewed by hand) whose
            # marks all come later asks no new look: a renew call never wakes the thread for nothing.
            earlier = min(due, lease.at_risk_at, lease.deadline) < self.next_heartbeat_at
            self.next_heartbeat_at = min(self.next_heartbeat_at, due)
            self.settled.notify_all()
            return earlier

    def tracked(self, claim_id: str) -> Optional[LeaseState]:
        """The lease this client renews under ``claim_id``, if any (a replayed acquire reuses it)."""
        with self.lock:
            return self.leases.get(claim_id)

    def unregister(self, lease: LeaseState) -> bool:
        """Stops renewing ``lease`` (no release, no loss); returns whether it was registered."""
        with self.lock:
            found = self.leases.pop(lease.claim_id, None) is lease
            if not self.leases:
                self.next_heartbeat_at = math.inf
                self.failures = 0
            return found

    def step(self, now: float) -> tuple[Optional[HeartbeatPlan], float]:
        """Applies passed deadlines (``deadline`` loss, ``at_risk``) and says whether to send a
        heartbeat now; returns it (or None) and when to look again."""
        lost: list[LeaseState] = []
        with self.lock:
            for lease in list(self.leases.values()):
                if now >= lease.deadline:
                    lost.append(lease)
                    del self.leases[lease.claim_id]
                elif now >= lease.at_risk_at and not lease.at_risk.is_set():
                    lease.at_risk.set()
            plan: Optional[HeartbeatPlan] = None
            if self.leases and not self.in_flight and not self.closed and now >= self.next_heartbeat_at:
                ids = list(self.leases)
                chunks = [ids[i:i + MAX_CLAIM_IDS_PER_HEARTBEAT] for i in range(0, len(ids), MAX_CLAIM_IDS_PER_HEARTBEAT)]
                # Given up after a cadence, and never past the earliest deadline: the thread is
                # blocked while it waits, and deadlines must still be noticed on time.
                earliest = min(lease.deadline for lease in self.leases.values())
                plan = HeartbeatPlan(chunks, now, max(0.5, min(max(1.0, self.cadence()), earliest - now)))
                self.in_flight = True
                self.next_heartbeat_at = math.inf
                self.stats.heartbeats += 1
                self.stats.named = (self.stats.named + [len(ids)])[-100:]
            wake = self.wake_at()
        for lease in lost:
            self.stats.lost += 1
            lease.lose("deadline", f"Lease {lease.claim_id} passed its local deadline without a confirmed renewal.")
        if lost:
            with self.lock:
                self.settled.notify_all()
        return plan, wake

    def wake_at(self) -> float:
        """The earliest moment something is due: a heartbeat, an at-risk mark or a deadline."""
        with self.lock:
            if not self.leases or self.closed:
                return math.inf
            at = math.inf if self.in_flight else self.next_heartbeat_at
            for lease in self.leases.values():
                at = min(at, lease.deadline, lease.at_risk_at if not lease.at_risk.is_set() else math.inf)
            return at

    def cadence(self) -> float:
        """A third of the shortest renewal term among the tracked leases."""
        terms = [d for d in (lease.duration_for(self.ttl) for lease in self.leases.values()) if d is not None]
        return min(terms) / 3 if terms else self.ttl / 3

    def body(self, chunk: list[str]) -> dict[str, Any]:
        """The heartbeat body naming ``chunk``."""
        return {"ttl": self.ttl, "holderSession": self.holder_session, "claimIds": chunk}

    def answered(self, plan: HeartbeatPlan, results: list[dict[str, Any]]) -> None:
        """Applies the acks: ``held`` renews (a queued claim is granted), ``queued`` keeps a place, ``lost`` ends it."""
        lost: list[LeaseState] = []
        with self.lock:
            self.in_flight = False
            self.failures = 0
            self.stats.succeeded += 1
            for result in results:
                lease = self.leases.get(str(result.get("claimId")))
                if lease is None:
                    continue
                status = result.get("status")
                if status == "held" or (status == "queued" and lease.status == "queued"):
                    lease.record(plan.sent_at, lease.duration_for(self.ttl), self.drift_margin, self.jitter)
                    if status == "held":
                        self.stats.renewed += 1
                    if status == "held" and lease.status == "queued":
                        lease.grant()
                else:
                    lost.append(lease)
                    del self.leases[lease.claim_id]
            self.next_heartbeat_at = min(
                (lease.renewal_due_at(self._factor()) for lease in self.leases.values()), default=math.inf
            )
            self.settled.notify_all()
        for lease in lost:
            self.stats.lost += 1
            lease.lose("lost", f"The server reported lease {lease.claim_id} lost.")
        if lost:
            with self.lock:
                self.settled.notify_all()  # the losses are applied too (outside the lock: listeners run user code)

    def failed(self, error: BaseException, now: float) -> None:
        """A failed heartbeat says nothing about the leases: retry with backoff, never past half the time left."""
        with self.lock:
            self.in_flight = False
            self.failures += 1
            self.stats.failures += 1
            delay = exponential_delay(self.failures, 0.5, min(30.0, max(0.5, self.cadence()))) * self._factor()
            asked = error.retry_after if isinstance(error, APIError) else None
            if asked is not None:
                delay = max(delay, asked)
            earliest = min((lease.deadline for lease in self.leases.values()), default=math.inf)
            if math.isfinite(earliest):
                delay = min(delay, max(0.1, (earliest - now) / 2))
            self.next_heartbeat_at = now + max(0.0, delay)
            self.settled.notify_all()

    def close(self) -> list[LeaseState]:
        """Stops renewing; returns the leases it tracked."""
        with self.lock:
            self.closed = True
            leases = list(self.leases.values())
            self.leases.clear()
            self.next_heartbeat_at = math.inf
            return leases


class RenewalScheduler:
    """Drives a :class:`SchedulerCore` from ONE daemon thread, started with the first lease."""

    def __init__(self, core: SchedulerCore, send: Callable[[dict[str, Any], float], list[dict[str, Any]]]) -> None:
        self.core = core
        self._send = send
        self._wake = threading.Condition()
        self._poked = False
        """Set by :meth:`wake`; a poke between the thread's look and its wait is not lost."""
        self._thread: Optional[threading.Thread] = None
        self._stop = False

    def register(self, lease: LeaseState, duration: Optional[float], sent_at: float) -> None:
        """Starts renewing ``lease`` (see :meth:`SchedulerCore.register`); wakes the thread only when it must look again."""
        if self.core.register(lease, duration, sent_at):
            self.wake()
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="leasehold-renewal", daemon=True)
            self._thread.start()

    def unregister(self, lease: LeaseState) -> bool:
        """Stops renewing ``lease``."""
        return self.core.unregister(lease)

    def wake(self) -> None:
        """Makes the thread look again now (a lease changed, or a test moved the clock)."""
        with self._wake:
            self._poked = True
            self._wake.notify_all()

    def _loop(self) -> None:
        while not self._stop:
            with self._wake:
                self._poked = False
            plan, wake_at = self.core.step(self.core.clock())
            if plan is not None:
                self._run(plan)
                continue
            with self._wake:
                if self._stop:
                    return
                wait = wake_at - self.core.clock()
                if wait > 0 and not self._poked:
                    self._wake.wait_for(lambda: self._poked or self._stop, min(wait, 60.0))

    def _run(self, plan: HeartbeatPlan) -> None:
        results: list[dict[str, Any]] = []
        try:
            for chunk in plan.chunks:
                self.core.stats.requests += 1
                results.extend(self._send(self.core.body(chunk), plan.timeout))
        except BaseException as error:  # noqa: BLE001 - every failure is a failed heartbeat
            self.core.failed(error, self.core.clock())
            return
        self.core.answered(plan, results)

    def close(self) -> list[LeaseState]:
        """Stops the thread; returns the leases it tracked (the client releases them)."""
        leases = self.core.close()
        self._stop = True
        self.wake()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)
        return leases


class AsyncRenewalScheduler:
    """Drives a :class:`SchedulerCore` from ONE asyncio task, started with the first lease."""

    def __init__(
        self, core: SchedulerCore, send: Callable[[dict[str, Any], float], Awaitable[list[dict[str, Any]]]]
    ) -> None:
        self.core = core
        self._send = send
        self._event: Optional[asyncio.Event] = None
        self._task: Optional[asyncio.Task[None]] = None

    def register(self, lease: LeaseState, duration: Optional[float], sent_at: float) -> None:
        """Starts renewing ``lease``; must be called from the event loop. Wakes the task only when it must look again."""
        earlier = self.core.register(lease, duration, sent_at)
        if self._task is None:
            self._event = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="leasehold-renewal")
        if earlier:
            self.wake()

    def unregister(self, lease: LeaseState) -> bool:
        """Stops renewing ``lease``."""
        return self.core.unregister(lease)

    def wake(self) -> None:
        """Makes the task look again now."""
        if self._event is not None:
            self._event.set()

    async def _loop(self) -> None:
        assert self._event is not None
        while not self.core.closed:
            plan, wake_at = self.core.step(self.core.clock())
            if plan is not None:
                results: list[dict[str, Any]] = []
                try:
                    for chunk in plan.chunks:
                        self.core.stats.requests += 1
                        results.extend(await self._send(self.core.body(chunk), plan.timeout))
                except asyncio.CancelledError:
                    raise
                except BaseException as error:  # noqa: BLE001
                    self.core.failed(error, self.core.clock())
                    continue
                self.core.answered(plan, results)
                continue
            self._event.clear()
            wait = wake_at - self.core.clock()
            if wait > 0:
                try:
                    await asyncio.wait_for(self._event.wait(), timeout=min(wait, 60.0))
                except asyncio.TimeoutError:
                    pass

    async def close(self) -> list[LeaseState]:
        """Stops the task; returns the leases it tracked."""
        leases = self.core.close()
        task = self._task
        if task is not None:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        return leases
