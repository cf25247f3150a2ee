"""The read side of the API for :class:`AsyncLeasehold` (``lh.observe``): the same methods as
``observe.Observe``; lists are async iterators that page lazily (``nextCursor``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Optional, cast

from .._generated.types import (
    Claim,
    ClaimList,
    LeaseEventList,
    QueueStats,
    SessionActivity,
    SpaceActivity,
    SpaceSummary,
)

if TYPE_CHECKING:
    from .._base_client import AsyncAPIClient


async def _pages(api: AsyncAPIClient, operation: str, path: Optional[dict[str, str]], query: dict[str, Any]) -> AsyncIterator[Any]:
    cursor: Optional[str] = None
    while True:
        page = (await api.request(operation, path=path, query={**query, "cursor": cursor})).data
        for item in page["data"]:
            yield item
        cursor = page.get("nextCursor")
        if cursor is None or page.get("hasMore") is False or not page["data"]:
            return


class AsyncObserve:
    """``lh.observe`` (async): who holds what, who waits, what was lost."""

    def __init__(self, api: AsyncAPIClient) -> None:
        self._api = api

    def spaces(self, *, limit: Optional[int] = None) -> AsyncIterator[SpaceSummary]:
        """Every space with its held / waiting / lost counts."""
        return cast(AsyncIterator[SpaceSummary], _pages(self._api, "listSpaces", None, {"limit": limit}))

    def space_claims(self, space_id: str, *, prefix: Optional[str] = None, limit: Optional[int] = None) -> AsyncIterator[Claim]:
        """The held claims of a space, in key order."""
        return cast(AsyncIterator[Claim], _pages(self._api, "listSpaceClaims", {"spaceId": space_id}, {"prefix": prefix, "limit": limit}))

    async def space_claims_page(self, space_id: str, *, prefix: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> ClaimList:
        """One page of a space's held claims."""
        query = {"prefix": prefix, "limit": limit, "cursor": cursor}
        return cast(ClaimList, (await self._api.request("listSpaceClaims", path={"spaceId": space_id}, query=query)).data)

    async def space_activity(self, space_id: str, *, prefix: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> SpaceActivity:
        """A page of a space's claims, waiters and recent losses."""
        query = {"prefix": prefix, "limit": limit, "cursor": cursor}
        return cast(SpaceActivity, (await self._api.request("getSpaceActivity", path={"spaceId": space_id}, query=query)).data)

    def queues(self, *, limit: Optional[int] = None) -> AsyncIterator[QueueStats]:
        """Statistics of every queue."""
        return cast(AsyncIterator[QueueStats], _pages(self._api, "listQueueStats", None, {"limit": limit}))

    async def events(self, *, cursor: Optional[str] = None, limit: Optional[int] = None) -> LeaseEventList:
        """One page of lease events after ``cursor`` (pass its ``nextCursor`` to follow on)."""
        return cast(LeaseEventList, (await self._api.request("listLeaseEvents", query={"cursor": cursor, "limit": limit})).data)

    def sessions(self, *, limit: Optional[int] = None) -> AsyncIterator[SessionActivity]:
        """Every holder session with its lease counts and last heartbeat."""
        return cast(AsyncIterator[SessionActivity], _pages(self._api, "listSessions", None, {"limit": limit}))
