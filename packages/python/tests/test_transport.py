"""The blocking client's connections carry ``TCP_NODELAY``: without it a POST's body waits for the
server's delayed ACK of its head (~40 ms per write on Linux, the renewal of a lease 20× slower
than the request itself)."""

from __future__ import annotations

import asyncio
import socket

import httpx

from conftest import API_KEY, Server
from leasehold import AsyncLeasehold, Leasehold, http_transport


def nodelay_of(response: httpx.Response) -> int:
    sock = response.extensions["network_stream"].get_extra_info("socket")  # a socket, or asyncio's TransportSocket
    return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def test_the_default_blocking_client_sets_tcp_nodelay(server: Server) -> None:
    seen: list[int] = []
    with Leasehold(base_url=server.url, api_key=API_KEY) as lh:
        lh.api.http_client.event_hooks["response"].append(lambda response: seen.append(nodelay_of(response)))
        lh.tasks.create("sent at once")
    assert seen and all(seen)


def test_http_transport_for_your_own_client_sets_it_too(server: Server) -> None:
    seen: list[int] = []
    with httpx.Client(transport=http_transport(retries=1), event_hooks={"response": [lambda r: seen.append(nodelay_of(r))]}) as http:
        with Leasehold(base_url=server.url, api_key=API_KEY, http_client=http) as lh:
            lh.tasks.create("mine too")
    assert seen and all(seen)


def test_the_async_client_has_it_from_anyio(server: Server) -> None:
    seen: list[int] = []

    async def hook(response: httpx.Response) -> None:
        seen.append(nodelay_of(response))

    async def main() -> None:
        async with AsyncLeasehold(base_url=server.url, api_key=API_KEY) as lh:
            lh.api.http_client.event_hooks["response"].append(hook)
            await lh.tasks.create("async")

    asyncio.run(main())
    assert seen and all(seen)
