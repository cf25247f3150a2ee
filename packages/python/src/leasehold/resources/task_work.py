"""``lh.tasks.work()`` of the blocking client: the task page's safe worker loop (the TypeScript
SDK's ``workOnTask``), and the :class:`TaskWorkContext` its ``fn`` gets."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union, cast

from .._exceptions import APIError, AttemptsExhaustedError, LeaseholdError, LeaseLostError, PreconditionFailedError, UnusableLeaseError
from .._generated.types import Task, TaskNote, UpdateTaskRequest
from .._idempotency import generate_idempotency_key
from .._lease_errors import lease_lost_reason_of
from .._ride_through import Ride, log, ride_through
from .._spaces import release_quietly
from .task_rules import (
    FailureNote,
    FailureStatus,
    check_work_options,
    claim_belongs_elsewhere,
    completion_body,
    default_operation_id,
    etag_of,
    failure_note_text,
    giving_up_note,
    is_exhausted,
    remaining_of,
)

if TYPE_CHECKING:
    from .._client import Leasehold
    from .tasks import TaskLease

T = TypeVar("T")


class TaskWorkContext:
    """What ``fn`` gets inside ``lh.tasks.work()``: the task as last read, its ETag, the claim's
    lease, and protected writes that send ``If-Match`` + ``X-Task-Claim`` and then re-read the task."""

    def __init__(self, lh: Leasehold, lease: TaskLease, task: Task, etag: str) -> None:
        self._lh = lh
        self.lease = lease
        """The claim: check ``lease.lost`` / ``lease.raise_if_lost()`` in long work."""
        self.task = task
        """The task as last read."""
        self.etag = etag
        """The task's current ETag (updated after every write made through this context)."""

    def add_note(self, text: str, *, idempotency_key: Optional[str] = None) -> TaskNote:
        """Appends a note under the claim, then re-reads the task."""
        def write() -> TaskNote:
            return self._lh.tasks.add_note(self.task["id"], text, etag=self.etag, claim=self.lease, idempotency_key=idempotency_key)

        note = self._guarded(write)
        self.refresh()
        return note

    def update(self, changes: UpdateTaskRequest, *, idempotency_key: Optional[str] = None) -> Task:
        """Changes status, title or description under the claim, then re-reads the task."""
        self._guarded(lambda: self._lh.tasks.update(self.task["id"], changes, etag=self.etag, claim=self.lease, idempotency_key=idempotency_key))
        return self.refresh()

    def refresh(self) -> Task:
        """Re-reads the task and its ETag."""
        task, etag = self._lh.tasks.get(self.task["id"])
        self.task, self.etag = task, etag
        self.lease.etag = etag
        return task

    def _complete(self, body: dict[str, Any], key: str) -> None:
        """Completes the task with the claim's token (one fresh read and retry after a 412)."""
        for attempt in (1, 2):
            try:
                self._guarded(lambda: self.lease.complete(
                    body.get("result"), note=body.get("note"), etag=self.etag, idempotency_key=key if attempt == 1 else None))
                return
            except PreconditionFailedError:
                if attempt == 2:
                    raise
                self.refresh()

    def _complete_landed(self, body: dict[str, Any], key: str) -> bool:
        """Whether the complete sent under ``key`` took effect (its replay answers 2xx)."""
        return self.lease.complete_landed(body.get("result"), note=body.get("note"), etag=self.etag, idempotency_key=key)

    def _guarded(self, write: Callable[[], T]) -> T:
        """Refuses to write with a lost claim; a write answered "claim gone" loses the lease and raises
        its loss; so does any other 4xx when a fresh read shows the task Done or claimed by another."""
        self.lease.raise_if_lost()
        try:
            return write()
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self._lose(reason, str(error))
                raise LeaseLostError(reason, self.lease.claim_id, str(error)) from error
            if isinstance(error, APIError) and 400 <= error.status < 500 and self._claim_gone():
                message = f"Task {self.task['id']} is Done or claimed by another worker: this claim is gone."
                self._lose("lost", message)
                raise LeaseLostError("lost", self.lease.claim_id, message) from error
            raise

    def _lose(self, reason: Any, message: str) -> None:
        self._lh._scheduler.unregister(self.lease)
        self.lease.lose(reason, message)

    def _claim_gone(self) -> bool:
        try:
            task = self._lh.tasks.get(self.task["id"])[0]
        except LeaseholdError:
            return False
        return task["status"] == "Done" or task["claim"] is None or task["claim"]["claimId"] != self.lease.claim_id


