"""Long-running loops ride through an outage (the TypeScript SDK's ``rideThrough``): one step of
``claim.run``, a waiting ``acquire``, ``tasks.work`` or a ``consume`` settle is tried again
while it fails in a way retrying may fix (connection errors, attempt timeouts, 5xx, 429 — after
the call's own ``max_retries``), after 1 s, 2 s, 4 s … at most 30 s (jittered, never before the
server's ``Retry-After``; :meth:`RetryPolicy.outage_delay`). The step sends the same
``Idempotency-Key`` each time. Only a definitive error, the caller's ``stop``, the client closing,
the loss of the step's lease (its local deadline: renewal governs it meanwhile) or the caller's
``until`` ends it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Optional, Protocol, TypeVar

from ._exceptions import ClientClosedError, LeaseholdError, StoppedError
from ._lease_state import LeaseState
from ._retry import RetryPolicy, is_retryable_error

T = TypeVar("T")
log = logging.getLogger("leasehold")
_SLICE = 0.05
"""How often a pause looks at ``stop``, the lease and the client (seconds)."""


class Flag(Protocol):
    """A ``threading.Event`` or an ``asyncio.Event``: something that is set or not."""

    def is_set(self) -> bool:
        """Whether it is set."""


class Ride:
    """What ends one step's ride besides a definitive error, and how long it waits between tries."""

    def __init__(
        self,
        what: str,
        *,
        policy: RetryPolicy,
        closed: Callable[[], bool],
        stop: Optional[Flag] = None,
        lease: Optional[LeaseState] = None,
        until: Optional[float] = None,
    ) -> None:
        self.what = what
        self.policy = policy
        self.closed = closed
        self.stop = stop
        self.lease = lease
        self.until = until
        """A ``time.monotonic()`` instant after which no try starts: :class:`TimeoutError`."""
        self.failures = 0

    def failed(self, error: LeaseholdError) -> float:
        """The wait before the next try after ``error``, or raises what ends the ride."""
        self.failures += 1
        if self.lease is not None:
            self.lease.raise_if_lost()
        if not is_retryable_error(error) or (self.stop is not None and self.stop.is_set()):
            raise error
        if self.closed():
            raise ClientClosedError() from error
        delay = self.policy.outage_delay(self.failures, error)
        if self.until is not None and time.monotonic() + delay >= self.until:
            raise TimeoutError(f"{self.what}: still failing when its time was up ({error}).") from error
        level = logging.WARNING if self.failures == 1 else logging.INFO
        log.log(level, "%s failed (%s); trying again in %.1f s (until it succeeds, it is stopped or its lease is lost).",
                self.what, error, delay)
        return delay

    def interrupted(self) -> bool:
        """Raises what ends a pause now (lease lost, client closed, stopped); False otherwise."""
        if self.lease is not None:
            self.lease.raise_if_lost()
        if self.closed():
            raise ClientClosedError()
        if self.stop is not None and self.stop.is_set():
            raise StoppedError(f"{self.what}: stopped while riding out an outage.")
        return False

    def succeeded(self) -> None:
        """Logs the recovery, when there was something to recover from."""
        if self.failures:
            log.info("%s: the server answers again after %d failed tries; going on.", self.what, self.failures)


def ride_through(step: Callable[[], T], ride: Ride) -> T:
    """Runs ``step`` until it succeeds, riding through an outage (blocking)."""
    while True:
        try:
            value = step()
        except LeaseholdError as error:
            end = time.monotonic() + ride.failed(error)
            while not ride.interrupted() and (left := end - time.monotonic()) > 0:
                time.sleep(min(_SLICE, left))
            continue
        ride.succeeded()
        return value


async def async_ride_through(step: Callable[[], Awaitable[T]], ride: Ride) -> T:
    """Awaits ``step()`` until it succeeds, riding through an outage (asyncio)."""
    while True:
        try:
            value = await step()
        except LeaseholdError as error:
            end = time.monotonic() + ride.failed(error)
            while not ride.interrupted() and (left := end - time.monotonic()) > 0:
                await asyncio.sleep(min(_SLICE, left))
            continue
        ride.succeeded()
        return value
