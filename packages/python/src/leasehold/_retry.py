"""The one owner of "is this failure worth another attempt", and how long to wait before it."""

from __future__ import annotations

import email.utils
import random as _random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Optional

from ._exceptions import APIConnectionError, APIError, APITimeoutError

IDEMPOTENCY_IN_FLIGHT = "idempotency_in_flight"
_NUMBER = re.compile(r"^\d+(\.\d+)?$")
_DAY = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s", re.I)


def parse_retry_after(headers: Mapping[str, str], now: float) -> Optional[float]:
    """The wait an answer asks for, in seconds: ``retry-after-ms`` first, else ``Retry-After`` as
    delay-seconds or an HTTP-date (relative to ``now``, epoch seconds). A past date gives 0; a
    missing or unparsable header gives None. ``headers`` are lowercase-named."""
    ms = headers.get("retry-after-ms", "").strip()
    if ms and _NUMBER.match(ms):
        return float(ms) / 1000
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if _NUMBER.match(value):
        return float(value)
    if not _DAY.match(value):
        return None
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - now)


def is_retryable_status(status: int, code: Optional[str]) -> bool:
    """408, 429, 5xx and 409 ``idempotency_in_flight`` may succeed when sent again."""
    if status in (408, 429) or status >= 500:
        return True
    return status == 409 and code == IDEMPOTENCY_IN_FLIGHT


def is_retryable_error(error: BaseException) -> bool:
    """Connection errors (but a name that never resolves), attempt timeouts, and retryable statuses."""
    if isinstance(error, APITimeoutError):
        return error.scope == "attempt"
    if isinstance(error, APIConnectionError):
        return not error.permanent
    return isinstance(error, APIError) and is_retryable_status(error.status, error.code)


def is_transient_heartbeat_error(error: BaseException) -> bool:
    """A failed heartbeat that says nothing definitive about the leases: no 4xx, or a retryable 4xx."""
    if not isinstance(error, APIError) or error.status < 400 or error.status >= 500:
        return True
    return is_retryable_status(error.status, error.code)


def exponential_delay(retry: int, base: float, cap: float) -> float:
    """``min(cap, base * 2^(retry-1))`` for retry number ``retry`` (1-based)."""
    return float(min(cap, base * 2 ** max(0, retry - 1)))


@dataclass
class RetryPolicy:
    """When and how long to retry: the server's wait (capped), else full-jitter exponential backoff."""

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    outage_base_delay: float = 1.0
    """First wait of a long-running loop riding through an outage (then doubling), in seconds."""
    outage_max_delay: float = 30.0
    """Longest wait between two tries of a loop riding through an outage, in seconds."""
    random: Callable[[], float] = field(default=_random.random)

    def delay(self, retry: int, error: Optional[BaseException] = None) -> float:
        """The wait before retry number ``retry`` (1-based) after ``error``, in seconds."""
        asked = error.retry_after if isinstance(error, APIError) else None
        if asked is not None and asked >= 0:
            return min(asked, self.max_retry_after)
        ceiling = exponential_delay(retry, self.base_delay, self.max_delay)
        return min(max(self.random(), 0.0), 1.0) * ceiling

    def outage_delay(self, failures: int, error: Optional[BaseException] = None) -> float:
        """The wait of a loop riding through an outage after its ``failures``-th failed try
        (1-based): ``outage_base_delay`` doubling up to ``outage_max_delay``, jittered to 50-100 %,
        never less than the server's ``Retry-After``."""
        ceiling = exponential_delay(failures, self.outage_base_delay, self.outage_max_delay)
        wait = ceiling * (0.5 + min(max(self.random(), 0.0), 1.0) / 2)
        asked = error.retry_after if isinstance(error, APIError) else None
        return max(wait, asked) if asked is not None and asked >= 0 else wait

    def decide(
        self, error: BaseException, attempt: int, *, max_retries: Optional[int] = None, remaining: Optional[float] = None
    ) -> Optional[float]:
        """The wait before another attempt after ``attempt`` (1-based) failed, or None: do not retry."""
        if not is_retryable_error(error):
            return None
        if attempt > (self.max_retries if max_retries is None else max_retries):
            return None
        wait = self.delay(attempt, error)
        if remaining is not None and wait >= remaining:
            return None
        return wait
