"""What the blocking and the asyncio ``consume`` share (no I/O): where a message goes after
``max_deliveries``, the key of its dead-letter send, the nack backoff, and what a failed settle
means for the message."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal, Optional

MAX_NACK_DELAY = 900
"""The longest nack delay the server takes (seconds)."""
Settle = Literal["ack", "nack"]


@dataclass(frozen=True)
class DeadLetter:
    """Where a message goes after ``max_deliveries`` failed deliveries."""

    spool: str
    queue: str


def dead_letter_key(spool: str, queue: str, message_id: str) -> str:
    """The Idempotency-Key of a message's dead-letter send: one per source message, so a repeat replays."""
    return "dl_" + hashlib.sha256(f"{spool}/{queue}/{message_id}".encode()).hexdigest()[:40]


def default_backoff(delivery_count: int) -> int:
    """1 s after the first failed delivery, doubling, at most 300 s."""
    return int(min(300, 2 ** max(0, delivery_count - 1)))


def nack_delay(delay: float) -> int:
    """A nack delay the server takes: whole seconds, 0 to 900."""
    return max(0, min(MAX_NACK_DELAY, int(delay)))


def over_delivered(message_id: str, delivery_count: int, max_deliveries: Optional[int]) -> Optional[str]:
    """Why a message arrived already delivered more often than allowed (its handler crashed the process), or None."""
    if max_deliveries is None or delivery_count <= max_deliveries:
        return None
    return (f"Message {message_id} was delivered {delivery_count} times (more than max_deliveries {max_deliveries}) "
            "without being settled.")


def settle_failed_text(how: Settle) -> str:
    """What happens to a message whose settle failed for good: its lease is no longer renewed."""
    return "it is delivered again once its lease expires" if how == "ack" else "it is visible again once its lease expires"
