"""The blocking client's connections: kept alive and with ``TCP_NODELAY``. httpx's sync transport
writes a request's head and its body in two writes; with Nagle's algorithm on, the body waits for
the server's (delayed) ACK of the head: ~40 ms added to every POST on Linux — 20× a renew on a
local server. (The asyncio transport, anyio, sets ``TCP_NODELAY`` itself.) httpx ≥ 0.24 takes
``socket_options``; on older ones (Debian's 0.23) the pool's network backend is wrapped."""

from __future__ import annotations

import inspect
import socket
from collections.abc import Iterable
from typing import Any, Optional, cast

import httpx

_NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _set_nodelay(stream: Any) -> Any:
    sock = stream.get_extra_info("socket")
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(*_NODELAY)
    return stream


class _NoDelayBackend:
    """An httpcore network backend that sets ``TCP_NODELAY`` on every TCP connection of ``inner``."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: Optional[float] = None, local_address: Optional[str] = None,
                    **options: Any) -> Any:
        return _set_nodelay(self._inner.connect_tcp(host, port, timeout=timeout, local_address=local_address, **options))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def http_transport(**options: Any) -> httpx.HTTPTransport:
    """An ``httpx.HTTPTransport`` (``options`` are its own) whose TCP connections send each write at
    once (``TCP_NODELAY``). The blocking client uses it by default; give it to your own
    ``httpx.Client(transport=leasehold.http_transport())`` when you pass ``http_client=``."""
    if "socket_options" in inspect.signature(httpx.HTTPTransport.__init__).parameters:
        given: Iterable[Any] = options.pop("socket_options", None) or ()
        transport_type: Any = httpx.HTTPTransport  # typed without socket_options by httpx 0.23
        return cast(httpx.HTTPTransport, transport_type(socket_options=[*given, _NODELAY], **options))
    transport = httpx.HTTPTransport(**options)
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if pool is not None and backend is not None and not isinstance(backend, _NoDelayBackend):
        pool._network_backend = _NoDelayBackend(backend)
    return transport
