"""AsyncLeasehold: ``async with``, ``await claim.acquire()``, one asyncio renewal task."""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx

from conftest import API_KEY, FakeClock, Recorder, Server
from leasehold import AsyncLeasehold, DeadLetter, Leasehold
from leasehold import AsyncSpoolMessage, AsyncTaskWorkContext


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


def test_async_tasks_and_consume(server: Server) -> None:
    async def main() -> None:
        async with AsyncLeasehold(base_url=server.url, api_key=API_KEY) as lh:
            task = await lh.tasks.create("async task")

            async def work(ctx: AsyncTaskWorkContext) -> dict[str, int]:
                return {"fence": ctx.lease.fence or 0}

            assert (await lh.tasks.work(task["id"], work))["fence"] >= 1
            assert (await lh.tasks.get(task["id"]))[0]["status"] == "Done"
            assert task["id"] in [t["id"] async for t in lh.tasks.list(status="Done")]

            spool = lh.spool("a" + uuid.uuid4().hex[:10])
            await spool.create()
            queue, dead = spool.queue("jobs"), spool.queue("dead")
            await queue.put(lease_timeout=60)
            await dead.put(lease_timeout=60)
            await queue.send({"poison": True})
            await queue.send({"fine": True})
            seen: list[object] = []

            async def handler(message: AsyncSpoolMessage) -> None:
                if message.body.get("poison"):
                    raise ValueError("cannot handle")
                seen.append(message.body)

            handled = await queue.consume(handler, max_messages=3, max_deliveries=2, dead_letter=DeadLetter(spool.name, "dead"),
                                          backoff=lambda n: 0, poll_interval=0.01)
            assert handled == 3 and seen == [{"fine": True}]
            letter = await dead.receive()
            assert letter is not None and letter.body == {"poison": True}
            await letter.ack()

    asyncio.run(main())
