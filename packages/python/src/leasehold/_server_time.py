"""Time by the server's clock, for grants older than their answer (idempotent replays): what is
left of a grant is its expiry minus the answer's ``Date`` (plus a second for the header's
resolution, so it never overestimates); the local clock is never compared with the server's."""

from __future__ import annotations

import email.utils
from collections.abc import Mapping
from datetime import datetime
from typing import Optional


def server_date(headers: Mapping[str, str]) -> Optional[float]:
    """The answer's ``Date`` (lowercase-named headers) in epoch seconds, if it sent a valid one."""
    raw = headers.get("date")
    if not raw:
        return None
    try:
        return email.utils.parsedate_to_datetime(raw).timestamp()
    except (TypeError, ValueError):
        return None


def parse_utc(text: Optional[str]) -> Optional[float]:
    """An RFC 3339 UTC timestamp (``2026-11-29T15:15:00Z``) in epoch seconds, or None."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def server_remaining(expires_at: Optional[float], headers: Mapping[str, str]) -> Optional[float]:
    """Seconds left on a grant expiring at ``expires_at`` (epoch seconds) by the server's clock."""
    now = server_date(headers)
    if expires_at is None or now is None:
        return None
    return max(0.0, expires_at - (now + 1.0))


def grant_duration(nominal: Optional[float], expires_at: Optional[float], headers: Mapping[str, str], replayed: bool) -> Optional[float]:
    """The duration to register a grant with, counted from when its request was sent: the nominal
    one, cut (for a replayed answer) to what the server's clock says is left."""
    if not replayed or nominal is None:
        return nominal
    left = server_remaining(expires_at, headers)
    return nominal if left is None else min(nominal, left)
