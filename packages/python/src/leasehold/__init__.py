"""Leasehold: exclusive, expiring leases on keys, tasks and queue messages, kept alive by one batch
heartbeat per client. ``from leasehold import Leasehold``."""

from ._base_client import APIResponse
from ._client import AsyncLeasehold, Leasehold
from ._exceptions import (
    APIConnectionError,
    APIError,
    APITimeoutError,
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
    UnexpectedResponseError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
)
from ._idempotency import FileIdempotencyStore, IdempotencyStore, MemoryIdempotencyStore
from ._retry import RetryPolicy
from ._spaces import ClaimHandle, Run, Space, SpaceLease
from ._version import __version__
from ._async_spaces import AsyncClaimHandle, AsyncSpaceLease
from .resources.async_work import AsyncSpoolMessage, AsyncSpoolQueue, AsyncTaskLease
from .resources.spools import DeadLetter, SpoolMessage, SpoolQueue
from .resources.tasks import TaskLease

__all__ = [
    "APIConnectionError", "APIError", "APIResponse", "APITimeoutError", "AsyncClaimHandle", "AsyncLeasehold",
    "AsyncSpaceLease", "AsyncSpoolMessage", "AsyncSpoolQueue", "AsyncTaskLease", "AuthenticationError",
    "BadRequestError", "ClaimHandle", "ClientClosedError", "ConflictError", "DeadLetter", "ErrorDetail",
    "FileIdempotencyStore", "GoneError", "IdempotencyStore", "InternalServerError", "InvalidArgumentError",
    "Leasehold", "LeaseholdError", "LeaseLostError", "LeaseLostReason", "MemoryIdempotencyStore", "NotFoundError",
    "PayloadTooLargeError", "PaymentRequiredError", "PermissionDeniedError", "PreconditionFailedError",
    "PreconditionRequiredError", "RateLimitError", "RetryPolicy", "Run", "ServiceUnavailableError", "Space",
    "SpaceLease", "SpoolMessage", "SpoolQueue", "TaskLease", "UnexpectedResponseError", "UnprocessableEntityError",
    "UnsupportedMediaTypeError", "__version__",
]
