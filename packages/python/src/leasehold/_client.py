"""The clients: :class:`Leasehold` (blocking, one renewal thread) and :class:`AsyncLeasehold`
(asyncio, one renewal task), both over the one request function of ``_base_client``."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Optional, cast

import httpx

from ._base_client import APIResponse, AsyncAPIClient, SyncAPIClient
from ._exceptions import LeaseholdError
from ._generated.types import HeartbeatResponse, HeartbeatResult
from ._idempotency import IdempotencyStore
from ._lease_state import LeaseState
from ._retry import RetryPolicy
from ._scheduler import AsyncRenewalScheduler, RenewalScheduler, SchedulerCore
from ._async_spaces import AsyncSpace
from ._spaces import Space
from .resources.async_observe import AsyncObserve
from .resources.async_spools import AsyncSpool
from .resources.async_tasks import AsyncTasks
from .resources.control import AsyncControl, Control
from .resources.observe import Observe
from .resources.spools import Spool
from .resources.tasks import Tasks

DEFAULT_HEARTBEAT_TTL = 30.0


def _results(response: APIResponse) -> list[dict[str, Any]]:
    data = response.data
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise LeaseholdError("The heartbeat answer carries no list of acks.")
    return cast(list[dict[str, Any]], data["results"])


class Leasehold:
    """The blocking client. One per process: its one renewal thread keeps every lease it took alive
    with one batch heartbeat per cadence. ``with Leasehold(...) as lh:`` closes it (releasing what it
    still holds)."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        session: Optional[str] = None,
        heartbeat_ttl: float = DEFAULT_HEARTBEAT_TTL,
        max_retries: int = 2,
        timeout: float = 30.0,
        retry_policy: Optional[RetryPolicy] = None,
        idempotency_store: Optional[IdempotencyStore] = None,
        http_client: Optional[httpx.Client] = None,
        default_headers: Optional[Mapping[str, str]] = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._api = SyncAPIClient(
            base_url=base_url, api_key=api_key, max_retries=max_retries, timeout=timeout, retry_policy=retry_policy,
            idempotency_store=idempotency_store, http_client=http_client, default_headers=default_headers, sleep=sleep,
        )
        self.session = session or f"py-{uuid.uuid4()}"
        """This process's holder session: heartbeats name only its leases."""
        self._clock = clock
        self._closed = False
        core = SchedulerCore(ttl=heartbeat_ttl, holder_session=self.session, clock=clock)
        self._scheduler = RenewalScheduler(core, self._send_heartbeat)
        self.tasks = Tasks(self)
        """Tasks: create, get, list, claim, work."""
        self.control = Control(self._api)
        """The reference server's test controls (``--control``)."""
        self.observe = Observe(self._api)
        """The read side: spaces, claims, activity, queue stats, events, sessions."""

    @property
    def api(self) -> SyncAPIClient:
        """The raw request function: ``lh.api.request("operationId", path=..., body=...)``."""
        return self._api

    @property
    def renewal(self) -> RenewalScheduler:
        """The client's one renewal scheduler (``renewal.core.stats`` counts heartbeats)."""
        return self._scheduler

    def _send_heartbeat(self, body: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        return _results(self._api.request("heartbeatClaims", body=body, max_retries=0, timeout=timeout))

    def heartbeat(self, body: Mapping[str, Any]) -> list[HeartbeatResult]:
        """A raw batch heartbeat (the scheduler sends its own; this is for tools)."""
        return cast(HeartbeatResponse, self._api.request("heartbeatClaims", body=dict(body)).data)["results"]

    def space(self, space_id: str) -> Space:
        """A space of keys: ``lh.space(id).run(scope_id, holder=...).claim(key)``."""
        return Space(self, space_id)

    def spool(self, name: str) -> Spool:
        """A spool of queues: ``lh.spool(name).queue(q).send(...)`` / ``.consume(...)``."""
        return Spool(self, name)

    def _track(self, lease: LeaseState, duration: Optional[float], sent_at: float) -> None:
        self._scheduler.register(lease, duration, sent_at)

    def close(self) -> None:
        """Stops renewing, releases every lease it still holds (failures ignored), closes connections."""
        if self._closed:
            return
        self._closed = True
        for lease in self._scheduler.close():
            release = getattr(lease, "release", None)
            if callable(release):
                try:
                    release()
                except LeaseholdError:
                    pass
        self._api.close()

    def __enter__(self) -> Leasehold:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncLeasehold:
    """The asyncio client: ``async with AsyncLeasehold(...) as lh:``; one renewal task."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        session: Optional[str] = None,
        heartbeat_ttl: float = DEFAULT_HEARTBEAT_TTL,
        max_retries: int = 2,
        timeout: float = 30.0,
        retry_policy: Optional[RetryPolicy] = None,
        idempotency_store: Optional[IdempotencyStore] = None,
        http_client: Optional[httpx.AsyncClient] = None,
        default_headers: Optional[Mapping[str, str]] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._api = AsyncAPIClient(
            base_url=base_url, api_key=api_key, max_retries=max_retries, timeout=timeout, retry_policy=retry_policy,
            idempotency_store=idempotency_store, http_client=http_client, default_headers=default_headers,
        )
        self.session = session or f"py-{uuid.uuid4()}"
        self._clock = clock
        self._closed = False
        core = SchedulerCore(ttl=heartbeat_ttl, holder_session=self.session, clock=clock)
        self._scheduler = AsyncRenewalScheduler(core, self._send_heartbeat)
        self.control = AsyncControl(self._api)
        """The reference server's test controls (``--control``)."""
        self.tasks = AsyncTasks(self)
        """Tasks: create, get, list, claim, work (awaitable)."""
        self.observe = AsyncObserve(self._api)
        """The read side: spaces, claims, activity, queue stats, events, sessions."""

    @property
    def api(self) -> AsyncAPIClient:
        """The raw request function: ``await lh.api.request("operationId", ...)``."""
        return self._api

    @property
    def renewal(self) -> AsyncRenewalScheduler:
        """The client's one renewal scheduler."""
        return self._scheduler

    async def _send_heartbeat(self, body: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        return _results(await self._api.request("heartbeatClaims", body=body, max_retries=0, timeout=timeout))

    async def heartbeat(self, body: Mapping[str, Any]) -> list[HeartbeatResult]:
        """A raw batch heartbeat (the scheduler sends its own; this is for tools)."""
        return cast(HeartbeatResponse, (await self._api.request("heartbeatClaims", body=dict(body))).data)["results"]

    def spool(self, name: str) -> AsyncSpool:
        """A spool of queues (awaitable handles)."""
        return AsyncSpool(self, name)

    def space(self, space_id: str) -> AsyncSpace:
        """A space of keys (async handles): ``await lh.space(id).run(scope, holder=...).claim(key).acquire()``."""
        return AsyncSpace(self, space_id)

    async def close(self) -> None:
        """Stops renewing, releases every lease it still holds, closes connections."""
        if self._closed:
            return
        self._closed = True
        for lease in await self._scheduler.close():
            release = getattr(lease, "release", None)
            if callable(release):
                try:
                    await release()
                except LeaseholdError:
                    pass
        await self._api.close()

    async def __aenter__(self) -> AsyncLeasehold:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
