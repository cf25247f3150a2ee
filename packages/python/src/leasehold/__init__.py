"""Leasehold: exclusive, expiring leases on keys, tasks and queue messages, kept alive by one batch
heartbeat per client. ``from leasehold import Leasehold``."""

from ._base_client import APIResponse
from ._client import AsyncLeasehold, Leasehold
from ._exceptions import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AttemptsExhaustedError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConflictError,
    ErrorDetail,
    GoneError,
    InternalServerError,
    InvalidArgumentError,
    LeaseholdError,
    LeaseLostError,
    LeaseLostReason,
    NotFoundError,
    PayloadTooLargeError,
    PaymentRequiredError,
    PermissionDeniedError,
    PreconditionFailedError,
    PreconditionRequiredError,
    RateLimitError,
    ServiceUnavailableError,
    StoppedError,
    UnexpectedResponseError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
    UnusableLeaseError,
)
from ._idempotency import FileIdempotencyStore, IdempotencyStore, MemoryIdempotencyStore
from ._retry import RetryPolicy
from ._transport import http_transport
from ._spaces import ClaimHandle, Run, Space, SpaceLease
from ._version import __version__
from ._async_spaces import AsyncClaimHandle, AsyncRun, AsyncSpace, AsyncSpaceLease
from ._signal import LeaseSignal
from .resources.async_spools import AsyncSpool, AsyncSpoolMessage, AsyncSpoolQueue
from .resources.async_task_work import AsyncTaskWorkContext
from .resources.async_tasks import AsyncTaskLease, AsyncTasks
from .resources.spools import DeadLetter, Spool, SpoolMessage, SpoolQueue
from .resources.task_work import TaskWorkContext
from .resources.tasks import TaskLease, Tasks

__all__ = [
    "APIConnectionError", "APIError", "APIResponse", "APITimeoutError", "AsyncClaimHandle", "AsyncLeasehold", "AsyncRun",
    "AsyncSpace", "AsyncSpaceLease", "AsyncSpool", "AsyncSpoolMessage", "AsyncSpoolQueue", "AsyncTaskLease", "AsyncTasks",
    "AsyncTaskWorkContext", "AttemptsExhaustedError", "AuthenticationError", "BadRequestError", "ClaimHandle",
    "ClientClosedError", "ConflictError", "DeadLetter", "ErrorDetail", "FileIdempotencyStore", "GoneError",
    "IdempotencyStore", "InternalServerError", "InvalidArgumentError", "Leasehold", "LeaseholdError", "LeaseLostError",
    "LeaseLostReason", "LeaseSignal", "MemoryIdempotencyStore", "NotFoundError", "PayloadTooLargeError", "PaymentRequiredError",
    "PermissionDeniedError", "PreconditionFailedError", "PreconditionRequiredError", "RateLimitError", "RetryPolicy", "Run",
    "ServiceUnavailableError", "Space", "SpaceLease", "Spool", "SpoolMessage", "SpoolQueue", "StoppedError", "TaskLease",
    "Tasks", "TaskWorkContext", "UnexpectedResponseError", "UnprocessableEntityError", "UnsupportedMediaTypeError",
    "UnusableLeaseError", "__version__", "http_transport",
]
