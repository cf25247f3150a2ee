"""AsyncLeasehold: ``async with``, ``await claim.acquire()``, one asyncio renewal task."""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx

from conftest import API_KEY, FakeClock, Recorder, Server
from leasehold import AsyncLeasehold, Leasehold


def test_async_acquire_renew_and_release(server: Server) -> None:
    clock = FakeClock()
    recorder = Recorder()

    async def record(request: httpx.Request) -> None:
        recorder(request)

    async def main() -> None:
        control = Leasehold(base_url=server.url, api_key=API_KEY)
        http = httpx.AsyncClient(event_hooks={"request": [record]})
        async with AsyncLeasehold(base_url=server.url, api_key=API_KEY, clock=clock, http_client=http) as lh:
            run = lh.space(str(uuid.uuid4())).run(str(uuid.uuid4()), holder="async-worker")
            leases = [await run.claim(f"k{i}").acquire() for i in range(20)]
            assert await run.claim("k0").try_acquire() is None
            control.control.advance(11)
            clock.now += 11
            lh.renewal.wake()
            for _ in range(400):  # bounded: the renewal task answers within a few event-loop turns
                if lh.renewal.core.stats.heartbeats == 1 and not lh.renewal.core.in_flight:
                    break
                await asyncio.sleep(0.025)
            beats = recorder.of("/v1/claims/heartbeat")
            assert len(beats) == 1
            assert sorted(json.loads(beats[0].content)["claimIds"]) == sorted(lease.claim_id for lease in leases)
            async with leases[0] as lease:
                assert lease.is_held
            assert leases[0].lost_reason == "released"
            value = await run.claim("fn").run(lambda lease: asyncio.sleep(0, result=lease.fence))
            assert isinstance(value, int)
        assert all(lease.lost.is_set() for lease in leases)  # closing released the rest
        control.close()

    asyncio.run(main())
