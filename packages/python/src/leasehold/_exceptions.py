"""The one error hierarchy of the SDK: every failure it raises is a :class:`LeaseholdError`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Optional

from ._redact import REDACTED, SECRET_HEADER_NAMES, redact

LeaseLostReason = Literal["expired", "lost", "stale", "cancelled", "released", "deadline"]
"""Why a lease stopped protecting its work (the TypeScript SDK's reasons)."""

MAX_RAW_BODY = 16 * 1024


class LeaseholdError(Exception):
    """Base of every error the SDK raises; its message never contains the API key or a lease token."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))

    @property
    def message(self) -> str:
        """The (redacted) message."""
        return str(self.args[0]) if self.args else ""


class InvalidArgumentError(LeaseholdError, ValueError):
    """An argument was refused before anything was sent."""


@dataclass(frozen=True)
class ErrorDetail:
    """One problem listed in an error envelope's ``errors``."""

    message: str
    code: Optional[str] = None
    param: Optional[str] = None


class APIError(LeaseholdError):
    """The server answered with an error status. Switch on ``code``, not on the message."""

    status: int
    type: str
    code: Optional[str]
    param: Optional[str]
    doc_url: Optional[str]
    request_id: Optional[str]
    errors: tuple[ErrorDetail, ...]
    headers: Mapping[str, str]
    retry_after: Optional[float]
    """The wait the server asked for (``Retry-After`` / ``retry-after-ms``), in seconds, uncapped."""
    raw_body: str

    def __init__(
        self,
        message: str,
        *,
        status: int,
        type: str,
        code: Optional[str] = None,
        param: Optional[str] = None,
        doc_url: Optional[str] = None,
        request_id: Optional[str] = None,
        errors: Sequence[ErrorDetail] = (),
        headers: Optional[Mapping[str, str]] = None,
        retry_after: Optional[float] = None,
        raw_body: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.doc_url = doc_url
        self.request_id = request_id
        self.errors = tuple(ErrorDetail(redact(e.message), e.code, e.param) for e in errors)
        self.headers = {
            name.lower(): REDACTED if name.lower() in SECRET_HEADER_NAMES else redact(value)
            for name, value in (headers or {}).items()
        }
        self.retry_after = retry_after
        cut = raw_body if len(raw_body) <= MAX_RAW_BODY else raw_body[:MAX_RAW_BODY] + "…"
        self.raw_body = redact(cut)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r})"


class BadRequestError(APIError):
    """400: malformed JSON, a missing or invalid field, header or parameter."""


class AuthenticationError(APIError):
    """401: the API key is missing, malformed, unknown or expired."""


class PaymentRequiredError(APIError):
    """402: the account is suspended."""


class PermissionDeniedError(APIError):
    """403: the key lacks a permission, or a plan limit refuses."""


class NotFoundError(APIError):
    """404: the resource does not exist in the credential's scope."""


class ConflictError(APIError):
    """409: claim, version or idempotency state refuses the request; only ``idempotency_in_flight`` is retried."""


class GoneError(APIError):
    """410: the lease no longer settles anything (``stale_token``): stop the guarded work."""


class PreconditionFailedError(APIError):
    """412: ``If-Match`` is not the current ETag: re-read and decide again."""


class PayloadTooLargeError(APIError):
    """413: the request body exceeds 1 MiB."""


class UnsupportedMediaTypeError(APIError):
    """415: the request body is not ``application/json``."""


class UnprocessableEntityError(APIError):
    """422: well-formed, but the resource cannot do it (``invalid_transition``)."""


class PreconditionRequiredError(APIError):
    """428: the write needs ``If-Match`` and none was sent."""


class RateLimitError(APIError):
    """429: the credential's rate limit is exceeded; ``retry_after`` says how long to wait."""


class InternalServerError(APIError):
    """5xx: the server failed (safe to retry with the same ``Idempotency-Key``)."""


class ServiceUnavailableError(InternalServerError):
    """503: a required service is momentarily unavailable."""


class UnexpectedResponseError(LeaseholdError):
    """A success status whose body is not what the operation answers."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


class APIConnectionError(LeaseholdError):
    """The request never got an answer: refused, reset, DNS failure."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent
        """True when retrying cannot help (a host name that does not resolve)."""


class APITimeoutError(APIConnectionError):
    """An attempt (``scope='attempt'``, retried) or the whole call (``scope='call'``) timed out."""

    def __init__(self, message: str, *, scope: Literal["attempt", "call"] = "attempt") -> None:
        super().__init__(message)
        self.scope = scope


class ClientClosedError(LeaseholdError):
    """The client was closed; nothing more is sent."""

    def __init__(self, message: str = "The Leasehold client is closed.") -> None:
        super().__init__(message)


class LeaseLostError(LeaseholdError):
    """The lease guarding some work is gone: stop the work, do not retry the write."""

    def __init__(self, reason: LeaseLostReason, claim_id: str, message: Optional[str] = None) -> None:
        super().__init__(message or f"Lease {claim_id} is no longer held ({reason}).")
        self.reason: LeaseLostReason = reason
        self.claim_id = claim_id


class StoppedError(LeaseholdError):
    """The caller's ``stop`` event was set while a loop waited (its turn for a key, or out an
    outage): it gave up (the TypeScript SDK's ``AbortError``). Nothing is left held."""

    def __init__(self, message: str = "Stopped: the caller's stop event was set.") -> None:
        super().__init__(message)


class AttemptsExhaustedError(LeaseholdError):
    """``tasks.work(max_attempts=N)`` found the task already tried ``attempts`` times (every claim
    is one; its earlier workers crashed, lost the claim or failed): it did not claim it again but
    moved it to ``Blocked`` with a note saying why. An operator requeues it (``lh.tasks.requeue``)."""

    def __init__(self, task_id: int, attempts: int, max_attempts: int) -> None:
        super().__init__(
            f"Task {task_id} was tried {attempts} times (max_attempts {max_attempts}): it is now Blocked, "
            "not claimed again. Requeue it to retry."
        )
        self.task_id = task_id
        self.attempts = attempts
        self.max_attempts = max_attempts


class UnusableLeaseError(LeaseholdError):
    """A lease was granted with too little time left to start work on it (a replayed claim close
    to its expiry): it was released and the work did not start. Read the task and try again."""

    def __init__(self, claim_id: str, remaining: float, min_remaining: float) -> None:
        super().__init__(
            f"Lease {claim_id} had {round(remaining)} s left, under the {round(min_remaining)} s needed "
            "to start work; it was released."
        )
        self.claim_id = claim_id
        self.remaining = remaining
        """The time it had left by the server's clock, in seconds."""
        self.min_remaining = min_remaining
        """The least time left that work accepts, in seconds."""


STATUS_CLASSES: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: PaymentRequiredError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    412: PreconditionFailedError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: UnprocessableEntityError,
    428: PreconditionRequiredError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_class_for(status: int) -> type[APIError]:
    """The :class:`APIError` subclass of a status (any other 5xx: InternalServerError; other 4xx: APIError)."""
    found = STATUS_CLASSES.get(status)
    if found is not None:
        return found
    return InternalServerError if status >= 500 else APIError
