"""Masks secrets (API keys, lease tokens, spool leases) in every text the SDK shows."""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[REDACTED]"

SECRET_HEADER_NAMES = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "spooler-lease", "x-task-claim"}
)
"""Header names whose values are always secret (lowercase)."""

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]+", re.I), rf"\1 {REDACTED}"),
    (
        re.compile(r'("(?:[A-Za-z]*[Tt]oken|api_?[Kk]ey|[Ss]pooler-?[Ll]ease|[Aa]uthorization|lease)"\s*:\s*")(?:[^"\\]|\\.)*"'),
        rf'\1{REDACTED}"',
    ),
    (re.compile(r"\b(spooler-lease|x-task-claim)([\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9_-]+", re.I), rf"\1\2{REDACTED}"),
    (re.compile(r"\blht_[A-Za-z0-9_-]+"), f"lht_{REDACTED}"),
    (re.compile(r"\bsl_[A-Za-z0-9_-]{8,}"), f"sl_{REDACTED}"),
    (re.compile(r"\blh_(test|live)_[A-Za-z0-9_-]+"), rf"lh_\1_{REDACTED}"),
    (re.compile(rf"(\btokens?\b[^A-Za-z0-9\n]{{0,6}}(?:(?:is|was|of|value)\s+)?[\"']?){_UUID}", re.I), rf"\1{REDACTED}"),
    (re.compile(r"(\btoken\b\s*[:=]\s*[\"']?)(?!\[REDACTED\])[^\s\"',;}&]+", re.I), rf"\1{REDACTED}"),
)
_MIN_SECRET_LENGTH = 6


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with the given secrets and every recognisable credential replaced by ``[REDACTED]``."""
    out = str(text)
    for secret in secrets:
        if len(secret) >= _MIN_SECRET_LENGTH and secret in out:
            out = out.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        out = pattern.sub(replacement, out)
    return out
