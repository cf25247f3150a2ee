"""The one request function, sync (httpx.Client) and async (httpx.AsyncClient), sharing every rule:
how an operation of the generated table becomes a request, which failures are retried (the
rules of ``_retry``), how long to wait (``Retry-After`` honoured, else full jitter), and the
``Idempotency-Key`` every mutating call carries, the same on each retry (and, with an
``operation_id`` and a durable store, across restarts)."""

from __future__ import annotations

import asyncio
import json
import platform
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union
from urllib.parse import quote

import httpx

from ._decode import decode_api_error
from ._exceptions import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    ClientClosedError,
    InvalidArgumentError,
    LeaseholdError,
    UnexpectedResponseError,
)
from ._generated.operations import OPERATIONS, Operation
from ._idempotency import (
    IDEMPOTENCY_KEY_TTL,
    IdempotencyStore,
    generate_idempotency_key,
    is_valid_idempotency_key,
)
from ._retry import RetryPolicy, is_retryable_error
from ._transport import http_transport
from ._version import __version__

Query = Mapping[str, Union[str, int, float, bool, None]]
_PERMANENT_DNS = ("Name or service not known", "nodename nor servname", "No address associated", "getaddrinfo failed")


@dataclass(frozen=True)
class APIResponse:
    """A decoded success answer: status, lowercase headers, JSON body (None for 204)."""

    status: int
    headers: Mapping[str, str]
    data: Any

    @property
    def replayed(self) -> bool:
        """Whether the server replayed a stored answer (``Idempotent-Replayed: true``)."""
        return self.headers.get("idempotent-replayed") == "true"


@dataclass
class _Prepared:
    op: Operation
    url: str
    query: dict[str, str]
    headers: dict[str, str]
    content: Optional[bytes]
    operation_id: Optional[str]


class BaseClient:
    """What the sync and async clients share: configuration, request building, answer decoding."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        max_retries: int = 2,
        timeout: float = 30.0,
        retry_policy: Optional[RetryPolicy] = None,
        idempotency_store: Optional[IdempotencyStore] = None,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise InvalidArgumentError(f"base_url must be an http(s) URL, got {base_url!r}.")
        if not api_key:
            raise InvalidArgumentError("api_key is required.")
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self.retry_policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self.idempotency_store = idempotency_store
        # What every request carries, built once (a renew call is the hot path: nothing per call
        # that does not change per call).
        self._static_headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "User-Agent": f"leasehold-python/{__version__} python/{platform.python_version()}",
            **dict(default_headers or {}),
        }
        self._closed = False
        self._owns_timeout = False
        """Whether the pool is the client's own (made with ``timeout``), so its default is ours."""

    def _prepare(
        self,
        operation: str,
        path: Optional[Mapping[str, Union[str, int]]],
        query: Optional[Query],
        body: Any,
        headers: Optional[Mapping[str, Optional[str]]],
        idempotency_key: Optional[str],
        operation_id: Optional[str],
    ) -> _Prepared:
        if self._closed:
            raise ClientClosedError()
        op = OPERATIONS.get(operation)
        if op is None:
            raise InvalidArgumentError(f"Unknown operation {operation!r}.")
        url = op.path
        for name in op.path_params:
            value = (path or {}).get(name)
            if value is None or value == "":
                raise InvalidArgumentError(f"{operation}: path parameter {name} is required.")
            url = url.replace("{" + name + "}", quote(str(value), safe=""))
        sent_query = {k: _query_value(v) for k, v in query.items() if v is not None and k in op.query_params} if query else {}
        out_headers = dict(self._static_headers)
        for name, value in (headers or {}).items():
            if value is not None:
                out_headers[name] = value
        content: Optional[bytes] = None
        if body is not None:
            content = json.dumps(body, separators=(",", ":")).encode()
            out_headers["Content-Type"] = "application/json"
        elif op.body == "required":
            raise InvalidArgumentError(f"{operation}: a body is required.")
        if idempotency_key is not None and not is_valid_idempotency_key(idempotency_key):
            raise InvalidArgumentError("Idempotency-Key must be 1-255 printable ASCII characters.")
        if op.idempotency_key != "none":
            out_headers["Idempotency-Key"] = idempotency_key or ""  # filled in by _key()
        return _Prepared(op, self.base_url + url, sent_query, out_headers, content, operation_id)

    def _timeout_of(self, timeout: Optional[float]) -> Union[float, httpx._client.UseClientDefault]:
        """A call's own timeout, else the client's: the pool's default when it is the client's own
        pool (httpx then builds no ``Timeout`` per request), ``self.timeout`` on one you passed."""
        if timeout is not None:
            return timeout
        return httpx.USE_CLIENT_DEFAULT if self._owns_timeout else self.timeout

    def _needs_store(self, prepared: _Prepared) -> bool:
        return (
            prepared.operation_id is not None
            and self.idempotency_store is not None
            and "Idempotency-Key" in prepared.headers
        )

    def _key_now(self, prepared: _Prepared) -> None:
        if "Idempotency-Key" in prepared.headers and not prepared.headers["Idempotency-Key"]:
            prepared.headers["Idempotency-Key"] = generate_idempotency_key()

    def _decode(self, prepared: _Prepared, response: httpx.Response) -> APIResponse:
        headers = {k.lower(): v for k, v in response.headers.items()}
        if response.status_code >= 400:
            raise decode_api_error(response.status_code, headers, response.text)
        if response.status_code == 204 or not response.content:
            return APIResponse(response.status_code, headers, None)
        try:
            data = response.json()
        except ValueError:
            raise UnexpectedResponseError(
                f"HTTP {response.status_code} answered a body that is not JSON.", status=response.status_code
            ) from None
        return APIResponse(response.status_code, headers, data)

    def _forget_on_refusal(self, prepared: _Prepared, error: LeaseholdError) -> bool:
        """After a definitive 4xx the stored key is deleted, so a corrected retry gets a fresh one."""
        return (
            self._needs_store(prepared)
            and isinstance(error, APIError)
            and 400 <= error.status < 500
            and not is_retryable_error(error)
        )


