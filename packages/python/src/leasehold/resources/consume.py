"""``queue.consume()`` of the blocking client: receive, handle, then ack, nack with backoff or
dead-letter — riding through an outage (the TypeScript SDK's ``consumeQueue``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Optional

from .._exceptions import LeaseholdError
from .._idempotency import generate_idempotency_key
from .._retry import is_retryable_error
from .._ride_through import Ride, log, ride_through
from .consume_rules import DeadLetter, Settle, dead_letter_key, over_delivered, settle_failed_text

if TYPE_CHECKING:
    from .spools import SpoolMessage, SpoolQueue

OnError = Callable[[BaseException, "SpoolMessage"], None]


def consume_queue(
    queue: SpoolQueue, handler: Callable[[SpoolMessage], object], *, stop: threading.Event, max_messages: Optional[int],
    max_deliveries: Optional[int], dead_letter: Optional[DeadLetter], backoff: Callable[[int], int], poll_interval: float,
    on_error: Optional[OnError],
) -> int:
    """The loop of :meth:`SpoolQueue.consume`."""
    lh = queue._lh
    delivery = _Delivery(queue, handler, max_deliveries, dead_letter, backoff, on_error)
    handled = 0
    while not stop.is_set() and not lh._closed and (max_messages is None or handled < max_messages):
        try:
            message = queue.receive()
        except LeaseholdError as error:
            if not is_retryable_error(error):
                raise  # a missing queue or a bad key never heals by polling
            log.warning("Receiving from %s/%s failed (%s); polling again in %s s.", queue.spool, queue.name, error, poll_interval)
            stop.wait(poll_interval)
            continue
        if message is None:
            stop.wait(poll_interval)
            continue
        if stop.is_set():
            received = message  # received while stopping: give it back
            delivery.settle(received, "nack", lambda key: received.nack(0, idempotency_key=key))
            break
        handled += 1
        delivery.handle(message)
    return handled


class _Delivery:
    """One message's delivery: run the handler, then ack, nack with backoff, or dead-letter."""

    def __init__(
        self, queue: SpoolQueue, handler: Callable[[SpoolMessage], object], max_deliveries: Optional[int],
        dead_letter: Optional[DeadLetter], backoff: Callable[[int], int], on_error: Optional[OnError],
    ) -> None:
        self.queue = queue
        self.handler = handler
        self.max_deliveries = max_deliveries
        self.dead_letter = dead_letter
        self.backoff = backoff
        self.on_error = on_error

    def handle(self, message: SpoolMessage) -> None:
        crashed = over_delivered(message.message["id"], message.delivery_count, self.max_deliveries)
        if crashed is not None:
            self._give_up(message, LeaseholdError(crashed))
            return
        try:
            self.handler(message)
        except Exception as error:  # the handler's failure nacks the message
            if message.lost.is_set():
                return  # the lease is gone (or the handler settled it): the server redelivers it
            self._failed(message, error)
            return
        if message.loss() is None and not message.lost.is_set():  # not lost, not settled by the handler
            self.settle(message, "ack", lambda key: message.ack(idempotency_key=key))

    def _failed(self, message: SpoolMessage, error: BaseException) -> None:
        if self.on_error is not None:
            try:
                self.on_error(error, message)
            except Exception as listener_error:
                log.error("consume on_error raised (%s).", listener_error)
        if self.max_deliveries is not None and message.delivery_count >= self.max_deliveries:
            self._give_up(message, error)
            return
        delay = self.backoff(message.delivery_count)
        self.settle(message, "nack", lambda key: message.nack(delay, idempotency_key=key))

    def _give_up(self, message: SpoolMessage, error: BaseException) -> None:
        letter = self.dead_letter
        if letter is not None:
            key = dead_letter_key(self.queue.spool, self.queue.name, message.message["id"])
            try:
                type(self.queue)(self.queue._lh, letter.spool, letter.queue).send(message.body, idempotency_key=key)
            except LeaseholdError as send_error:
                log.error("Sending message %s to its dead-letter queue %s/%s failed (%s); it is nacked and tried again.",
                          message.message["id"], letter.spool, letter.queue, send_error)
                delay = self.backoff(message.delivery_count)
                self.settle(message, "nack", lambda key: message.nack(delay, idempotency_key=key))
                return
        log.warning("consume %s/%s: message %s failed on delivery %d (%s); %s.", self.queue.spool, self.queue.name,
                    message.message["id"], message.delivery_count, error,
                    "dead-lettered" if letter is not None else "discarded (max_deliveries reached)")
        self.settle(message, "ack", lambda key: message.ack(idempotency_key=key))

    def settle(self, message: SpoolMessage, how: Settle, send: Callable[[str], None]) -> None:
        """Acks or nacks, riding through an outage (same key each try) while the message's lease
        holds; a settle that fails for good is logged: the message comes back."""
        lh, key = self.queue._lh, generate_idempotency_key()
        ride = Ride(f"{how} of message {message.message['id']}", policy=lh._api.retry_policy, closed=lambda: lh._closed, lease=message)
        try:
            ride_through(lambda: send(key), ride)
        except LeaseholdError as error:
            log.warning("Settling message %s (%s) failed (%s); %s.", message.message["id"], how, error, settle_failed_text(how))
