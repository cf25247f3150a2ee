"""Turns any error answer into the typed :class:`APIError` subclass for its status (never raises).

Understands every envelope the TypeScript decoder reads: the canonical envelope, ``{"error":{...}}``,
``{"error": "code", "message": ...}``, ``kind`` for ``code``, RFC 9457 problem+json, and non-JSON
proxy pages (HTML, text, empty bodies)."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Mapping
from typing import Any, Optional

from ._exceptions import APIError, ErrorDetail, error_class_for
from ._generated.operations import ERROR_TYPE_BY_STATUS
from ._retry import parse_retry_after

_SNIPPET = 200
_TYPE_WORD = re.compile(r"^[a-z][a-z0-9_]*$")
_HTTP_URL = re.compile(r"^https?://", re.I)
_REASONS = {
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
    408: "Request Timeout", 413: "Content Too Large", 429: "Too Many Requests", 500: "Internal Server Error",
    502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
}


def error_type_of(status: int) -> str:
    """The envelope ``type`` the spec gives a status."""
    return str(ERROR_TYPE_BY_STATUS.get(status, "api_error" if status >= 500 else "invalid_request_error"))


def decode_api_error(status: int, headers: Mapping[str, str], body: str, *, now: Optional[float] = None) -> APIError:
    """The :class:`APIError` subclass for ``status``, with every field the body and headers give."""
    low = {k.lower(): str(v) for k, v in headers.items()}
    try:
        retry_after = parse_retry_after(low, time.time() if now is None else now)
    except Exception:  # pragma: no cover - parse_retry_after never raises on strings
        retry_after = None
    header_request_id = low.get("request-id") or low.get("x-request-id")
    try:
        fields = _decode_fields(status, low, body)
    except Exception:
        fields = {"type": error_type_of(status), "message": f"HTTP {status}."}
    if not fields.get("request_id"):
        fields["request_id"] = header_request_id
    message = str(fields.pop("message"))
    cls = error_class_for(status)
    return cls(message, status=status, headers=low, retry_after=retry_after, raw_body=body, **fields)


def _decode_fields(status: int, headers: Mapping[str, str], body: str) -> dict[str, Any]:
    content_type = headers.get("content-type", "").lower()
    parsed = _parse_json(body, content_type)
    if isinstance(parsed, dict):
        if "problem+json" in content_type or _looks_like_problem(parsed):
            return _from_problem(parsed, status)
        found = _from_envelope(parsed, status)
        if found is not None:
            return found
    elif isinstance(parsed, str) and parsed.strip():
        return {"type": error_type_of(status), "message": parsed.strip()}
    return _from_text(body, status, content_type, parsed is not _ABSENT)


_ABSENT: Any = object()


def _parse_json(text: str, content_type: str) -> Any:
    trimmed = text.strip()
    if not trimmed:
        return _ABSENT
    if "json" not in content_type and not re.match(r'^[{\["]', trimmed):
        return _ABSENT
    try:
        return json.loads(trimmed)
    except ValueError:
        return _ABSENT


def _s(value: Any) -> Optional[str]:
    if isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _first(*values: Optional[str]) -> Optional[str]:
    return next((v for v in values if v is not None), None)


def _details(value: Any) -> list[ErrorDetail]:
    out: list[ErrorDetail] = []
    if not isinstance(value, list):
        return out
    for item in value:
        if isinstance(item, str):
            out.append(ErrorDetail(item))
        elif isinstance(item, dict):
            path = item.get("path")
            param = _first(_s(item.get("param")), _s(item.get("name")), _s(item.get("field")), _s(item.get("pointer")),
                           ".".join(map(str, path)) if isinstance(path, list) and path else _s(path))
            code = _first(_s(item.get("code")), _s(item.get("kind")))
            message = _first(_s(item.get("message")), _s(item.get("reason")), _s(item.get("detail")), code) or "Invalid value."
            out.append(ErrorDetail(message, code, param))
    return out


def _from_envelope(body: dict[str, Any], status: int) -> Optional[dict[str, Any]]:
    src = body
    code: Optional[str] = None
    message: Optional[str] = None
    inner = body.get("error")
    if isinstance(inner, dict):
        src = {**body, **inner}
    elif isinstance(inner, str):
        if _s(body.get("message")) is not None and _TYPE_WORD.match(inner):
            code = inner
        else:
            message = inner
    code = _first(_s(src.get("code")), _s(src.get("kind")), _s(src.get("error_code")), code)
    message = _first(_s(src.get("message")), _s(src.get("detail")), _s(src.get("error_description")), _s(src.get("title")), message)
    errors = _details(src.get("errors"))
    if message is None and code is None and not errors:
        return None
    raw_type = _s(src.get("type"))
    return {
        "type": raw_type if raw_type is not None and _TYPE_WORD.match(raw_type) else error_type_of(status),
        "code": code,
        "param": _s(src.get("param")),
        "message": message or (errors[0].message if errors else f"HTTP {status} ({code})."),
        "doc_url": _first(_s(src.get("doc_url")), _s(src.get("docUrl")),
                          raw_type if raw_type is not None and _HTTP_URL.match(raw_type) else None),
        "request_id": _first(_s(src.get("request_id")), _s(src.get("requestId"))),
        "errors": errors,
    }


def _code_from_uri(uri: Optional[str]) -> Optional[str]:
    if uri is None or uri == "about:blank" or _TYPE_WORD.match(uri):
        return None
    last = uri[uri.rindex("#") + 1:] if "#" in uri else uri.rstrip("/").split("/")[-1]
    return last.replace("-", "_").lower() if re.match(r"^[A-Za-z][A-Za-z0-9_-]*$", last) else None


def _from_problem(problem: dict[str, Any], status: int) -> dict[str, Any]:
    type_uri = _s(problem.get("type"))
    errors = _details(problem.get("errors", problem.get("invalid-params", problem.get("invalid_params"))))
    return {
        "type": type_uri if type_uri is not None and _TYPE_WORD.match(type_uri) else error_type_of(status),
        "code": _first(_s(problem.get("code")), _s(problem.get("kind")), _code_from_uri(type_uri)),
        "param": _first(_s(problem.get("param")), errors[0].param if len(errors) == 1 else None),
        "message": _first(_s(problem.get("detail")), _s(problem.get("title")), errors[0].message if errors else None)
        or f"HTTP {status}.",
        "doc_url": _first(_s(problem.get("doc_url")), type_uri if type_uri is not None and _HTTP_URL.match(type_uri) else None),
        "request_id": _first(_s(problem.get("request_id")), _s(problem.get("requestId"))),
        "errors": errors,
    }


def _looks_like_problem(body: dict[str, Any]) -> bool:
    if "message" in body or "error" in body or ("title" not in body and "detail" not in body):
        return False
    t = body.get("type")
    return isinstance(body.get("status"), int) or (isinstance(t, str) and not _TYPE_WORD.match(t))


def _from_text(body: str, status: int, content_type: str, was_json: bool) -> dict[str, Any]:
    phrase = _REASONS.get(status)
    head = f"HTTP {status} {phrase}" if phrase else f"HTTP {status}"
    is_html = not was_json and ("html" in content_type or re.match(r"^\s*<(!doctype|html|head|body)", body, re.I) is not None)
    text = _html_to_text(body) if is_html else re.sub(r"\s+", " ", body).strip()
    kind = content_type.split(";")[0].strip() or "no content type"
    what = "an unrecognized JSON error body" if was_json else f"a non-JSON response ({kind})"
    snippet = text if len(text) <= _SNIPPET else text[:_SNIPPET] + "…"
    message = f"{head} with an empty body." if not text else f"{head}: {what}: {snippet}"
    return {"type": error_type_of(status), "message": message}


def _html_to_text(page: str) -> str:
    title_match = re.search(r"<title[^>]*>([\s\S]*?)</title>", page, re.I)
    stripped = re.sub(r"<(script|style|head)[^>]*>[\s\S]*?</\1>", " ", page, flags=re.I)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", stripped))).strip()
    title = re.sub(r"\s+", " ", html.unescape(title_match.group(1))).strip() if title_match else ""
    return f"{title} — {text}".strip() if title and not text.startswith(title) else text
