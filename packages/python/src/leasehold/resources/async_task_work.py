"""``lh.tasks.work()`` of :class:`AsyncLeasehold`: the blocking loop of ``task_work`` with
``await``, and the :class:`AsyncTaskWorkContext` its ``fn`` gets."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union

from .._async_spaces import async_release_quietly
from .._exceptions import APIError, AttemptsExhaustedError, LeaseholdError, LeaseLostError, PreconditionFailedError, UnusableLeaseError
from .._generated.types import Task, TaskNote, UpdateTaskRequest
from .._idempotency import generate_idempotency_key
from .._lease_errors import lease_lost_reason_of
from .._ride_through import Flag, Ride, async_ride_through, log
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
    from .._client import AsyncLeasehold
    from .async_tasks import AsyncTaskLease

T = TypeVar("T")
R = TypeVar("R")


class AsyncTaskWorkContext:
    """What ``fn`` gets inside ``await lh.tasks.work()``: the task, its ETag, the claim, protected writes."""

    def __init__(self, lh: AsyncLeasehold, lease: AsyncTaskLease, task: Task, etag: str) -> None:
        self._lh = lh
        self.lease = lease
        """The claim: check ``lease.lost`` / ``lease.raise_if_lost()`` in long work."""
        self.task = task
        """The task as last read."""
        self.etag = etag
        """The task's current ETag (updated after every write made through this context)."""

    async def add_note(self, text: str, *, idempotency_key: Optional[str] = None) -> TaskNote:
        """Appends a note under the claim, then re-reads the task."""
        async def write() -> TaskNote:
            return await self._lh.tasks.add_note(self.task["id"], text, etag=self.etag, claim=self.lease, idempotency_key=idempotency_key)

        note = await self._guarded(write)
        await self.refresh()
        return note

    async def update(self, changes: UpdateTaskRequest, *, idempotency_key: Optional[str] = None) -> Task:
        """Changes status, title or description under the claim, then re-reads the task."""
        async def write() -> Task:
            return await self._lh.tasks.update(self.task["id"], changes, etag=self.etag, claim=self.lease, idempotency_key=idempotency_key)

        await self._guarded(write)
        return await self.refresh()

    async def refresh(self) -> Task:
        """Re-reads the task and its ETag."""
        task, etag = await self._lh.tasks.get(self.task["id"])
        self.task, self.etag = task, etag
        self.lease.etag = etag
        return task

    async def _complete_landed(self, body: dict[str, Any], key: str) -> bool:
        """Whether the complete sent under ``key`` took effect (its replay answers 2xx)."""
        return await self.lease.complete_landed(body.get("result"), note=body.get("note"), etag=self.etag, idempotency_key=key)

    async def _complete(self, body: dict[str, Any], key: str) -> None:
        for attempt in (1, 2):
            async def write() -> Task:
                return await self.lease.complete(
                    body.get("result"), note=body.get("note"), etag=self.etag, idempotency_key=key if attempt == 1 else None)
            try:
                await self._guarded(write)
                return
            except PreconditionFailedError:
                if attempt == 2:
                    raise
                await self.refresh()

    async def _guarded(self, write: Callable[[], Awaitable[R]]) -> R:
        self.lease.raise_if_lost()
        try:
            return await write()
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self._lose(reason, str(error))
                raise LeaseLostError(reason, self.lease.claim_id, str(error)) from error
            if isinstance(error, APIError) and 400 <= error.status < 500 and await self._claim_gone():
                message = f"Task {self.task['id']} is Done or claimed by another worker: this claim is gone."
                self._lose("lost", message)
                raise LeaseLostError("lost", self.lease.claim_id, message) from error
            raise

    def _lose(self, reason: Any, message: str) -> None:
        self._lh._scheduler.unregister(self.lease)
        self.lease.lose(reason, message)

    async def _claim_gone(self) -> bool:
        try:
            task = (await self._lh.tasks.get(self.task["id"]))[0]
        except LeaseholdError:
            return False
        return task["status"] == "Done" or task["claim"] is None or task["claim"]["claimId"] != self.lease.claim_id


async def async_give_up_if_exhausted(lh: AsyncLeasehold, task: Task, etag: str, max_attempts: Optional[int]) -> None:
    """``max_attempts`` reached: a note, ``Blocked``, :class:`AttemptsExhaustedError`."""
    if max_attempts is None or not is_exhausted(task, max_attempts):
        return
    if task["status"] != "Blocked":
        path = {"taskId": task["id"]}
        answer = await lh._api.request("addTaskNote", path=path, body={"text": giving_up_note(task, max_attempts)}, headers={"If-Match": etag})
        await lh._api.request("updateTask", path=path, body={"status": "Blocked"}, headers={"If-Match": etag_of(answer.headers, task["id"])})
    raise AttemptsExhaustedError(task["id"], task["attempts"], max_attempts)