def give_up_if_exhausted(lh: Leasehold, task: Task, etag: str, max_attempts: Optional[int]) -> None:
    """``max_attempts`` reached: a note saying why, ``Blocked`` (both guarded by the ETag read), then
    :class:`AttemptsExhaustedError`. Returns when the task may still be tried."""
    if max_attempts is None or not is_exhausted(task, max_attempts):
        return
    if task["status"] != "Blocked":
        path = {"taskId": task["id"]}
        answer = lh._api.request("addTaskNote", path=path, body={"text": giving_up_note(task, max_attempts)}, headers={"If-Match": etag})
        lh._api.request("updateTask", path=path, body={"status": "Blocked"}, headers={"If-Match": etag_of(answer.headers, task["id"])})
    raise AttemptsExhaustedError(task["id"], task["attempts"], max_attempts)


def record_failure(ctx: TaskWorkContext, error: Exception, status: FailureStatus, failure_note: FailureNote) -> None:
    """``fn`` raised while the claim was held: a note with the error, then the status ``status``.
    Best effort: a failing write is logged, never raised over ``fn``'s own error."""
    def attempt(what: str, write: Callable[[], object]) -> None:
        try:
            write()
        except LeaseholdError as failure:
            log.warning("Recording the failure on task %s (%s) failed (%s); the claim is released anyway.", ctx.task["id"], what, failure)

    text = failure_note_text(error, status, failure_note)
    if text is not None:
        written = text
        attempt("note", lambda: ctx.add_note(written))
    if not ctx.lease.lost.is_set() and ctx.task["status"] != status:
        attempt("status", lambda: ctx.update({"status": status}))


def work_on_task(
    lh: Leasehold, task_id: int, fn: Callable[[TaskWorkContext], T], *, operation_id: Optional[str], min_remaining: float,
    note: Union[str, Callable[[T], Optional[str]], None], mark_in_progress: bool, stop: Optional[threading.Event],
    failure_status: FailureStatus, failure_note: FailureNote, max_attempts: Optional[int],
) -> T:
    """``lh.tasks.work()`` (see :meth:`Tasks.work`)."""
    check_work_options(fn, min_remaining=min_remaining, max_attempts=max_attempts, failure_status=failure_status, failure_note=failure_note)
    tasks, op = lh.tasks, operation_id or default_operation_id(task_id)

    def ride(what: str, step: Callable[[], Any], lease: Optional[TaskLease] = None) -> Any:
        return ride_through(step, Ride(f"tasks.work({task_id}): {what}", policy=lh._api.retry_policy,
                                       closed=lambda: lh._closed, stop=stop, lease=lease))

    # 1-2. Read the task (one tried max_attempts times is given up on); claim it under a persisted key.
    first_task, first_etag = cast(tuple[Task, str], ride("read", lambda: tasks.get(task_id)))
    give_up_if_exhausted(lh, first_task, first_etag, max_attempts)
    lease: TaskLease = ride("claim", tasks._claimer(task_id, op, lambda n: first_etag if n == 0 else tasks.get(task_id)[1]))
    try:
        task, etag = cast(tuple[Task, str], ride("read", lambda: tasks.get(task_id), lease))
        if lease.replayed and claim_belongs_elsewhere(task, lease.claim_id, lh.session):
            # A replayed claim of an earlier process under another session: our heartbeat cannot renew it.
            lease.release()
            lease = tasks._claimer(task_id, op, lambda n: tasks.get(task_id)[1])()
            task, etag = tasks.get(task_id)
        # 3. The claim must still be usable.
        remaining = remaining_of(lease, lease.granted_remaining)
        if remaining < min_remaining:
            raise UnusableLeaseError(lease.claim_id, remaining, min_remaining)
        # 4. Claiming does not start the task.
        ctx = TaskWorkContext(lh, lease, task, etag)
        if mark_in_progress and ctx.task["status"] != "InProgress":
            marking = generate_idempotency_key()
            ride("mark InProgress", lambda: ctx.update({"status": "InProgress"}, idempotency_key=marking), lease)
    except BaseException as error:
        # Never leave a claim behind that nobody works under (the heartbeat would keep it alive).
        loss = lease.loss()
        if loss is None:
            release_quietly(lease.release, lease.claim_id)
            raise
        raise loss from error

    # 5-7. Work under the claim, then complete (releasing it in the same write).
    try:
        value = fn(ctx)
        lease.raise_if_lost()
    except BaseException as error:
        loss = lease.loss()
        if loss is not None:
            if isinstance(error, LeaseLostError):
                raise
            raise loss from error
        if isinstance(error, Exception):
            record_failure(ctx, error, failure_status, failure_note)
        release_quietly(lease.release, lease.claim_id)
        raise
    body, completing = completion_body(value, note), generate_idempotency_key()
    try:
        ride("complete", lambda: ctx._complete(body, completing), lease)
    except BaseException:
        loss = lease.loss()
        if loss is not None:
            # A heartbeat may have seen the claim end BY this complete, whose answer was lost (an
            # outage): the replay of its key says whether it landed, and then the work is done.
            if ctx._complete_landed(body, completing):
                return value
            raise loss from None
        release_quietly(lease.release, lease.claim_id)
        raise
    return value
