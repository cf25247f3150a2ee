"""The rules of ``tasks.work`` that the blocking and the asyncio loop share (no I/O): when a task
is given up on (``max_attempts``), the notes it leaves, how much of a claim is left, what of
``fn``'s value goes into ``result``, and the checks of its options."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, Optional, Union

from .._exceptions import InvalidArgumentError, LeaseholdError
from .._generated.types import Task
from .._lease_state import LeaseState
from .._redact import redact

FailureStatus = Literal["Todo", "Blocked"]
FailureNote = Union[Literal[False], Callable[[BaseException], str], None]
"""``False``: no note; a function of the error: its text; None: the default note."""
FAILURE_NOTE_MAX = 2_000
"""Longest failure note written by default (characters)."""
NOTE_MAX = 20_000
DEFAULT_MIN_REMAINING = 30.0
"""The least time a claim must have left (server clock) to start work, in seconds."""


def claimable_query(claimable: Optional[bool]) -> Optional[str]:
    """The ``claimable`` query value (``"true"``/``"false"``), or None to leave it out."""
    return None if claimable is None else ("true" if claimable else "false")


def default_operation_id(task_id: int) -> str:
    """The operation id ``tasks.work`` claims under: a worker restarted during the claim replays it."""
    return f"task:{task_id}:claim"


def is_exhausted(task: Task, max_attempts: Optional[int]) -> bool:
    """Whether ``work`` gives up on ``task``: unclaimed, unfinished, already tried ``max_attempts`` times."""
    return max_attempts is not None and task["attempts"] >= max_attempts and task["claim"] is None and task["status"] != "Done"


def giving_up_note(task: Task, max_attempts: int) -> str:
    """The note ``tasks.work`` leaves on a task it gives up on."""
    last = task["lastClaim"]
    how = ""
    if last is not None:
        how = f"; the last claim {last['outcome']}" + ("" if last["endedUtc"] is None else f" at {last['endedUtc']}")
    return (f"tasks.work gave up after {task['attempts']} attempts (max_attempts {max_attempts}){how}. "
            "Blocked until an operator requeues it.")


def default_failure_note(error: BaseException, status: FailureStatus) -> str:
    """``work() failed: <error name>: <message> (task back to <status>, claim released).``, redacted, capped."""
    text = redact(f"work() failed: {type(error).__name__}: {error} (task back to {status}, claim released).")
    return text if len(text) <= FAILURE_NOTE_MAX else text[:FAILURE_NOTE_MAX - 1] + "…"


def failure_note_text(error: BaseException, status: FailureStatus, failure_note: FailureNote) -> Optional[str]:
    """The failure note to write (None: none)."""
    if failure_note is False:
        return None
    text = failure_note(error) if failure_note is not None else default_failure_note(error, status)
    return text[:NOTE_MAX] if isinstance(text, str) and text else None


def json_result(value: Any) -> tuple[bool, Any]:
    """``fn``'s value as JSON (a normalised copy) when it is representable: ``(True, copy)``, else ``(False, None)``."""
    if value is None:
        return False, None
    try:
        return True, json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return False, None


def completion_body(value: Any, note: Union[str, Callable[[Any], Optional[str]], None]) -> dict[str, Any]:
    """The ``completeTask`` body for ``fn``'s value (``result`` when it is JSON) and the closing note."""
    body: dict[str, Any] = {}
    ok, result = json_result(value)
    if ok:
        body["result"] = result
    text = note(value) if callable(note) else note
    if text is not None:
        body["note"] = text
    return body


def completion_request(result: Any, note: Optional[str]) -> dict[str, Any]:
    """The body of ``completeTask``: ``result`` unless None, ``note`` when given (one builder, so a
    replayed complete sends exactly the bytes of the first)."""
    body: dict[str, Any] = {} if result is None else {"result": result}
    if note is not None:
        body["note"] = note
    return body


def remaining_of(lease: LeaseState, granted_remaining: Optional[float]) -> float:
    """Time left on a claim by the server's clock (from its answer), else by the local deadline."""
    return granted_remaining if granted_remaining is not None else lease.remaining


def claim_belongs_elsewhere(task: Task, claim_id: str, session: str) -> bool:
    """A replayed claim of an earlier process with another session: this client's heartbeat cannot renew it."""
    claim = task["claim"]
    return claim is not None and claim["claimId"] == claim_id and claim.get("holderSession") != session


def check_work_options(fn: object, *, min_remaining: float, max_attempts: Optional[int], failure_status: str, failure_note: object) -> None:
    """Refuses bad ``work()`` arguments before anything is sent."""
    if not callable(fn):
        raise InvalidArgumentError(f"tasks.work: fn must be a function, got {fn!r}.")
    if not isinstance(min_remaining, (int, float)) or min_remaining < 0:
        raise InvalidArgumentError(f"tasks.work: min_remaining must be a non-negative number of seconds, got {min_remaining!r}.")
    if max_attempts is not None and (isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1):
        raise InvalidArgumentError(f"tasks.work: max_attempts must be a positive integer, got {max_attempts!r}.")
    if failure_status not in ("Todo", "Blocked"):
        raise InvalidArgumentError(f"tasks.work: failure_status must be 'Todo' or 'Blocked', got {failure_status!r}.")
    if failure_note is not None and failure_note is not False and not callable(failure_note):
        raise InvalidArgumentError(f"tasks.work: failure_note must be False or a function, got {failure_note!r}.")


def etag_of(headers: Mapping[str, str], task_id: int) -> str:
    """The ETag of an answer about task ``task_id``."""
    etag = headers.get("etag")
    if not etag:
        raise LeaseholdError(f"Task {task_id} was answered without an ETag.")
    return etag
