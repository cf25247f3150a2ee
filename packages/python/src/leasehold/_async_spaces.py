"""Space claims for :class:`AsyncLeasehold`: the same handles as ``_spaces`` with ``await`` and
``async with``; renewed by the client's one asyncio renewal task."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Optional, TypeVar, cast

from ._exceptions import ConflictError, LeaseholdError, LeaseLostError, NotFoundError
from ._generated.types import Claim, ReleasedClaim
from ._lease_errors import lease_lost_reason_of
from ._spaces import SpaceLeaseBase

if TYPE_CHECKING:
    from ._client import AsyncLeasehold

T = TypeVar("T")


class AsyncSpaceLease(SpaceLeaseBase):
    """A space lease of the async client; ``async with lease:`` releases it on exit."""

    def __init__(self, lh: AsyncLeasehold, claim: Claim, token: str) -> None:
        super().__init__(claim, token, lh._clock)
        self._lh = lh

    async def wait_lost(self) -> None:
        """Returns once the lease is lost (polls the thread-safe ``lost`` event without blocking the loop)."""
        while not self.lost.is_set():
            await asyncio.sleep(0.05)

    async def release(self) -> Optional[ReleasedClaim]:
        """Gives the key back; None when already gone."""
        if self.lost.is_set():
            return None
        self._lh._scheduler.unregister(self)
        try:
            answer = await self._lh._api.request("releaseSpaceClaim", path=self._path(), body={"token": self._token})
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
                return None
            raise
        finally:
            self.lose("released")
        return cast(ReleasedClaim, answer.data)

    async def __aenter__(self) -> AsyncSpaceLease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()


class AsyncClaimHandle:
    """One key of a space claimed for one run (async)."""

    def __init__(self, run: AsyncRun, key: str) -> None:
        if not isinstance(key, str) or key in ("", ".", ".."):
            raise LeaseholdError(f"A claim key must be a non-empty string other than . and .., got {key!r}.")
        self._run = run
        self.key = key

    async def _send(self, wait: bool, operation_id: Optional[str]) -> AsyncSpaceLease:
        run, lh = self._run, self._run._lh
        body: dict[str, Any] = {"key": self.key, "scopeId": run.scope_id, "holder": run.holder, "holderSession": lh.session, "wait": wait}
        if run.lease_seconds is not None:
            body["leaseSeconds"] = run.lease_seconds
        sent_at = lh._clock()
        answer = await lh._api.request("acquireSpaceClaim", path={"spaceId": run.space_id}, body=body, operation_id=operation_id)
        claim = cast(Claim, answer.data)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The acquire of {self.key} answered no lease token.")
        lease = AsyncSpaceLease(lh, claim, token)
        lh._scheduler.register(lease, float(claim["leaseSeconds"]), sent_at)
        return lease

    async def acquire(self, *, timeout: Optional[float] = None, operation_id: Optional[str] = None) -> AsyncSpaceLease:
        """Takes the key, waiting its turn; ``timeout`` gives up (the place is released, TimeoutError)."""
        lease = await self._send(True, operation_id)
        return await self._await_grant(lease, timeout)

    async def try_acquire(self, *, operation_id: Optional[str] = None) -> Optional[AsyncSpaceLease]:
        """Takes the key if it is free; None when someone else holds it."""
        try:
            lease = await self._send(False, operation_id)
        except ConflictError as error:
            if error.code == "claim_held":
                return None
            raise
        return await self._await_grant(lease, None)

    async def run(self, fn: Callable[[AsyncSpaceLease], Awaitable[T]], *, timeout: Optional[float] = None) -> T:
        """Acquires, awaits ``fn(lease)`` while renewed, releases afterwards."""
        async with await self.acquire(timeout=timeout) as lease:
            result = await fn(lease)
            lease.raise_if_lost()
            return result

    async def _await_grant(self, lease: AsyncSpaceLease, timeout: Optional[float]) -> AsyncSpaceLease:
        lh = self._run._lh
        if lease.status == "queued":
            async def granted() -> None:
                while not lease.granted.is_set() and not lease.lost.is_set():
                    await asyncio.sleep(0.05)
            try:
                await asyncio.wait_for(granted(), timeout)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                await lease.release()
                raise
        lease.raise_if_lost()
        if lease.fence is None:
            try:
                row = cast(Claim, (await lh._api.request("getSpaceClaim", path=lease._path())).data)
            except NotFoundError:
                lease.lose("lost", f"Key {self.key} is free again: the grant was lost.")
                raise LeaseLostError("lost", lease.claim_id) from None
            if row["claimId"] != lease.claim_id or row["fence"] is None:
                lease.lose("lost", f"Key {self.key} passed to another claim before its fence was read.")
                raise LeaseLostError("lost", lease.claim_id)
            lease.grant(row["fence"])
        return lease


class AsyncRun:
    """A run (scope) in a space (async)."""

    def __init__(self, lh: AsyncLeasehold, space_id: str, scope_id: str, holder: str, lease_seconds: Optional[float]) -> None:
        self._lh = lh
        self.space_id = space_id
        self.scope_id = scope_id
        self.holder = holder
        self.lease_seconds = lease_seconds

    def claim(self, key: str) -> AsyncClaimHandle:
        """The handle of one key under this run."""
        return AsyncClaimHandle(self, key)


class AsyncSpace:
    """A space of keys (async)."""

    def __init__(self, lh: AsyncLeasehold, space_id: str) -> None:
        self._lh = lh
        self.space_id = space_id

    def run(self, scope_id: str, *, holder: str, lease_seconds: Optional[float] = None) -> AsyncRun:
        """The run ``scope_id`` of this space, claiming as ``holder``."""
        return AsyncRun(self._lh, self.space_id, scope_id, holder, lease_seconds)
