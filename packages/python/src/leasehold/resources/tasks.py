"""Tasks: ``lh.tasks.create/get/list/claim/work/complete`` (blocking client). A claim is a
15-minute lease renewed by the client's batch heartbeat while held."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Optional, TypeVar, cast

from .._exceptions import LeaseholdError, LeaseLostError
from .._generated.types import Task, TaskClaim, TaskClaimRelease, TaskList, TaskNote, TaskStatus, UpdateTaskRequest
from .._lease_errors import lease_lost_reason_of
from .._lease_state import TASK_CLAIM_DURATION, LeaseState

if TYPE_CHECKING:
    from .._client import Leasehold

T = TypeVar("T")


def claimable_query(claimable: Optional[bool]) -> Optional[str]:
    """The ``claimable`` query value (``"true"``/``"false"``), or None to leave it out."""
    return None if claimable is None else ("true" if claimable else "false")


class TaskLease(LeaseState):
    """A claim on a task: ``fence``, ``lost``, ``raise_if_lost()``; ``with lease:`` releases it unless completed."""

    def __init__(self, lh: Leasehold, claim: TaskClaim, token: str, etag: str) -> None:
        super().__init__(claim_id=claim["claimId"], kind="task", status="held", fence=claim["fence"], clock=lh._clock)
        self._lh = lh
        self.task_id = claim["taskId"]
        self.etag = etag
        """The task's ETag after the claim (the If-Match of the next write)."""
        self._token = token

    def _headers(self) -> dict[str, Optional[str]]:
        return {"If-Match": self.etag}

    def _lose_if(self, error: LeaseholdError) -> None:
        reason = lease_lost_reason_of(error)
        if reason is not None:
            self._lh._scheduler.unregister(self)
            self.lose(reason, str(error))
            raise LeaseLostError(reason, self.claim_id, str(error)) from error

    def renew(self) -> None:
        """Renews now (the batch heartbeat does it anyway); raises LeaseLostError when it is gone."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            answer = self._lh._api.request("renewTaskClaim", path={"taskId": self.task_id}, body={"token": self._token}, headers=self._headers())
        except LeaseholdError as error:
            self._lose_if(error)
            raise
        self.etag = answer.headers.get("etag", self.etag)
        self._lh._track(self, TASK_CLAIM_DURATION, sent_at)

    def complete(self, result: Any = None, *, note: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Completes the task under this claim (the claim ends with it)."""
        self.raise_if_lost()
        body: dict[str, Any] = {} if result is None else {"result": result}
        if note is not None:
            body["note"] = note
        try:
            answer = self._lh._api.request(
                "completeTask", path={"taskId": self.task_id}, body=body,
                headers={**self._headers(), "X-Task-Claim": self._token}, operation_id=operation_id,
            )
        except LeaseholdError as error:
            self._lose_if(error)
            raise
        self._lh._scheduler.unregister(self)
        self.lose("released")
        return cast(Task, answer.data)

    def release(self) -> Optional[TaskClaimRelease]:
        """Gives the task back unclaimed; None when the claim is already gone."""
        if self.lost.is_set():
            return None
        self._lh._scheduler.unregister(self)
        try:
            answer = self._lh._api.request("releaseTaskClaim", path={"taskId": self.task_id}, body={"token": self._token}, headers=self._headers())
        except LeaseholdError as error:
            reason = lease_lost_reason_of(error)
            if reason is not None:
                self.lose(reason, str(error))
                return None
            raise
        finally:
            self.lose("released")
        return cast(TaskClaimRelease, answer.data)

    def __enter__(self) -> TaskLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Tasks:
    """The task list."""

    def __init__(self, lh: Leasehold) -> None:
        self._lh = lh

    def create(self, title: str, *, description: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Creates a task (``Todo``)."""
        body: dict[str, Any] = {"title": title}
        if description is not None:
            body["description"] = description
        return cast(Task, self._lh._api.request("createTask", body=body, operation_id=operation_id).data)

    def get(self, task_id: int) -> tuple[Task, str]:
        """The task and its ETag (the ``If-Match`` of a write)."""
        answer = self._lh._api.request("getTask", path={"taskId": task_id})
        return cast(Task, answer.data), answer.headers.get("etag", "")

    def list(self, *, status: Optional[TaskStatus] = None, claimable: Optional[bool] = None, limit: Optional[int] = None) -> Iterator[Task]:
        """Every task (of ``status``; ``claimable=True``: only those a worker may take now, ``Todo``
        or stalled, unclaimed and past their backoff; ``False`` or None: no such filter), page
        after page, lazily."""
        cursor: Optional[str] = None
        while True:
            query = {"status": status, "claimable": claimable_query(claimable), "limit": limit, "cursor": cursor}
            page = cast(TaskList, self._lh._api.request("listTasks", query=query).data)
            yield from page["data"]
            cursor = page["nextCursor"]
            if cursor is None:
                return

    def update(self, task_id: int, changes: UpdateTaskRequest, *, etag: Optional[str] = None, claim: Optional[TaskLease] = None) -> Task:
        """Changes status, title or description (reads the ETag first when none is given; under a
        claim, its token goes as ``X-Task-Claim``)."""
        if etag is None:
            etag = claim.etag if claim is not None else self.get(task_id)[1]
        headers: dict[str, Optional[str]] = {"If-Match": etag, "X-Task-Claim": claim._token if claim is not None else None}
        return cast(Task, self._lh._api.request("updateTask", path={"taskId": task_id}, body=changes, headers=headers).data)

    def add_note(self, task_id: int, text: str, *, etag: Optional[str] = None) -> TaskNote:
        """Adds a note (reads the ETag first when none is given)."""
        if etag is None:
            etag = self.get(task_id)[1]
        return cast(TaskNote, self._lh._api.request("addTaskNote", path={"taskId": task_id}, body={"text": text}, headers={"If-Match": etag}).data)

    def claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> TaskLease:
        """Claims the task (a 15-minute lease renewed by the batch heartbeat); 409 ``task_claimed`` when someone else has it."""
        if etag is None:
            etag = self.get(task_id)[1]
        sent_at = self._lh._clock()
        answer = self._lh._api.request(
            "claimTask", path={"taskId": task_id}, body={}, operation_id=operation_id,
            headers={"If-Match": etag, "Leasehold-Session": self._lh.session},
        )
        claim = cast(TaskClaim, answer.data)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The claim of task {task_id} answered no token.")
        lease = TaskLease(self._lh, claim, token, answer.headers.get("etag", etag))
        self._lh._track(lease, TASK_CLAIM_DURATION, sent_at)
        return lease

    def revoke_claim(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Operator: ends the task's live claim now (``revoked``) so any worker may take it over
        (needs ``tasks:admin``; reads the ETag first when none is given)."""
        if etag is None:
            etag = self.get(task_id)[1]
        answer = self._lh._api.request("revokeTaskClaim", path={"taskId": task_id}, headers={"If-Match": etag}, operation_id=operation_id)
        return cast(Task, answer.data)

    def requeue(self, task_id: int, *, etag: Optional[str] = None, operation_id: Optional[str] = None) -> Task:
        """Operator: revokes any live claim and puts the task back to ``Todo`` with ``attempts`` 0
        (needs ``tasks:admin``; reads the ETag first when none is given)."""
        if etag is None:
            etag = self.get(task_id)[1]
        answer = self._lh._api.request("requeueTask", path={"taskId": task_id}, headers={"If-Match": etag}, operation_id=operation_id)
        return cast(Task, answer.data)

    def work(self, task_id: int, fn: Callable[[TaskLease], T], *, complete: bool = True) -> T:
        """Claims the task, runs ``fn(lease)`` while renewed, then completes it with ``fn``'s result
        (``complete=False``: releases it); releases it when ``fn`` raises."""
        lease = self.claim(task_id)
        try:
            result = fn(lease)
            lease.raise_if_lost()
        except BaseException:
            lease.release()
            raise
        if complete:
            lease.complete(result)
        else:
            lease.release()
        return result
