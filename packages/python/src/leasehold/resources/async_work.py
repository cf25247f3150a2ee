"""Tasks and spool queues for :class:`AsyncLeasehold` (``await lh.tasks.work(...)``,
``await lh.spool(s).queue(q).consume(...)``): the blocking handles' rules with ``await``; their
leases ride the client's one asyncio renewal task."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Optional, TypeVar, cast

from .._exceptions import LeaseholdError, LeaseLostError
from .._generated.types import Message, Queue, Task, TaskClaim, TaskList, TaskStatus
from .._lease_errors import lease_lost_reason_of
from .._lease_state import TASK_CLAIM_DURATION, LeaseState
from .._retry import is_retryable_error
from .spools import MAX_NACK_DELAY, DeadLetter, default_backoff, dead_letter_key
from .tasks import claimable_query

if TYPE_CHECKING:
    from .._client import AsyncLeasehold

T = TypeVar("T")


class AsyncTaskLease(LeaseState):
    """A task claim of the async client."""

    def __init__(self, lh: AsyncLeasehold, claim: TaskClaim, token: str, etag: str) -> None:
        super().__init__(claim_id=claim["claimId"], kind="task", status="held", fence=claim["fence"], clock=lh._clock)
        self._lh = lh
        self.task_id = claim["taskId"]
        self.etag = etag
        self._token = token

    async def complete(self, result: Any = None) -> Task:
        """Completes the task under this claim."""
        self.raise_if_lost()
        body: dict[str, Any] = {} if result is None else {"result": result}
        try:
            answer = await self._lh._api.request(
                "completeTask", path={"taskId": self.task_id}, body=body, headers={"If-Match": self.etag, "X-Task-Claim": self._token}
            )
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self._lh._scheduler.unregister(self)
                self.lose(reason, str(error))
                raise LeaseLostError(reason, self.claim_id, str(error)) from error
            raise
        self._lh._scheduler.unregister(self)
        self.lose("released")
        return cast(Task, answer.data)

    async def release(self) -> None:
        """Gives the task back unclaimed (nothing when the claim is already gone)."""
        if self.lost.is_set():
            return
        self._lh._scheduler.unregister(self)
        try:
            await self._lh._api.request("releaseTaskClaim", path={"taskId": self.task_id}, body={"token": self._token}, headers={"If-Match": self.etag})
        except LeaseholdError as error:
            if lease_lost_reason_of(error) is None:
                raise
        finally:
            self.lose("released")


class AsyncTasks:
    """The task list (async)."""

    def __init__(self, lh: AsyncLeasehold) -> None:
        self._lh = lh

    async def create(self, title: str, *, operation_id: Optional[str] = None) -> Task:
        """Creates a task."""
        return cast(Task, (await self._lh._api.request("createTask", body={"title": title}, operation_id=operation_id)).data)

    async def get(self, task_id: int) -> tuple[Task, str]:
        """The task and its ETag."""
        answer = await self._lh._api.request("getTask", path={"taskId": task_id})
        return cast(Task, answer.data), answer.headers.get("etag", "")

    async def list(self, *, status: Optional[TaskStatus] = None, claimable: Optional[bool] = None, limit: Optional[int] = None) -> AsyncIterator[Task]:
        """Every task (of ``status``; ``claimable=True``: only those a worker may take now), page after page."""
        cursor: Optional[str] = None
        while True:
            query = {"status": status, "claimable": claimable_query(claimable), "limit": limit, "cursor": cursor}
            answer = await self._lh._api.request("listTasks", query=query)
            page = cast(TaskList, answer.data)
            for task in page["data"]:
                yield task
            cursor = page["nextCursor"]
            if cursor is None:
                return

    async def claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> AsyncTaskLease:
        """Claims the task (renewed by the batch heartbeat)."""
        if etag is None:
            etag = (await self.get(task_id))[1]
        sent_at = self._lh._clock()
        answer = await self._lh._api.request(
            "claimTask", path={"taskId": task_id}, body={}, operation_id=operation_id,
            headers={"If-Match": etag, "Leasehold-Session": self._lh.session},
        )
        claim = cast(TaskClaim, answer.data)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The claim of task {task_id} answered no token.")
        lease = AsyncTaskLease(self._lh, claim, token, answer.headers.get("etag", etag))
        self._lh._scheduler.register(lease, TASK_CLAIM_DURATION, sent_at)
        return lease

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

    async def work(self, task_id: int, fn: Callable[[AsyncTaskLease], Awaitable[T]]) -> T:
        """Claims, awaits ``fn(lease)`` while renewed, completes with its result (releases when it raises)."""
        lease = await self.claim(task_id)
        try:
            result = await fn(lease)
            lease.raise_if_lost()
        except BaseException:
            await lease.release()
            raise
        await lease.complete(result)
        return result


class AsyncSpoolMessage(LeaseState):
    """A received message and its lease (async)."""

    def __init__(self, lh: AsyncLeasehold, message: Message, token: str, timeout: Optional[float]) -> None:
        super().__init__(claim_id=message.get("claimId") or message["handle"], kind="spool", status="held",
                         fence=message.get("fence"), clock=lh._clock, spool_timeout=timeout)
        self._lh = lh
        self.message = message
        self.body: Any = message["body"]
        self.delivery_count = message["deliveryCount"]
        self._token = token

    async def _settle(self, operation: str, body: Any = None) -> None:
        self.raise_if_lost()
        self._lh._scheduler.unregister(self)
        try:
            await self._lh._api.request(operation, path={"spool": self.message["spool"]}, body=body, headers={"Spooler-Lease": self._token})
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
            raise
        self.lose("released")

    async def ack(self) -> None:
        """Deletes the message: it was handled."""
        await self._settle("ackMessage")

    async def nack(self, delay: int = 0) -> None:
        """Puts the message back, visible after ``delay`` seconds."""
        await self._settle("nackMessage", {"delaySeconds": max(0, min(MAX_NACK_DELAY, int(delay)))})


class AsyncSpoolQueue:
    """One queue of a spool (async)."""

    def __init__(self, lh: AsyncLeasehold, spool: str, name: str) -> None:
        self._lh = lh
        self.spool = spool
        self.name = name

    def _path(self) -> dict[str, str]:
        return {"spool": self.spool, "queue": self.name}

    async def put(self, *, lease_timeout: Optional[int] = 30) -> Queue:
        """Creates or updates the queue."""
        return cast(Queue, (await self._lh._api.request("putQueue", path=self._path(), body={"leaseTimeoutSeconds": lease_timeout})).data)

    async def send(self, body: Any, *, idempotency_key: Optional[str] = None, operation_id: Optional[str] = None) -> Message:
        """Sends a message."""
        answer = await self._lh._api.request("sendMessage", path=self._path(), body={"body": body}, idempotency_key=idempotency_key, operation_id=operation_id)
        return cast(Message, answer.data)

    async def receive(self) -> Optional[AsyncSpoolMessage]:
        """Leases the oldest visible message; None when the queue is empty."""
        sent_at = self._lh._clock()
        answer = await self._lh._api.request("receiveMessage", path=self._path(), headers={"Leasehold-Session": self._lh.session})
        if answer.status == 204 or answer.data is None:
            return None
        token = answer.headers.get("spooler-lease")
        if not token:
            raise LeaseholdError("The receive answered no Spooler-Lease.")
        raw = answer.headers.get("spooler-lease-timeout")
        timeout = float(raw) if raw else None
        message = AsyncSpoolMessage(self._lh, cast(Message, answer.data), token, timeout)
        self._lh._scheduler.register(message, timeout, sent_at)
        return message

    async def consume(
        self,
        handler: Callable[[AsyncSpoolMessage], Awaitable[object]],
        *,
        stop: Optional[asyncio.Event] = None,
        max_messages: Optional[int] = None,
        max_deliveries: Optional[int] = None,
        dead_letter: Optional[DeadLetter] = None,
        backoff: Callable[[int], int] = default_backoff,
        poll_interval: float = 1.0,
    ) -> int:
        """As the blocking ``consume``: returning acks, raising nacks after ``backoff``, dead letters after ``max_deliveries``."""
        stop = stop or asyncio.Event()
        handled = 0
        while not stop.is_set() and (max_messages is None or handled < max_messages):
            try:
                message = await self.receive()
            except LeaseholdError as error:
                if not is_retryable_error(error):
                    raise
                message = None
            if message is None:
                try:
                    await asyncio.wait_for(stop.wait(), poll_interval)
                except asyncio.TimeoutError:
                    pass
                continue
            handled += 1
            try:
                await handler(message)
                message.raise_if_lost()
            except Exception:
                if message.lost.is_set():
                    continue
                if max_deliveries is not None and message.delivery_count >= max_deliveries:
                    if dead_letter is not None:
                        key = dead_letter_key(self.spool, self.name, message.message["id"])
                        await AsyncSpoolQueue(self._lh, dead_letter.spool, dead_letter.queue).send(message.body, idempotency_key=key)
                    await message.ack()
                else:
                    await message.nack(backoff(message.delivery_count))
                continue
            await message.ack()
        return handled


class AsyncSpool:
    """A spool (async)."""

    def __init__(self, lh: AsyncLeasehold, name: str) -> None:
        self._lh = lh
        self.name = name

    async def create(self) -> Any:
        """Creates the spool."""
        return (await self._lh._api.request("createSpool", body={"name": self.name})).data

    def queue(self, name: str) -> AsyncSpoolQueue:
        """One queue of this spool."""
        return AsyncSpoolQueue(self._lh, self.name, name)
