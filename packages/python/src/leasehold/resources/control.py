"""The reference server's test controls (``/_control``, served with ``--control``): the manual
clock, injected faults, taking a lease away."""

from __future__ import annotations

from typing import Any, cast

from .._base_client import AsyncAPIClient, SyncAPIClient
from .._generated.types import (
    ControlClock,
    ControlDiscardRequest,
    ControlResult,
    ControlScopeCancelRequest,
    Fault,
    FaultRule,
    UpdateAccountRequest,
    UpdateCredentialRequest,
)


class Control:
    """Blocking test controls."""

    def __init__(self, api: SyncAPIClient) -> None:
        self._api = api

    def clock(self) -> ControlClock:
        """The server's clock."""
        return cast(ControlClock, self._api.request("getControlClock").data)

    def advance(self, seconds: float) -> ControlClock:
        """Moves the manual clock forward by ``seconds``."""
        body: dict[str, Any] = {"ms": round(seconds * 1000)}
        return cast(ControlClock, self._api.request("advanceControlClock", body=body).data)

    def inject_fault(self, rule: FaultRule) -> Fault:
        """Makes matching requests fail (status, latency, dropped answers), ``times`` times."""
        return cast(Fault, self._api.request("injectControlFault", body=rule).data)

    def clear_faults(self) -> ControlResult:
        """Removes every injected fault."""
        return cast(ControlResult, self._api.request("clearControlFaults").data)

    def lose_lease(self, claim_id: str) -> ControlResult:
        """Takes a lease away (its holder's next heartbeat reports it lost)."""
        return cast(ControlResult, self._api.request("loseControlLease", path={"claimId": claim_id}).data)

    def cancel_scope(self, request: ControlScopeCancelRequest) -> ControlResult:
        """Cancels a run as an operator would."""
        return cast(ControlResult, self._api.request("cancelControlScope", body=request).data)

    def discard_message(self, request: ControlDiscardRequest) -> ControlResult:
        """Discards a message by handle."""
        return cast(ControlResult, self._api.request("discardControlMessage", body=request).data)

    def primary_change(self) -> ControlResult:
        """Simulates a failover (spool leases become stale)."""
        return cast(ControlResult, self._api.request("simulatePrimaryChange").data)

    def update_account(self, account_id: str, request: UpdateAccountRequest) -> ControlResult:
        """Suspends or resumes an account."""
        return cast(ControlResult, self._api.request("updateControlAccount", path={"accountId": account_id}, body=request).data)

    def update_credential(self, request: UpdateCredentialRequest) -> ControlResult:
        """Blocks, expires or rate-limits an API key."""
        return cast(ControlResult, self._api.request("updateControlCredential", body=request).data)


class AsyncControl:
    """Asyncio test controls (the same methods as :class:`Control`, awaitable)."""

    def __init__(self, api: AsyncAPIClient) -> None:
        self._api = api

    async def clock(self) -> ControlClock:
        """The server's clock."""
        return cast(ControlClock, (await self._api.request("getControlClock")).data)

    async def advance(self, seconds: float) -> ControlClock:
        """Moves the manual clock forward by ``seconds``."""
        body: dict[str, Any] = {"ms": round(seconds * 1000)}
        return cast(ControlClock, (await self._api.request("advanceControlClock", body=body)).data)

    async def inject_fault(self, rule: FaultRule) -> Fault:
        """Makes matching requests fail (status, latency, dropped answers), ``times`` times."""
        return cast(Fault, (await self._api.request("injectControlFault", body=rule)).data)

    async def clear_faults(self) -> ControlResult:
        """Removes every injected fault."""
        return cast(ControlResult, (await self._api.request("clearControlFaults")).data)

    async def lose_lease(self, claim_id: str) -> ControlResult:
        """Takes a lease away (its holder's next heartbeat reports it lost)."""
        return cast(ControlResult, (await self._api.request("loseControlLease", path={"claimId": claim_id})).data)

    async def cancel_scope(self, request: ControlScopeCancelRequest) -> ControlResult:
        """Cancels a run as an operator would."""
        return cast(ControlResult, (await self._api.request("cancelControlScope", body=request)).data)

    async def discard_message(self, request: ControlDiscardRequest) -> ControlResult:
        """Discards a message by handle."""
        return cast(ControlResult, (await self._api.request("discardControlMessage", body=request)).data)

    async def primary_change(self) -> ControlResult:
        """Simulates a failover (spool leases become stale)."""
        return cast(ControlResult, (await self._api.request("simulatePrimaryChange")).data)

    async def update_account(self, account_id: str, request: UpdateAccountRequest) -> ControlResult:
        """Suspends or resumes an account."""
        path = {"accountId": account_id}
        return cast(ControlResult, (await self._api.request("updateControlAccount", path=path, body=request)).data)

    async def update_credential(self, request: UpdateCredentialRequest) -> ControlResult:
        """Blocks, expires or rate-limits an API key."""
        return cast(ControlResult, (await self._api.request("updateControlCredential", body=request)).data)
