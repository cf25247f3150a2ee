"""Tasks for :class:`AsyncLeasehold` (``await lh.tasks.work(...)``): the blocking handles' rules
with ``await``; claims ride the client's one asyncio renewal task."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union, cast

from .._base_client import APIResponse
from .._exceptions import LeaseholdError, LeaseLostError, PreconditionFailedError
from .._generated.types import Task, TaskClaim, TaskClaimRelease, TaskList, TaskNote, TaskStatus, UpdateTaskRequest
from .._idempotency import generate_idempotency_key
from .._lease_errors import lease_lost_reason_of
from .._lease_state import TASK_CLAIM_DURATION, LeaseState
from .._replayed_grant import Grant, async_acquire_unless_ended, forget_operation
from .._ride_through import Flag
from .._server_time import grant_duration, parse_utc, server_remaining
from .async_task_work import AsyncTaskWorkContext, async_work_on_task
from .task_rules import DEFAULT_MIN_REMAINING, FailureNote, FailureStatus, claimable_query, completion_request

if TYPE_CHECKING:
    from .._client import AsyncLeasehold

T = TypeVar("T")


class AsyncTaskLease(LeaseState):
    """A task claim of the async client; ``async with lease:`` releases it unless completed."""

    etag: str
    granted_remaining: Optional[float]

    def __init__(self, lh: AsyncLeasehold, claim: TaskClaim, token: str, etag: str) -> None:
        super().__init__(claim_id=claim["claimId"], kind="task", status="held", fence=claim["fence"], clock=lh._clock)
        self._lh = lh
        self.task_id = claim["taskId"]
        self.etag = etag
        self.expires_utc = claim["expiresUtc"]
        self.granted_remaining = None
        self._token = token

    def _lose_if(self, error: LeaseholdError) -> None:
        reason = lease_lost_reason_of(error)
        if reason is not None:
            self._lh._scheduler.unregister(self)
            self.lose(reason, str(error))
            raise LeaseLostError(reason, self.claim_id, str(error)) from error

    async def _with_etag(self, operation: str) -> APIResponse:
        for attempt in (1, 2):
            self.etag = (await self._lh.tasks.get(self.task_id))[1]
            try:
                return await self._lh._api.request(operation, path={"taskId": self.task_id}, body={"token": self._token}, headers={"If-Match": self.etag})
            except PreconditionFailedError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def renew(self) -> None:
        """Renews now (the batch heartbeat does it anyway); raises LeaseLostError when it is gone."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            await self._with_etag("renewTaskClaim")
        except LeaseholdError as error:
            self._lose_if(error)
            raise
        self._lh._scheduler.register(self, TASK_CLAIM_DURATION, sent_at)

    async def complete(
        self, result: Any = None, *, note: Optional[str] = None, operation_id: Optional[str] = None,
        etag: Optional[str] = None, idempotency_key: Optional[str] = None,
    ) -> Task:
        """Completes the task under this claim (the claim ends with it)."""
        self.raise_if_lost()
        try:
            answer = await self._lh._api.request(
                "completeTask", path={"taskId": self.task_id}, body=completion_request(result, note), operation_id=operation_id,
                idempotency_key=idempotency_key, headers={"If-Match": etag or self.etag, "X-Task-Claim": self._token},
            )
        except LeaseholdError as error:
            self._lose_if(error)
            raise
        self.settled_by_server()
        return cast(Task, answer.data)

    async def complete_landed(self, result: Any = None, *, note: Optional[str] = None, etag: Optional[str] = None, idempotency_key: str) -> bool:
        """Whether a ``complete`` already sent with ``idempotency_key`` took effect: the same request
        again, whose replay answers what the first did. For a claim reported lost while that
        complete's answer was in flight (the heartbeat saw the claim end by that very complete)."""
        try:
            await self._lh._api.request(
                "completeTask", path={"taskId": self.task_id}, body=completion_request(result, note), idempotency_key=idempotency_key,
                headers={"If-Match": etag or self.etag, "X-Task-Claim": self._token},
            )
        except LeaseholdError:
            return False
        return True

    def settled_by_server(self) -> None:
        """The claim ended on the server by another write: stop renewing, no call."""
        self._lh._scheduler.unregister(self)
        self.lose("released")

    async def release(self) -> Optional[TaskClaimRelease]:
        """Gives the task back unclaimed (reading its current ETag first); None when the claim is already gone."""
        if self.lost.is_set():
            return None
        self._lh._scheduler.unregister(self)
        try:
            answer = await self._with_etag("releaseTaskClaim")
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
                return None
            raise
        finally:
            self.lose("released")
        return cast(TaskClaimRelease, answer.data)

    async def __aenter__(self) -> AsyncTaskLease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()


