"""``LeaseSignal``: what ``lease.lost``, ``lease.at_risk`` and ``lease.granted`` are — a
``threading.Event``'s interface (``is_set``, ``wait``, ``set``, ``clear``) at a fraction of its
memory. A ``threading.Event`` is a condition variable, a lock and a deque (~1.1 KB); a client
holding 10,000 leases kept three per lease. A signal is a flag, and makes its event only when a
thread first waits on it (rare: the scheduler and most code only ask ``is_set()``)."""

from __future__ import annotations

import threading
from typing import Optional

_GUARD = threading.Lock()
"""Orders a signal's flag with the event a waiter makes (held for a few instructions only)."""


class LeaseSignal:
    """Set or not, like a ``threading.Event``; ``wait()`` blocks until it is set (or the timeout)."""

    __slots__ = ("_flag", "_event")

    def __init__(self, flag: bool = False) -> None:
        self._flag = flag
        self._event: Optional[threading.Event] = None

    def is_set(self) -> bool:
        """Whether it is set."""
        return self._flag

    def set(self) -> None:
        """Sets it and wakes every waiter."""
        with _GUARD:
            self._flag = True
            if self._event is not None:
                self._event.set()

    def clear(self) -> None:
        """Unsets it."""
        with _GUARD:
            self._flag = False
            if self._event is not None:
                self._event.clear()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Blocks until it is set or ``timeout`` seconds pass; returns whether it is set."""
        with _GUARD:
            if self._flag:
                return True
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        return event.wait(timeout)

    def __repr__(self) -> str:
        return f"<LeaseSignal {'set' if self._flag else 'unset'}>"
