"""Every envelope shape the TypeScript decoder reads becomes the right typed error (no server)."""

from __future__ import annotations

import pytest

from leasehold import (
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    GoneError,
    InternalServerError,
    LeaseholdError,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
)
from leasehold._decode import decode_api_error
from leasehold._retry import is_retryable_error, parse_retry_after

JSON = {"content-type": "application/json"}


def test_the_canonical_envelope() -> None:
    error = decode_api_error(409, {**JSON, "Request-Id": "req_h"}, '{"type":"conflict_error","code":"claim_held","message":"Held.","param":"key","doc_url":"https://docs/x#section/claim_held","request_id":"req_1","errors":[{"code":"c","message":"m","param":"p"}]}')
    assert isinstance(error, ConflictError) and isinstance(error, APIError) and isinstance(error, LeaseholdError)
    assert (error.status, error.type, error.code, error.param) == (409, "conflict_error", "claim_held", "key")
    assert error.doc_url == "https://docs/x#section/claim_held" and error.request_id == "req_1"
    assert error.errors[0].code == "c" and error.errors[0].param == "p" and error.message == "Held."


def test_nested_error_object_and_kind_for_code() -> None:
    error = decode_api_error(404, JSON, '{"error":{"kind":"task_not_found","message":"No task 7.","requestId":"req_2"}}')
    assert isinstance(error, NotFoundError) and error.code == "task_not_found" and error.request_id == "req_2"
    assert error.type == "not_found_error"


def test_error_string_as_code_or_as_message() -> None:
    coded = decode_api_error(410, JSON, '{"error":"stale_token","message":"Gone."}')
    assert isinstance(coded, GoneError) and coded.code == "stale_token" and coded.message == "Gone."
    plain = decode_api_error(401, JSON, '{"error":"Unauthorized"}')
    assert isinstance(plain, AuthenticationError) and plain.code is None and plain.message == "Unauthorized"


def test_problem_json() -> None:
    error = decode_api_error(400, {"content-type": "application/problem+json"}, '{"type":"https://docs.example/problems/invalid-ttl","title":"Bad ttl","detail":"ttl must be 5-600.","status":400,"invalid-params":[{"name":"ttl","reason":"too big"}]}')
    assert isinstance(error, BadRequestError) and error.code == "invalid_ttl" and error.message == "ttl must be 5-600."
    assert error.param == "ttl" and error.doc_url == "https://docs.example/problems/invalid-ttl"


def test_proxy_pages_and_empty_bodies() -> None:
    page = decode_api_error(502, {"content-type": "text/html", "x-request-id": "px"}, "<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>")
    assert isinstance(page, InternalServerError) and "502 Bad Gateway" in page.message and page.request_id == "px"
    empty = decode_api_error(503, {}, "")
    assert isinstance(empty, ServiceUnavailableError) and empty.message == "HTTP 503 Service Unavailable with an empty body."
    odd = decode_api_error(418, JSON, '{"weird":true}')
    assert type(odd) is APIError and "unrecognized JSON" in odd.message


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}, 0) == 1.5
    assert parse_retry_after({"retry-after": "2"}, 0) == 2.0
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 1445412480.0) == 0.0
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 1445412470.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}, 0) is None
    limited = decode_api_error(429, {**JSON, "retry-after": "3"}, '{"type":"rate_limit_error","code":"rate_limited","message":"Slow down."}')
    assert isinstance(limited, RateLimitError) and limited.retry_after == 3.0


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [(408, None, True), (429, "rate_limited", True), (500, None, True), (503, None, True), (409, "idempotency_in_flight", True),
     (409, "claim_held", False), (400, "invalid_request", False), (404, None, False), (410, "stale_token", False)],
)
def test_only_what_is_safe_is_retried(status: int, code: str | None, retryable: bool) -> None:
    body = '{"message":"x"' + (f',"code":"{code}"' if code else "") + "}"
    assert is_retryable_error(decode_api_error(status, JSON, body)) is retryable


def test_secrets_never_show() -> None:
    error = decode_api_error(400, {**JSON, "authorization": "Bearer lh_test_admin"}, '{"message":"bad token lht_abcdefghijkl","token":"lht_abcdefghijkl"}')
    assert "lht_abcdefghijkl" not in error.message and "lht_abcdefghijkl" not in error.raw_body
    assert error.headers["authorization"] == "[REDACTED]"
