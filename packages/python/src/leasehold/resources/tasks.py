"""Tasks: ``lh.tasks.create/get/list/claim/work/complete`` (blocking client). A claim is a
15-minute lease renewed by the client's batch heartbeat while held."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union, cast

from .._base_client import APIResponse
from .._exceptions import LeaseholdError, LeaseLostError, PreconditionFailedError
from .._generated.types import Task, TaskClaim, TaskClaimRelease, TaskList, TaskNote, TaskStatus, UpdateTaskRequest
from .._idempotency import generate_idempotency_key
from .._lease_errors import lease_lost_reason_of
from .._lease_state import TASK_CLAIM_DURATION, LeaseState
from .._replayed_grant import Grant, acquire_unless_ended, forget_operation
from .._server_time import grant_duration, parse_utc, server_remaining
from .task_rules import DEFAULT_MIN_REMAINING, FailureNote, FailureStatus, claimable_query, completion_request
from .task_work import TaskWorkContext, work_on_task

if TYPE_CHECKING:
    from .._client import Leasehold

T = TypeVar("T")


class TaskLease(LeaseState):
    """A claim on a task: ``fence``, ``lost``, ``raise_if_lost()``; ``with lease:`` releases it unless completed."""

    etag: str
    granted_remaining: Optional[float]

    def __init__(self, lh: Leasehold, claim: TaskClaim, token: str, etag: str) -> None:
        super().__init__(claim_id=claim["claimId"], kind="task", status="held", fence=claim["fence"], clock=lh._clock)
        self._lh = lh
        self.task_id = claim["taskId"]
        self.etag = etag
        """The task's ETag as last seen by this lease (the If-Match of the next write)."""
        self.expires_utc = claim["expiresUtc"]
        """The claim's expiry as the claim answer gave it (RFC 3339 UTC, server clock)."""
        self.granted_remaining: Optional[float] = None
        """Seconds the claim had left by the server's clock when it was answered (None: unknown)."""
        self._token = token

    def _lose_if(self, error: LeaseholdError) -> None:
        reason = lease_lost_reason_of(error)
        if reason is not None:
            self._lh._scheduler.unregister(self)
            self.lose(reason, str(error))
            raise LeaseLostError(reason, self.claim_id, str(error)) from error

    def _with_etag(self, operation: str) -> APIResponse:
        """Reads the ETag and sends ``operation`` with the token; a 412 (changed in between) reads and sends once more."""
        for attempt in (1, 2):
            self.etag = self._lh.tasks.get(self.task_id)[1]
            try:
                return self._lh._api.request(operation, path={"taskId": self.task_id}, body={"token": self._token}, headers={"If-Match": self.etag})
            except PreconditionFailedError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def renew(self) -> None:
        """Renews now (the batch heartbeat does it anyway); raises LeaseLostError when it is gone."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            self._with_etag("renewTaskClaim")
        except LeaseholdError as error:
            self._lose_if(error)
            raise
        self._lh._track(self, TASK_CLAIM_DURATION, sent_at)

    def complete(
        self, result: Any = None, *, note: Optional[str] = None, operation_id: Optional[str] = None,
        etag: Optional[str] = None, idempotency_key: Optional[str] = None,
    ) -> Task:
        """Completes the task under this claim (the claim ends with it)."""
        self.raise_if_lost()
        try:
            answer = self._lh._api.request(
                "completeTask", path={"taskId": self.task_id}, body=completion_request(result, note), operation_id=operation_id,
                idempotency_key=idempotency_key, headers={"If-Match": etag or self.etag, "X-Task-Claim": self._token},
            )
        except LeaseholdError as error:
            self._lose_if(error)
            raise
        self.settled_by_server()
        return cast(Task, answer.data)

    def complete_landed(self, result: Any = None, *, note: Optional[str] = None, etag: Optional[str] = None, idempotency_key: str) -> bool:
        """Whether a ``complete`` already sent with ``idempotency_key`` took effect: the same request
        again, whose replay answers what the first did. For a claim reported lost while that
        complete's answer was in flight (the heartbeat saw the claim end by that very complete)."""
        try:
            self._lh._api.request(
                "completeTask", path={"taskId": self.task_id}, body=completion_request(result, note), idempotency_key=idempotency_key,
                headers={"If-Match": etag or self.etag, "X-Task-Claim": self._token},
            )
        except LeaseholdError:
            return False
        return True

    def settled_by_server(self) -> None:
        """The claim ended on the server by another write (completing the task releases it): stop renewing, no call."""
        self._lh._scheduler.unregister(self)
        self.lose("released")

    def release(self) -> Optional[TaskClaimRelease]:
        """Gives the task back unclaimed (reading its current ETag first); None when the claim is already gone."""
        if self.lost.is_set():
            return None
        self._lh._scheduler.unregister(self)
        try:
            answer = self._with_etag("releaseTaskClaim")
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
                return None
            raise
        finally:
            self.lose("released")
        return cast(TaskClaimRelease, answer.data)

    def __enter__(self) -> TaskLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Tasks:
    """The task list."""

    def __init__(self, lh: Leasehold) -> None:
        self._lh = lh
        self._working: set[int] = set()

    def create(self, title: str, *, description: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Creates a task (``Todo``)."""
        body: dict[str, Any] = {"title": title}
        if description is not None:
            body["description"] = description
        return cast(Task, self._lh._api.request("createTask", body=body, operation_id=operation_id).data)

    def get(self, task_id: int) -> tuple[Task, str]:
        """The task and its ETag (the ``If-Match`` of a write)."""
        answer = self._lh._api.request("getTask", path={"taskId": task_id})
        return cast(Task, answer.data), answer.headers.get("etag", "")

    def list(self, *, status: Optional[TaskStatus] = None, claimable: Optional[bool] = None, limit: Optional[int] = None) -> Iterator[Task]:
        """Every task (of ``status``; ``claimable=True``: only those a worker may take now, ``Todo``
        or stalled, unclaimed and past their backoff; ``False`` or None: no such filter), page
        after page, lazily."""
        cursor: Optional[str] = None
        while True:
            query = {"status": status, "claimable": claimable_query(claimable), "limit": limit, "cursor": cursor}
            page = cast(TaskList, self._lh._api.request("listTasks", query=query).data)
            yield from page["data"]
            cursor = page["nextCursor"]
            if cursor is None:
                return

    def update(
        self, task_id: int, changes: UpdateTaskRequest, *, etag: Optional[str] = None, claim: Optional[TaskLease] = None,
        idempotency_key: Optional[str] = None,
    ) -> Task:
        """Changes status, title or description (reads the ETag first when none is given; under a
        claim, its token goes as ``X-Task-Claim``)."""
        if etag is None:
            etag = claim.etag if claim is not None else self.get(task_id)[1]
        headers: dict[str, Optional[str]] = {"If-Match": etag, "X-Task-Claim": claim._token if claim is not None else None}
        answer = self._lh._api.request("updateTask", path={"taskId": task_id}, body=changes, headers=headers, idempotency_key=idempotency_key)
        return cast(Task, answer.data)

    def add_note(
        self, task_id: int, text: str, *, etag: Optional[str] = None, claim: Optional[TaskLease] = None,
        idempotency_key: Optional[str] = None,
    ) -> TaskNote:
        """Adds a note (reads the ETag first when none is given; under a claim, its token goes as ``X-Task-Claim``)."""
        if etag is None:
            etag = self.get(task_id)[1]
        headers: dict[str, Optional[str]] = {"If-Match": etag, "X-Task-Claim": claim._token if claim is not None else None}
        answer = self._lh._api.request("addTaskNote", path={"taskId": task_id}, body={"text": text}, headers=headers, idempotency_key=idempotency_key)
        return cast(TaskNote, answer.data)

    def _grant(self, task_id: int, etag: str, operation_id: Optional[str], key: str) -> Grant[TaskLease]:
        lh = self._lh
        sent_at = lh._clock()
        answer = lh._api.request(
            "claimTask", path={"taskId": task_id}, body={}, operation_id=operation_id, idempotency_key=key,
            headers={"If-Match": etag, "Leasehold-Session": lh.session},
        )
        claim = cast(TaskClaim, answer.data)
        tracked = lh._scheduler.core.tracked(claim["claimId"])
        if isinstance(tracked, TaskLease):
            return Grant(tracked, answer.replayed, False)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The claim of task {task_id} answered no token.")
        lease = TaskLease(lh, claim, token, answer.headers.get("etag", etag))
        lease.replayed = answer.replayed
        expires = parse_utc(claim["expiresUtc"])
        lease.granted_remaining = server_remaining(expires, answer.headers)
        lease.forget_key_on_end(lh._api.idempotency_store, operation_id)
        lh._track(lease, grant_duration(TASK_CLAIM_DURATION, expires, answer.headers, answer.replayed), sent_at)
        return Grant(lease, answer.replayed, True)

    def _claimer(self, task_id: int, operation_id: Optional[str], etag_for: Callable[[int], str]) -> Callable[[], TaskLease]:
        """One claim, safe to repeat (same key each try); ``etag_for(n)`` is the If-Match of try ``n`` (0-based)."""
        key = [generate_idempotency_key()]
        tries = [0]

        def send(fresh: bool) -> Grant[TaskLease]:
            if fresh:  # the replay named an ended lease: forget its key now, then acquire anew
                forget_operation(self._lh._api.idempotency_store, operation_id)
                key[0] = generate_idempotency_key()
            etag = etag_for(tries[0])
            tries[0] += 1
            return self._grant(task_id, etag, operation_id, key[0])

        return lambda: acquire_unless_ended(send, TaskLease.renew).lease

    def claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> TaskLease:
        """Claims the task (a 15-minute lease renewed by the batch heartbeat); 409 ``task_claimed``
        when someone else has it. With an ``operation_id`` a restarted worker replays its claim; a
        replay whose claim already ended is dropped and the task claimed afresh (a larger fence)."""
        first = etag
        return self._claimer(task_id, operation_id, lambda n: first if n == 0 and first is not None else self.get(task_id)[1])()

    def revoke_claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Operator: ends the task's live claim now (``revoked``) so any worker may take it over
        (needs ``tasks:admin``; reads the ETag first when none is given)."""
        if etag is None:
            etag = self.get(task_id)[1]
        answer = self._lh._api.request("revokeTaskClaim", path={"taskId": task_id}, headers={"If-Match": etag}, operation_id=operation_id)
        return cast(Task, answer.data)

    def requeue(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Operator: revokes any live claim and puts the task back to ``Todo`` with ``attempts`` 0
        (needs ``tasks:admin``; reads the ETag first when none is given)."""
        if etag is None:
            etag = self.get(task_id)[1]
        answer = self._lh._api.request("requeueTask", path={"taskId": task_id}, headers={"If-Match": etag}, operation_id=operation_id)
        return cast(Task, answer.data)

    def work(
        self, task_id: int, fn: Callable[[TaskWorkContext], T], *, operation_id: Optional[str] = None,
        min_remaining: float = DEFAULT_MIN_REMAINING, note: Union[str, Callable[[T], Optional[str]], None] = None,
        mark_in_progress: bool = True, stop: Optional[threading.Event] = None, failure_status: FailureStatus = "Todo",
        failure_note: FailureNote = None, max_attempts: Optional[int] = None,
    ) -> T:
        """The safe worker loop: reads the task (one tried ``max_attempts`` times is given up on:
        a note, ``Blocked``, :class:`AttemptsExhaustedError`), claims it under a persisted key
        (``operation_id``, default ``task:<id>:claim``: a worker restarted during the claim replays
        it, one restarted after it ended claims afresh), refuses a claim with under
        ``min_remaining`` seconds left (:class:`UnusableLeaseError`), marks it ``InProgress``, runs
        ``fn(ctx)`` while the batch heartbeat renews the claim, then completes it with ``fn``'s
        value as ``result`` (and ``note``). Takes ``Todo`` and stalled tasks alike. If ``fn``
        raises, the failure is recorded (a note, ``failure_note``; the status back to
        ``failure_status``), the claim released and the error re-raised; a lost claim raises
        :class:`LeaseLostError`. Every step rides through an outage; only the claim's loss,
        ``stop``, the client closing or a definitive error ends it."""
        if task_id in self._working:
            raise LeaseholdError(f"Task {task_id} is already being worked on by this client.")
        self._working.add(task_id)
        try:
            return work_on_task(
                self._lh, task_id, fn, operation_id=operation_id, min_remaining=min_remaining, note=note,
                mark_in_progress=mark_in_progress, stop=stop, failure_status=failure_status, failure_note=failure_note,
                max_attempts=max_attempts,
            )
        finally:
            self._working.discard(task_id)

