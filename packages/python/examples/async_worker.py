"""The asyncio client: many claims held at once by one client, all renewed by one heartbeat per
cadence, each released when its ``async with`` ends. Run it against a server:
``LEASEHOLD_URL=http://127.0.0.1:4010 python3 async_worker.py``."""

from __future__ import annotations

import asyncio
import os
import uuid

from leasehold import AsyncLeasehold, AsyncSpaceLease

BASE_URL = os.environ.get("LEASEHOLD_URL", "http://127.0.0.1:4010")
API_KEY = os.environ.get("LEASEHOLD_API_KEY", "lh_test_admin")
SPACE = "6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a"


async def export(lease: AsyncSpaceLease, partition: int) -> int:
    """One partition's work under its lease; returns the fence it ran under."""
    await asyncio.sleep(0.01)  # your I/O
    lease.raise_if_lost()
    return lease.fence or 0


async def main() -> None:
    """Takes eight partition leases concurrently, works them, and prints each one's fence."""
    async with AsyncLeasehold(base_url=BASE_URL, api_key=API_KEY) as lh:
        run = lh.space(SPACE).run(str(uuid.uuid4()), holder="async-exporter")

        async def one(partition: int) -> int:
            async with await run.claim(f"exports/partition-{partition}").acquire() as lease:
                return await export(lease, partition)

        fences = await asyncio.gather(*(one(p) for p in range(8)))
        print("exported", len(fences), "partitions under fences", fences)


if __name__ == "__main__":
    asyncio.run(main())