class AsyncTasks:
    """The task list (async)."""

    def __init__(self, lh: AsyncLeasehold) -> None:
        self._lh = lh
        self._working: set[int] = set()

    async def create(self, title: str, *, description: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Creates a task (``Todo``)."""
        body: dict[str, Any] = {"title": title}
        if description is not None:
            body["description"] = description
        return cast(Task, (await self._lh._api.request("createTask", body=body, operation_id=operation_id)).data)

    async def get(self, task_id: int) -> tuple[Task, str]:
        """The task and its ETag."""
        answer = await self._lh._api.request("getTask", path={"taskId": task_id})
        return cast(Task, answer.data), answer.headers.get("etag", "")

    async def list(self, *, status: Optional[TaskStatus] = None, claimable: Optional[bool] = None, limit: Optional[int] = None) -> AsyncIterator[Task]:
        """Every task (of ``status``; ``claimable=True``: only those a worker may take now), page after page."""
        cursor: Optional[str] = None
        while True:
            query = {"status": status, "claimable": claimable_query(claimable), "limit": limit, "cursor": cursor}
            page = cast(TaskList, (await self._lh._api.request("listTasks", query=query)).data)
            for task in page["data"]:
                yield task
            cursor = page["nextCursor"]
            if cursor is None:
                return

    async def update(
        self, task_id: int, changes: UpdateTaskRequest, *, etag: Optional[str] = None, claim: Optional[AsyncTaskLease] = None,
        idempotency_key: Optional[str] = None,
    ) -> Task:
        """Changes status, title or description (under a claim, its token goes as ``X-Task-Claim``)."""
        if etag is None:
            etag = claim.etag if claim is not None else (await self.get(task_id))[1]
        headers: dict[str, Optional[str]] = {"If-Match": etag, "X-Task-Claim": claim._token if claim is not None else None}
        answer = await self._lh._api.request("updateTask", path={"taskId": task_id}, body=changes, headers=headers, idempotency_key=idempotency_key)
        return cast(Task, answer.data)

    async def add_note(
        self, task_id: int, text: str, *, etag: Optional[str] = None, claim: Optional[AsyncTaskLease] = None,
        idempotency_key: Optional[str] = None,
    ) -> TaskNote:
        """Adds a note (under a claim, its token goes as ``X-Task-Claim``)."""
        if etag is None:
            etag = (await self.get(task_id))[1]
        headers: dict[str, Optional[str]] = {"If-Match": etag, "X-Task-Claim": claim._token if claim is not None else None}
        answer = await self._lh._api.request("addTaskNote", path={"taskId": task_id}, body={"text": text}, headers=headers, idempotency_key=idempotency_key)
        return cast(TaskNote, answer.data)

    async def _grant(self, task_id: int, etag: str, operation_id: Optional[str], key: str) -> Grant[AsyncTaskLease]:
        lh = self._lh
        sent_at = lh._clock()
        answer = await lh._api.request(
            "claimTask", path={"taskId": task_id}, body={}, operation_id=operation_id, idempotency_key=key,
            headers={"If-Match": etag, "Leasehold-Session": lh.session},
        )
        claim = cast(TaskClaim, answer.data)
        tracked = lh._scheduler.core.tracked(claim["claimId"])
        if isinstance(tracked, AsyncTaskLease):
            return Grant(tracked, answer.replayed, False)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The claim of task {task_id} answered no token.")
        lease = AsyncTaskLease(lh, claim, token, answer.headers.get("etag", etag))
        lease.replayed = answer.replayed
        expires = parse_utc(claim["expiresUtc"])
        lease.granted_remaining = server_remaining(expires, answer.headers)
        lease.forget_key_on_end(lh._api.idempotency_store, operation_id)
        lh._scheduler.register(lease, grant_duration(TASK_CLAIM_DURATION, expires, answer.headers, answer.replayed), sent_at)
        return Grant(lease, answer.replayed, True)

    def _claimer(self, task_id: int, operation_id: Optional[str], etag_for: Callable[[int], Awaitable[str]]) -> Callable[[], Awaitable[AsyncTaskLease]]:
        """One claim, safe to repeat (same key each try); ``etag_for(n)`` is the If-Match of try ``n`` (0-based)."""
        key = [generate_idempotency_key()]
        tries = [0]

        async def send(fresh: bool) -> Grant[AsyncTaskLease]:
            if fresh:  # the replay named an ended lease: forget its key now, then acquire anew
                forget_operation(self._lh._api.idempotency_store, operation_id)
                key[0] = generate_idempotency_key()
            etag = await etag_for(tries[0])
            tries[0] += 1
            return await self._grant(task_id, etag, operation_id, key[0])

        async def claim() -> AsyncTaskLease:
            return (await async_acquire_unless_ended(send, AsyncTaskLease.renew)).lease

        return claim

    async def claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> AsyncTaskLease:
        """Claims the task (renewed by the batch heartbeat); a replayed ``operation_id`` whose claim ended claims afresh."""
        first = etag

        async def etag_for(n: int) -> str:
            return first if n == 0 and first is not None else (await self.get(task_id))[1]

        return await self._claimer(task_id, operation_id, etag_for)()

    async def revoke_claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Operator: ends the task's live claim now (needs ``tasks:admin``)."""
        if etag is None:
            etag = (await self.get(task_id))[1]
        answer = await self._lh._api.request("revokeTaskClaim", path={"taskId": task_id}, headers={"If-Match": etag}, operation_id=operation_id)
        return cast(Task, answer.data)

    async def requeue(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Operator: revokes any live claim and puts the task back to ``Todo`` with ``attempts`` 0 (needs ``tasks:admin``)."""
        if etag is None:
            etag = (await self.get(task_id))[1]
        answer = await self._lh._api.request("requeueTask", path={"taskId": task_id}, headers={"If-Match": etag}, operation_id=operation_id)
        return cast(Task, answer.data)

    async def work(
        self, task_id: int, fn: Callable[[AsyncTaskWorkContext], Awaitable[T]], *, operation_id: Optional[str] = None,
        min_remaining: float = DEFAULT_MIN_REMAINING, note: Union[str, Callable[[T], Optional[str]], None] = None,
        mark_in_progress: bool = True, stop: Optional[Flag] = None, failure_status: FailureStatus = "Todo",
        failure_note: FailureNote = None, max_attempts: Optional[int] = None,
    ) -> T:
        """The safe worker loop, as the blocking ``work`` (``await fn(ctx)``); cancelling the task ends it too."""
        if task_id in self._working:
            raise LeaseholdError(f"Task {task_id} is already being worked on by this client.")
        self._working.add(task_id)
        try:
            return await async_work_on_task(
                self._lh, task_id, fn, operation_id=operation_id, min_remaining=min_remaining, note=note,
                mark_in_progress=mark_in_progress, stop=stop, failure_status=failure_status, failure_note=failure_note,
                max_attempts=max_attempts,
            )
        finally:
            self._working.discard(task_id)
