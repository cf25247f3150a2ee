"""Spools and queues: ``lh.spool(name).queue(q)`` with ``put``, ``send``, ``receive`` and
``consume`` (backoff between deliveries, max deliveries, dead letters). A received message is a
lease renewed by the client's batch heartbeat until it is acked or nacked."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, cast

from .._exceptions import LeaseholdError
from .._generated.types import Message, Queue, Spool as WireSpool
from .._lease_errors import lease_lost_reason_of
from .._lease_state import LeaseState
from .consume import consume_queue
from .consume_rules import MAX_NACK_DELAY, DeadLetter, dead_letter_key, default_backoff, nack_delay

if TYPE_CHECKING:
    from .._client import Leasehold

__all__ = ["MAX_NACK_DELAY", "DeadLetter", "Spool", "SpoolMessage", "SpoolQueue", "dead_letter_key", "default_backoff"]


class SpoolMessage(LeaseState):
    """A received message and its lease: ``body``, ``delivery_count``, ``ack()``, ``nack()``."""

    message: Message
    body: Any
    delivery_count: int

    def __init__(self, lh: Leasehold, message: Message, token: str, timeout: Optional[float]) -> None:
        super().__init__(
            claim_id=message.get("claimId") or message["handle"], kind="spool", status="held",
            fence=message.get("fence"), clock=lh._clock, spool_timeout=timeout,
        )
        self._lh = lh
        self.message = message
        self.body = message["body"]
        self.delivery_count = message["deliveryCount"]
        self._token = token

    def _settle(self, operation: str, body: Any = None, idempotency_key: Optional[str] = None) -> None:
        self.raise_if_lost()
        self._lh._scheduler.unregister(self)
        try:
            self._lh._api.request(
                operation, path={"spool": self.message["spool"]}, body=body, headers={"Spooler-Lease": self._token},
                idempotency_key=idempotency_key,
            )
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
            raise
        self.lose("released")

    def renew(self) -> None:
        """Renews the message's lease now (the batch heartbeat does it anyway)."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            self._lh._api.request("renewSpoolLease", path={"spool": self.message["spool"]}, headers={"Spooler-Lease": self._token})
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self._lh._scheduler.unregister(self)
                self.lose(reason, str(error))
            raise
        self._lh._track(self, self.duration_for(0), sent_at)

    def discard(self) -> None:
        """Deletes the message by its handle without settling the lease (its lease ends: ``lost``)."""
        self._lh._scheduler.unregister(self)
        self._lh._api.request("discardMessage", path={"spool": self.message["spool"], "handle": self.message["handle"]})
        self.lose("released")

    def ack(self, *, idempotency_key: Optional[str] = None) -> None:
        """Deletes the message: it was handled."""
        self._settle("ackMessage", idempotency_key=idempotency_key)

    def nack(self, delay: int = 0, *, idempotency_key: Optional[str] = None) -> None:
        """Puts the message back, visible again after ``delay`` seconds (at most 900)."""
        self._settle("nackMessage", {"delaySeconds": nack_delay(delay)}, idempotency_key)


class SpoolQueue:
    """One queue of a spool."""

    def __init__(self, lh: Leasehold, spool: str, name: str) -> None:
        self._lh = lh
        self.spool = spool
        self.name = name

    def _path(self) -> dict[str, str]:
        return {"spool": self.spool, "queue": self.name}

    def put(self, *, lease_timeout: Optional[int] = 30) -> Queue:
        """Creates or updates the queue (``lease_timeout`` seconds per delivery; None: never expires)."""
        return cast(Queue, self._lh._api.request("putQueue", path=self._path(), body={"leaseTimeoutSeconds": lease_timeout}).data)

    def send(self, body: Any, *, delay: Optional[int] = None, operation_id: Optional[str] = None, idempotency_key: Optional[str] = None) -> Message:
        """Sends a message (visible after ``delay`` seconds)."""
        payload: dict[str, Any] = {"body": body}
        if delay is not None:
            payload["delaySeconds"] = delay
        return cast(Message, self._lh._api.request(
            "sendMessage", path=self._path(), body=payload, operation_id=operation_id, idempotency_key=idempotency_key,
        ).data)

    def receive(self) -> Optional[SpoolMessage]:
        """Leases the oldest visible message; None when the queue is empty."""
        sent_at = self._lh._clock()
        answer = self._lh._api.request("receiveMessage", path=self._path(), headers={"Leasehold-Session": self._lh.session})
        if answer.status == 204 or answer.data is None:
            return None
        token = answer.headers.get("spooler-lease")
        if not token:
            raise LeaseholdError("The receive answered no Spooler-Lease.")
        raw_timeout = answer.headers.get("spooler-lease-timeout")
        timeout = float(raw_timeout) if raw_timeout else None
        message = SpoolMessage(self._lh, cast(Message, answer.data), token, timeout)
        self._lh._track(message, timeout, sent_at)
        return message

    def consume(
        self,
        handler: Callable[[SpoolMessage], object],
        *,
        stop: Optional[threading.Event] = None,
        max_messages: Optional[int] = None,
        max_deliveries: Optional[int] = None,
        dead_letter: Optional[DeadLetter] = None,
        backoff: Callable[[int], int] = default_backoff,
        poll_interval: float = 1.0,
        on_error: Optional[Callable[[BaseException, SpoolMessage], None]] = None,
    ) -> int:
        """Receives and handles messages until ``stop`` is set (or ``max_messages`` were handled):
        returning acks, raising nacks (redelivered after ``backoff(delivery_count)`` s). A message
        that failed ``max_deliveries`` times (or arrives delivered more often: its handler crashed
        the process) goes to ``dead_letter`` (once: its send's key derives from the message id) and
        is acked. Rides through an outage: a failed receive polls again after ``poll_interval``, an
        ack or nack is sent again (same key) until it gets through or the message's lease is lost
        (then logged: the message comes back). Only ``stop``, the client closing or a receive error
        retrying cannot fix (raised) ends it. Returns how many messages it handled."""
        return consume_queue(
            self, handler, stop=stop or threading.Event(), max_messages=max_messages, max_deliveries=max_deliveries,
            dead_letter=dead_letter, backoff=backoff, poll_interval=poll_interval, on_error=on_error,
        )


class Spool:
    """A spool: a namespace of queues."""

    def __init__(self, lh: Leasehold, name: str) -> None:
        self._lh = lh
        self.name = name

    def create(self) -> WireSpool:
        """Creates the spool (409 ``spool_exists`` when it exists)."""
        return cast(WireSpool, self._lh._api.request("createSpool", body={"name": self.name}).data)

    def queue(self, name: str) -> SpoolQueue:
        """One queue of this spool."""
        return SpoolQueue(self._lh, self.name, name)
