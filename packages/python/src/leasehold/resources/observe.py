"""The read side of the API (blocking client): spaces, a space's claims and activity, queue
statistics, who holds a queue's leased messages, lease events and sessions. Lists page lazily (``nextCursor``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Optional, cast

from .._generated.types import (
    Claim,
    ClaimList,
    LeaseEvent,
    LeaseEventList,
    QueueActivity,
    QueueStats,
    QueueStatsList,
    SessionActivity,
    SessionList,
    SpaceActivity,
    SpaceList,
    SpaceSummary,
)

if TYPE_CHECKING:
    from .._base_client import SyncAPIClient


def _pages(api: SyncAPIClient, operation: str, path: Optional[dict[str, str]], query: dict[str, Any]) -> Iterator[Any]:
    cursor: Optional[str] = None
    while True:
        page = api.request(operation, path=path, query={**query, "cursor": cursor}).data
        yield from page["data"]
        cursor = page.get("nextCursor")
        if cursor is None or page.get("hasMore") is False or not page["data"]:
            return


class Observe:
    """``lh.observe``: who holds what, who waits, what was lost."""

    def __init__(self, api: SyncAPIClient) -> None:
        self._api = api

    def spaces(self, *, limit: Optional[int] = None) -> Iterator[SpaceSummary]:
        """Every space with its held / waiting / lost counts."""
        return cast(Iterator[SpaceSummary], _pages(self._api, "listSpaces", None, {"limit": limit}))

    def space_claims(self, space_id: str, *, prefix: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Claim]:
        """The held claims of a space, in key order."""
        return cast(Iterator[Claim], _pages(self._api, "listSpaceClaims", {"spaceId": space_id}, {"prefix": prefix, "limit": limit}))

    def space_claims_page(self, space_id: str, *, prefix: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> ClaimList:
        """One page of a space's held claims."""
        query = {"prefix": prefix, "limit": limit, "cursor": cursor}
        return cast(ClaimList, self._api.request("listSpaceClaims", path={"spaceId": space_id}, query=query).data)

    def space_activity(self, space_id: str, *, prefix: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> SpaceActivity:
        """A page of a space's claims, waiters and recent losses."""
        query = {"prefix": prefix, "limit": limit, "cursor": cursor}
        return cast(SpaceActivity, self._api.request("getSpaceActivity", path={"spaceId": space_id}, query=query).data)

    def queues(self, *, limit: Optional[int] = None) -> Iterator[QueueStats]:
        """Statistics of every queue."""
        return cast(Iterator[QueueStats], _pages(self._api, "listQueueStats", None, {"limit": limit}))

    def queue_activity(self, spool: str, queue: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> QueueActivity:
        """A page of a queue's leased messages, oldest sent first, with the session holding each."""
        query = {"limit": limit, "cursor": cursor}
        return cast(QueueActivity, self._api.request("getQueueActivity", path={"spool": spool, "queue": queue}, query=query).data)

    def events(self, *, cursor: Optional[str] = None, limit: Optional[int] = None) -> LeaseEventList:
        """One page of lease events after ``cursor`` (pass its ``nextCursor`` to follow on)."""
        return cast(LeaseEventList, self._api.request("listLeaseEvents", query={"cursor": cursor, "limit": limit}).data)

    def sessions(self, *, limit: Optional[int] = None) -> Iterator[SessionActivity]:
        """Every holder session with its lease counts and last heartbeat."""
        return cast(Iterator[SessionActivity], _pages(self._api, "listSessions", None, {"limit": limit}))


__all__ = ["Observe", "LeaseEvent", "QueueStatsList", "SessionList", "SpaceList"]
