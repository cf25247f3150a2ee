"""What every lease handle shares (space claims, task claims, spool messages): its status, its
local deadline on a monotonic clock, and the ``lost`` / ``at_risk`` signals the renewal
scheduler sets before the server would expire it."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Literal, Optional

from ._exceptions import LeaseLostError, LeaseLostReason
from ._idempotency import IdempotencyStore
from ._signal import LeaseSignal

LeaseKind = Literal["space", "task", "spool"]
LeaseStatus = Literal["held", "queued", "lost", "released"]
SPACE_TTL_MIN = 5.0
SPACE_TTL_MAX = 600.0
TASK_CLAIM_DURATION = 900.0
"""A task claim always lasts 15 minutes from its grant or last renewal (seconds)."""


def default_drift_margin(duration: float) -> float:
    """max(1 s, 5 % of the duration), never more than half of it."""
    return min(duration / 2, max(1.0, duration * 0.05))


def space_claim_duration(ttl: float) -> float:
    """How long a heartbeat with this ``ttl`` keeps a space claim: clamp(ttl, 5, 600) seconds."""
    return min(SPACE_TTL_MAX, max(SPACE_TTL_MIN, ttl))


class LeaseState:
    """A lease as the scheduler tracks it. Times are seconds on the client's monotonic clock."""

    def __init__(
        self,
        *,
        claim_id: str,
        kind: LeaseKind,
        status: LeaseStatus,
        fence: Optional[int],
        clock: Callable[[], float],
        spool_timeout: Optional[float] = None,
    ) -> None:
        self.claim_id = claim_id
        self.kind: LeaseKind = kind
        self.status: LeaseStatus = status
        self.fence = fence
        self._clock = clock
        self._spool_timeout = spool_timeout
        self.lost = LeaseSignal()
        """Set the moment the lease can no longer be trusted (lost, deadline passed, released)."""
        self.at_risk = LeaseSignal()
        """Set when the lease is near its local deadline without a confirmed renewal."""
        self.granted = LeaseSignal(status == "held")
        """Set once the lease is held (at once unless it was queued)."""
        self.lost_reason: Optional[LeaseLostReason] = None
        self.sent_at = -math.inf
        self.term: Optional[float] = None
        self.deadline = math.inf
        self.at_risk_at = math.inf
        self.renewals = 0
        self.replayed = False
        """Whether the answer that granted it was an idempotent replay of an earlier request's."""
        self._listeners: list[Callable[[LeaseLostError], None]] = []
        self._lock = threading.Lock()

    def duration_for(self, ttl: float) -> Optional[float]:
        """How long one heartbeat with ``ttl`` keeps this lease (None: never expires)."""
        if self.kind == "space":
            return space_claim_duration(ttl)
        if self.kind == "task":
            return TASK_CLAIM_DURATION
        return self._spool_timeout

    def record(self, sent_at: float, duration: Optional[float], drift: Callable[[float], float], lead: float) -> None:
        """A renewal sent at ``sent_at`` granted ``duration``: the local deadline counts from the SEND."""
        with self._lock:
            if sent_at >= self.sent_at:
                self.sent_at, self.term = sent_at, duration
            elif duration is not None and self.term is not None:
                self.term = min(self.term, duration)
            if self.term is None:
                self.deadline = self.at_risk_at = math.inf
            else:
                before = self.deadline
                self.deadline = self.sent_at + self.term - drift(self.term)
                self.at_risk_at = self.deadline - (self.term / 3) * (1 + lead)
                if self.deadline > before:
                    self.at_risk.clear()
            self.renewals += 1

    def renewal_due_at(self, factor: float = 1.0) -> float:
        """A third of the term after the last send (scaled by ``factor``)."""
        return math.inf if self.term is None else self.sent_at + (self.term / 3) * factor

    def grant(self, fence: Optional[int] = None) -> None:
        """A queued claim got its turn."""
        if self.status == "queued":
            self.status = "held"
        if fence is not None:
            self.fence = fence
        self.granted.set()

    def lose(self, reason: LeaseLostReason, message: Optional[str] = None) -> bool:
        """Marks the lease gone (once); returns whether this call did it."""
        with self._lock:
            if self.lost.is_set():
                return False
            self.status = "released" if reason == "released" else "lost"
            self.lost_reason = reason
            listeners = list(self._listeners)
            self.lost.set()
        error = LeaseLostError(reason, self.claim_id, message)
        for listener in listeners:
            try:
                listener(error)
            except Exception:  # a listener's failure never breaks renewal of the others
                pass
        return True

    def on_lost(self, listener: Callable[[LeaseLostError], None]) -> None:
        """Calls ``listener(error)`` when the lease is lost (at once when it already is)."""
        with self._lock:
            if not self.lost.is_set():
                self._listeners.append(listener)
                return
        listener(LeaseLostError(self.lost_reason or "lost", self.claim_id))

    def forget_key_on_end(self, store: Optional[IdempotencyStore], operation_id: Optional[str]) -> None:
        """Deletes ``operation_id``'s stored key once the lease ends (released, completed or lost):
        a restart DURING the lease replays its acquire, a later acquire under the id is a new one."""
        if store is not None and operation_id is not None:
            forget, op = store.delete, operation_id
            self.on_lost(lambda _error: forget(op))

    @property
    def remaining(self) -> float:
        """Seconds until the local deadline (0 once passed; ``inf`` for a lease that never expires)."""
        return max(0.0, self.deadline - self._clock())

    @property
    def is_held(self) -> bool:
        """Held, and its local deadline has not passed."""
        return self.status == "held" and not self.lost.is_set() and self._clock() < self.deadline

    def loss(self) -> Optional[LeaseLostError]:
        """The lease's loss, if it is lost (its local deadline passed counts; a release by its holder is not a loss)."""
        try:
            self.raise_if_lost()
        except LeaseLostError as error:
            return None if error.reason == "released" else error
        return None

    def raise_if_lost(self) -> None:
        """Raises :class:`LeaseLostError` if the lease is gone or its local deadline has passed."""
        if not self.lost.is_set() and self._clock() >= self.deadline:
            self.lose("deadline", f"Lease {self.claim_id} passed its local deadline without a confirmed renewal.")
        if self.lost.is_set():
            raise LeaseLostError(self.lost_reason or "lost", self.claim_id)
