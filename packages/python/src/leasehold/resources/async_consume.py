"""``await queue.consume()`` of :class:`AsyncLeasehold`: the blocking loop of ``consume`` with ``await``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Optional

from .._exceptions import LeaseholdError
from .._idempotency import generate_idempotency_key
from .._retry import is_retryable_error
from .._ride_through import Flag, Ride, async_ride_through, log
from .consume_rules import DeadLetter, Settle, dead_letter_key, over_delivered, settle_failed_text

if TYPE_CHECKING:
    from .async_spools import AsyncSpoolMessage, AsyncSpoolQueue

OnError = Callable[[BaseException, "AsyncSpoolMessage"], None]


async def _pause(stop: Flag, seconds: float) -> None:
    """Waits ``seconds``, or less once ``stop`` is set."""
    end = asyncio.get_running_loop().time() + seconds
    while not stop.is_set() and (left := end - asyncio.get_running_loop().time()) > 0:
        await asyncio.sleep(min(0.05, left))


async def async_consume_queue(
    queue: AsyncSpoolQueue, handler: Callable[[AsyncSpoolMessage], Awaitable[object]], *, stop: Flag,
    max_messages: Optional[int], max_deliveries: Optional[int], dead_letter: Optional[DeadLetter],
    backoff: Callable[[int], int], poll_interval: float, on_error: Optional[OnError],
) -> int:
    """The loop of :meth:`AsyncSpoolQueue.consume`."""
    lh = queue._lh
    delivery = _AsyncDelivery(queue, handler, max_deliveries, dead_letter, backoff, on_error)
    handled = 0
    while not stop.is_set() and not lh._closed and (max_messages is None or handled < max_messages):
        try:
            message = await queue.receive()
        except LeaseholdError as error:
            if not is_retryable_error(error):
                raise
            log.warning("Receiving from %s/%s failed (%s); polling again in %s s.", queue.spool, queue.name, error, poll_interval)
            await _pause(stop, poll_interval)
            continue
        if message is None:
            await _pause(stop, poll_interval)
            continue
        if stop.is_set():
            received = message
            await delivery.settle(received, "nack", lambda key: received.nack(0, idempotency_key=key))
            break
        handled += 1
        await delivery.handle(message)
    return handled


class _AsyncDelivery:
    """One message's delivery (async): run the handler, then ack, nack with backoff, or dead-letter."""

    def __init__(
        self, queue: AsyncSpoolQueue, handler: Callable[[AsyncSpoolMessage], Awaitable[object]], max_deliveries: Optional[int],
        dead_letter: Optional[DeadLetter], backoff: Callable[[int], int], on_error: Optional[OnError],
    ) -> None:
        self.queue = queue
        self.handler = handler
        self.max_deliveries = max_deliveries
        self.dead_letter = dead_letter
        self.backoff = backoff
        self.on_error = on_error

    async def handle(self, message: AsyncSpoolMessage) -> None:
        crashed = over_delivered(message.message["id"], message.delivery_count, self.max_deliveries)
        if crashed is not None:
            await self._give_up(message, LeaseholdError(crashed))
            return
        try:
            await self.handler(message)
        except Exception as error:
            if message.lost.is_set():
                return
            await self._failed(message, error)
            return
        if message.loss() is None and not message.lost.is_set():
            await self.settle(message, "ack", lambda key: message.ack(idempotency_key=key))

    async def _failed(self, message: AsyncSpoolMessage, error: BaseException) -> None:
        if self.on_error is not None:
            try:
                self.on_error(error, message)
            except Exception as listener_error:
                log.error("consume on_error raised (%s).", listener_error)
        if self.max_deliveries is not None and message.delivery_count >= self.max_deliveries:
            await self._give_up(message, error)
            return
        delay = self.backoff(message.delivery_count)
        await self.settle(message, "nack", lambda key: message.nack(delay, idempotency_key=key))

    async def _give_up(self, message: AsyncSpoolMessage, error: BaseException) -> None:
        letter = self.dead_letter
        if letter is not None:
            key = dead_letter_key(self.queue.spool, self.queue.name, message.message["id"])
            try:
                await type(self.queue)(self.queue._lh, letter.spool, letter.queue).send(message.body, idempotency_key=key)
            except LeaseholdError as send_error:
                log.error("Sending message %s to its dead-letter queue %s/%s failed (%s); it is nacked and tried again.",
                          message.message["id"], letter.spool, letter.queue, send_error)
                delay = self.backoff(message.delivery_count)
                await self.settle(message, "nack", lambda key: message.nack(delay, idempotency_key=key))
                return
        log.warning("consume %s/%s: message %s failed on delivery %d (%s); %s.", self.queue.spool, self.queue.name,
                    message.message["id"], message.delivery_count, error,
                    "dead-lettered" if letter is not None else "discarded (max_deliveries reached)")
        await self.settle(message, "ack", lambda key: message.ack(idempotency_key=key))

    async def settle(self, message: AsyncSpoolMessage, how: Settle, send: Callable[[str], Awaitable[None]]) -> None:
        """Acks or nacks, riding through an outage while the lease holds; a final failure is logged."""
        lh, key = self.queue._lh, generate_idempotency_key()
        ride = Ride(f"{how} of message {message.message['id']}", policy=lh._api.retry_policy, closed=lambda: lh._closed, lease=message)
        try:
            await async_ride_through(lambda: send(key), ride)
        except LeaseholdError as error:
            log.warning("Settling message %s (%s) failed (%s); %s.", message.message["id"], how, error, settle_failed_text(how))