async def async_record_failure(ctx: AsyncTaskWorkContext, error: Exception, status: FailureStatus, failure_note: FailureNote) -> None:
    """``fn`` raised while the claim was held: a note with the error, then ``status`` (best effort, logged)."""
    async def attempt(what: str, write: Callable[[], Awaitable[object]]) -> None:
        try:
            await write()
        except LeaseholdError as failure:
            log.warning("Recording the failure on task %s (%s) failed (%s); the claim is released anyway.", ctx.task["id"], what, failure)

    text = failure_note_text(error, status, failure_note)
    if text is not None:
        written = text
        await attempt("note", lambda: ctx.add_note(written))
    if not ctx.lease.lost.is_set() and ctx.task["status"] != status:
        await attempt("status", lambda: ctx.update({"status": status}))


async def async_work_on_task(
    lh: AsyncLeasehold, task_id: int, fn: Callable[[AsyncTaskWorkContext], Awaitable[T]], *, operation_id: Optional[str],
    min_remaining: float, note: Union[str, Callable[[T], Optional[str]], None], mark_in_progress: bool, stop: Optional[Flag],
    failure_status: FailureStatus, failure_note: FailureNote, max_attempts: Optional[int],
) -> T:
    """``await lh.tasks.work()`` (see :meth:`AsyncTasks.work`)."""
    check_work_options(fn, min_remaining=min_remaining, max_attempts=max_attempts, failure_status=failure_status, failure_note=failure_note)
    tasks, op = lh.tasks, operation_id or default_operation_id(task_id)

    def ride(what: str, lease: Optional[AsyncTaskLease] = None) -> Ride:
        return Ride(f"tasks.work({task_id}): {what}", policy=lh._api.retry_policy, closed=lambda: lh._closed, stop=stop, lease=lease)

    async def read() -> tuple[Task, str]:
        return await tasks.get(task_id)

    async def fresh_etag(_try: int) -> str:
        return (await tasks.get(task_id))[1]

    first_task, first_etag = await async_ride_through(read, ride("read"))
    await async_give_up_if_exhausted(lh, first_task, first_etag, max_attempts)

    async def etag_for(n: int) -> str:
        return first_etag if n == 0 else await fresh_etag(n)

    lease = await async_ride_through(tasks._claimer(task_id, op, etag_for), ride("claim"))
    try:
        task, etag = await async_ride_through(read, ride("read", lease))
        if lease.replayed and claim_belongs_elsewhere(task, lease.claim_id, lh.session):
            await lease.release()
            lease = await tasks._claimer(task_id, op, fresh_etag)()
            task, etag = await tasks.get(task_id)
        remaining = remaining_of(lease, lease.granted_remaining)
        if remaining < min_remaining:
            raise UnusableLeaseError(lease.claim_id, remaining, min_remaining)
        ctx = AsyncTaskWorkContext(lh, lease, task, etag)
        if mark_in_progress and ctx.task["status"] != "InProgress":
            marking = generate_idempotency_key()
            await async_ride_through(lambda: ctx.update({"status": "InProgress"}, idempotency_key=marking), ride("mark InProgress", lease))
    except BaseException as error:
        loss = lease.loss()
        if loss is None:
            await async_release_quietly(lease.release, lease.claim_id)
            raise
        raise loss from error

    try:
        value = await fn(ctx)
        lease.raise_if_lost()
    except BaseException as error:
        loss = lease.loss()
        if loss is not None:
            if isinstance(error, LeaseLostError):
                raise
            raise loss from error
        if isinstance(error, Exception):
            await async_record_failure(ctx, error, failure_status, failure_note)
        await async_release_quietly(lease.release, lease.claim_id)
        raise
    body, completing = completion_body(value, note), generate_idempotency_key()
    try:
        await async_ride_through(lambda: ctx._complete(body, completing), ride("complete", lease))
    except BaseException:
        loss = lease.loss()
        if loss is not None:
            # As the blocking loop: the replay of the complete's key says whether it landed.
            if await ctx._complete_landed(body, completing):
                return value
            raise loss from None
        await async_release_quietly(lease.release, lease.claim_id)
        raise
    return value