def _query_value(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _transport_error(error: httpx.TransportError) -> LeaseholdError:
    if isinstance(error, httpx.TimeoutException):
        return APITimeoutError(f"The request timed out ({type(error).__name__}).", scope="attempt")
    text = str(error)
    permanent = any(marker in text for marker in _PERMANENT_DNS)
    return APIConnectionError(f"Could not reach the server: {text or type(error).__name__}.", permanent=permanent)


class SyncAPIClient(BaseClient):
    """The blocking request function over one kept-alive ``httpx.Client``."""

    def __init__(
        self,
        *,
        http_client: Optional[httpx.Client] = None,
        sleep: Callable[[float], None] = time.sleep,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self._owns_timeout = http_client is None
        self._http = http_client or httpx.Client(timeout=self.timeout, transport=http_transport())
        self._sleep = sleep

    @property
    def http_client(self) -> httpx.Client:
        """The kept-alive ``httpx.Client`` it sends with (yours, when you passed ``http_client=``)."""
        return self._http

    def request(
        self,
        operation: str,
        *,
        path: Optional[Mapping[str, Union[str, int]]] = None,
        query: Optional[Query] = None,
        body: Any = None,
        headers: Optional[Mapping[str, Optional[str]]] = None,
        idempotency_key: Optional[str] = None,
        operation_id: Optional[str] = None,
        max_retries: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> APIResponse:
        """Sends ``operation`` (an operationId of the spec), retrying what is safe to retry."""
        prepared = self._prepare(operation, path, query, body, headers, idempotency_key, operation_id)
        store = self.idempotency_store
        if store is not None and self._needs_store(prepared):
            assert operation_id is not None
            candidate = prepared.headers["Idempotency-Key"] or generate_idempotency_key()
            prepared.headers["Idempotency-Key"] = store.reserve(operation_id, candidate, IDEMPOTENCY_KEY_TTL)
        self._key_now(prepared)
        attempt = 0
        while True:
            attempt += 1
            try:
                try:
                    response = self._http.request(
                        prepared.op.method, prepared.url, params=prepared.query or None, headers=prepared.headers,
                        content=prepared.content, timeout=self._timeout_of(timeout),
                    )
                except httpx.TransportError as failure:
                    raise _transport_error(failure) from failure
                return self._decode(prepared, response)
            except LeaseholdError as error:
                wait = self.retry_policy.decide(error, attempt, max_retries=max_retries)
                if wait is None or self._closed:
                    if store is not None and operation_id is not None and self._forget_on_refusal(prepared, error):
                        store.delete(operation_id)
                    raise
                self._sleep(wait)

    def close(self) -> None:
        """Closes the connection pool; later calls raise :class:`ClientClosedError`."""
        self._closed = True
        self._http.close()


class AsyncAPIClient(BaseClient):
    """The asyncio request function over one kept-alive ``httpx.AsyncClient``."""

    def __init__(
        self,
        *,
        http_client: Optional[httpx.AsyncClient] = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self._owns_timeout = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=self.timeout)
        self._sleep = sleep

    @property
    def http_client(self) -> httpx.AsyncClient:
        """The kept-alive ``httpx.AsyncClient`` it sends with (anyio sets ``TCP_NODELAY`` on its connections)."""
        return self._http

    async def request(
        self,
        operation: str,
        *,
        path: Optional[Mapping[str, Union[str, int]]] = None,
        query: Optional[Query] = None,
        body: Any = None,
        headers: Optional[Mapping[str, Optional[str]]] = None,
        idempotency_key: Optional[str] = None,
        operation_id: Optional[str] = None,
        max_retries: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> APIResponse:
        """Sends ``operation`` (an operationId of the spec), retrying what is safe to retry."""
        prepared = self._prepare(operation, path, query, body, headers, idempotency_key, operation_id)
        store = self.idempotency_store
        if store is not None and self._needs_store(prepared):
            assert operation_id is not None
            candidate = prepared.headers["Idempotency-Key"] or generate_idempotency_key()
            prepared.headers["Idempotency-Key"] = await asyncio.to_thread(
                store.reserve, operation_id, candidate, IDEMPOTENCY_KEY_TTL
            )
        self._key_now(prepared)
        attempt = 0
        while True:
            attempt += 1
            try:
                try:
                    response = await self._http.request(
                        prepared.op.method, prepared.url, params=prepared.query or None, headers=prepared.headers,
                        content=prepared.content, timeout=self._timeout_of(timeout),
                    )
                except httpx.TransportError as failure:
                    raise _transport_error(failure) from failure
                return self._decode(prepared, response)
            except LeaseholdError as error:
                wait = self.retry_policy.decide(error, attempt, max_retries=max_retries)
                if wait is None or self._closed:
                    if store is not None and operation_id is not None and self._forget_on_refusal(prepared, error):
                        await asyncio.to_thread(store.delete, operation_id)
                    raise
                await self._sleep(wait)

    async def close(self) -> None:
        """Closes the connection pool; later calls raise :class:`ClientClosedError`."""
        self._closed = True
        await self._http.aclose()
