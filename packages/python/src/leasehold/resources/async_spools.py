"""Spools and queues for :class:`AsyncLeasehold` (``await lh.spool(s).queue(q).consume(...)``):
the blocking handles' rules with ``await``; message leases ride the client's one asyncio
renewal task."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Optional, cast

from .._exceptions import LeaseholdError
from .._generated.types import Message, Queue, Spool as WireSpool
from .._lease_errors import lease_lost_reason_of
from .._lease_state import LeaseState
from .._ride_through import Flag
from .async_consume import async_consume_queue
from .consume_rules import DeadLetter, default_backoff, nack_delay

if TYPE_CHECKING:
    from .._client import AsyncLeasehold


class AsyncSpoolMessage(LeaseState):
    """A received message and its lease (async): ``body``, ``delivery_count``, ``ack()``, ``nack()``."""

    message: Message
    body: Any
    delivery_count: int

    def __init__(self, lh: AsyncLeasehold, message: Message, token: str, timeout: Optional[float]) -> None:
        super().__init__(claim_id=message.get("claimId") or message["handle"], kind="spool", status="held",
                         fence=message.get("fence"), clock=lh._clock, spool_timeout=timeout)
        self._lh = lh
        self.message = message
        self.body = message["body"]
        self.delivery_count = message["deliveryCount"]
        self._token = token

    async def _settle(self, operation: str, body: Any = None, idempotency_key: Optional[str] = None) -> None:
        self.raise_if_lost()
        self._lh._scheduler.unregister(self)
        try:
            await self._lh._api.request(
                operation, path={"spool": self.message["spool"]}, body=body, headers={"Spooler-Lease": self._token},
                idempotency_key=idempotency_key,
            )
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
            raise
        self.lose("released")

    async def renew(self) -> None:
        """Renews the message's lease now (the batch heartbeat does it anyway)."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            await self._lh._api.request("renewSpoolLease", path={"spool": self.message["spool"]}, headers={"Spooler-Lease": self._token})
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self._lh._scheduler.unregister(self)
                self.lose(reason, str(error))
            raise
        self._lh._scheduler.register(self, self.duration_for(0), sent_at)

    async def discard(self) -> None:
        """Deletes the message by its handle without settling the lease (its lease ends)."""
        self._lh._scheduler.unregister(self)
        await self._lh._api.request("discardMessage", path={"spool": self.message["spool"], "handle": self.message["handle"]})
        self.lose("released")

    async def ack(self, *, idempotency_key: Optional[str] = None) -> None:
        """Deletes the message: it was handled."""
        await self._settle("ackMessage", idempotency_key=idempotency_key)

    async def nack(self, delay: int = 0, *, idempotency_key: Optional[str] = None) -> None:
        """Puts the message back, visible after ``delay`` seconds (at most 900)."""
        await self._settle("nackMessage", {"delaySeconds": nack_delay(delay)}, idempotency_key)


class AsyncSpoolQueue:
    """One queue of a spool (async)."""

    def __init__(self, lh: AsyncLeasehold, spool: str, name: str) -> None:
        self._lh = lh
        self.spool = spool
        self.name = name

    def _path(self) -> dict[str, str]:
        return {"spool": self.spool, "queue": self.name}

    async def put(self, *, lease_timeout: Optional[int] = 30) -> Queue:
        """Creates or updates the queue (``lease_timeout`` seconds per delivery; None: never expires)."""
        return cast(Queue, (await self._lh._api.request("putQueue", path=self._path(), body={"leaseTimeoutSeconds": lease_timeout})).data)

    async def send(self, body: Any, *, delay: Optional[int] = None, operation_id: Optional[str] = None, idempotency_key: Optional[str] = None) -> Message:
        """Sends a message (visible after ``delay`` seconds)."""
        payload: dict[str, Any] = {"body": body}
        if delay is not None:
            payload["delaySeconds"] = delay
        answer = await self._lh._api.request("sendMessage", path=self._path(), body=payload, idempotency_key=idempotency_key, operation_id=operation_id)
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
        stop: Optional[Flag] = None,
        max_messages: Optional[int] = None,
        max_deliveries: Optional[int] = None,
        dead_letter: Optional[DeadLetter] = None,
        backoff: Callable[[int], int] = default_backoff,
        poll_interval: float = 1.0,
        on_error: Optional[Callable[[BaseException, AsyncSpoolMessage], None]] = None,
    ) -> int:
        """As the blocking ``consume`` (``await handler(message)``): returning acks, raising nacks after
        ``backoff``, dead letters after ``max_deliveries``; rides through an outage; ``stop`` (an
        ``asyncio.Event``) or cancelling the task ends it."""
        return await async_consume_queue(
            self, handler, stop=stop or asyncio.Event(), max_messages=max_messages, max_deliveries=max_deliveries,
            dead_letter=dead_letter, backoff=backoff, poll_interval=poll_interval, on_error=on_error,
        )


class AsyncSpool:
    """A spool (async)."""

    def __init__(self, lh: AsyncLeasehold, name: str) -> None:
        self._lh = lh
        self.name = name

    async def create(self) -> WireSpool:
        """Creates the spool (409 ``spool_exists`` when it exists)."""
        return cast(WireSpool, (await self._lh._api.request("createSpool", body={"name": self.name})).data)

    def queue(self, name: str) -> AsyncSpoolQueue:
        """One queue of this spool."""
        return AsyncSpoolQueue(self._lh, self.name, name)
