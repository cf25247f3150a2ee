"""The worker loops ride through a real server outage (issue 24): the reference server process is
frozen with SIGSTOP for a few seconds while a ``claim.run`` holds a lease, a ``tasks.work`` and a
``consume`` handler finish their work (their complete and ack go out in the dark), and a second
``claim.run`` (queued behind the first), a second ``tasks.work`` and an ``acquire(stop=...)``
start. Nothing raises but the stopped acquire: the held lease keeps its fence and is renewed by
the first heartbeat after the outage, every message is handled once, every task is done once.
The server runs on its manual clock and the client on a fake one, so nothing expires; each
attempt times out after 1 s and is retried once, so before ride-through the loops failed within
~2.5 s of the outage — well inside it."""

from __future__ import annotations

import asyncio
import math
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import API_KEY, FakeClock, Server
from leasehold import AsyncLeasehold, AsyncSpoolMessage, AsyncTaskWorkContext, Leasehold, RetryPolicy, SpaceLease, SpoolMessage, StoppedError, TaskWorkContext

OUTAGE = 4.0
"""How long the server is frozen (seconds): longer than a call's own retries, far shorter than a lease."""


def quick_policy() -> RetryPolicy:
    return RetryPolicy(max_retries=1, base_delay=0.1, max_delay=0.2, outage_base_delay=0.2, outage_max_delay=1.0)


@contextmanager
def frozen(server: Server) -> Iterator[None]:
    """The server process stopped (SIGSTOP) for the block; always continued afterwards."""
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.process.pid, signal.SIGCONT)


def until(check: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


class Loop(threading.Thread):
    """A worker loop in a thread: its value or its error."""

    def __init__(self, target: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self._fn = target
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self._fn()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error

    def result(self) -> Any:
        self.join(60)
        assert not self.is_alive(), "the loop did not finish"
        if self.error is not None:
            raise self.error
        return self.value


def test_claim_run_tasks_work_and_consume_ride_through_a_frozen_server(server: Server) -> None:
    clock = FakeClock()
    lh = Leasehold(base_url=server.url, api_key=API_KEY, clock=clock, heartbeat_ttl=60, timeout=1.0, retry_policy=quick_policy())
    control = Leasehold(base_url=server.url, api_key=API_KEY)

    def advance(seconds: float) -> None:
        control.control.advance(seconds)
        clock.now += seconds
        lh.renewal.wake()

    def next_heartbeat_in() -> float:
        """Seconds until the scheduler's next heartbeat (its due times are jittered ±10 %)."""
        at = lh.renewal.core.next_heartbeat_at
        assert math.isfinite(at), "a heartbeat is scheduled"
        return max(0.0, at - clock.now)

    try:
        run = lh.space(str(uuid.uuid4())).run(str(uuid.uuid4()), holder="outage-worker")
        gate, task_gate, slow_gate = threading.Event(), threading.Event(), threading.Event()
        fences: list[int] = []

        def hold(lease: SpaceLease) -> str:
            fences.append(lease.fence or 0)
            gate.wait(60)
            fences.append(lease.fence or 0)
            return lease.status

        holding = Loop(lambda: run.claim("held-through").run(hold))
        holding.start()
        task = lh.tasks.create("ride it out")
        runs: list[int] = []

        def slow_task(ctx: TaskWorkContext) -> str:
            runs.append(ctx.lease.fence or 0)
            task_gate.wait(60)
            return "done"

        working = Loop(lambda: lh.tasks.work(task["id"], slow_task))
        working.start()
        spool = lh.spool("o" + uuid.uuid4().hex[:10])
        spool.create()
        queue = spool.queue("jobs")
        queue.put(lease_timeout=300)
        handled: list[str] = []
        stop_consuming = threading.Event()

        slow_entered = threading.Event()

        def handler(message: SpoolMessage) -> None:
            if message.body == "slow":
                slow_entered.set()
                slow_gate.wait(60)
            handled.append(str(message.body))

        consuming = Loop(lambda: queue.consume(handler, stop=stop_consuming, poll_interval=0.1))
        consuming.start()
        for body in ("a", "b", "slow"):
            queue.send(body)
        # The consumer is inside the slow handler, so no receive of its is in flight when the server
        # freezes (a receive whose answer never arrives leaves its message leased until the queue's
        # lease timeout: by design, as in the TypeScript SDK).
        until(lambda: handled == ["a", "b"] and slow_entered.is_set() and len(fences) == 1 and len(runs) == 1, "the loops to start")
        second = lh.tasks.create("started in the dark")
        beats_before = lh.renewal.core.stats.succeeded

        with frozen(server):
            task_gate.set()  # its complete goes out in the dark
            slow_gate.set()  # and so does this message's ack
            queued = Loop(lambda: lh.space(run.space_id).run(str(uuid.uuid4()), holder="late").claim("held-through").run(lambda lease: lease.fence))
            late_work = Loop(lambda: lh.tasks.work(second["id"], lambda ctx: ctx.lease.fence))
            stop = threading.Event()
            stopped = Loop(lambda: run.claim("stopped-in-the-dark").acquire(stop=stop))
            for loop in (queued, late_work, stopped):
                loop.start()
            clock.now += next_heartbeat_in()  # a heartbeat falls due in the dark
            lh.renewal.wake()
            time.sleep(1.0)
            stop.set()
            time.sleep(OUTAGE - 1.0)

        with pytest.raises(StoppedError):
            stopped.result()
        assert working.result() == "done" and runs == [runs[0]]
        assert isinstance(late_work.result(), int)
        queue.send("c")
        until(lambda: len(handled) == 4, "the message sent after the outage")
        until(lambda: lh.renewal.core.stats.succeeded > beats_before, "a heartbeat after the outage")
        assert holding.is_alive() and queued.is_alive()  # still holding; still waiting its turn
        # The queued acquire's answer (a replay of the place its first try took in the dark) may come
        # after the loops above are done: release only once its place is tracked, or no clock move
        # would remain to bring the heartbeat that reports its grant.
        until(lambda: any(isinstance(lease, SpaceLease) and lease.holder == "late" and lease.status == "queued"
                          for lease in list(lh.renewal.core.leases.values())), "the queued claim's place")
        gate.set()
        assert holding.result() == "held" and fences == [fences[0], fences[0]]  # the same grant, never lost
        advance(next_heartbeat_in())  # the next heartbeat reports the queued claim's grant
        assert queued.result() > fences[0]
        stop_consuming.set()
        assert consuming.result() == 4 and sorted(handled) == ["a", "b", "c", "slow"]  # each once
        assert queue.receive() is None  # the ack sent in the dark went through
        for done in (task, second):
            got, _ = lh.tasks.get(done["id"])
            assert got["status"] == "Done" and got["attempts"] == 1
    finally:
        lh.close()
        control.close()


def test_the_async_loops_ride_through_a_frozen_server(server: Server) -> None:
    async def main() -> None:
        clock = FakeClock()
        async with AsyncLeasehold(base_url=server.url, api_key=API_KEY, clock=clock, heartbeat_ttl=60, timeout=1.0,
                                  retry_policy=quick_policy()) as lh:
            run = lh.space(str(uuid.uuid4())).run(str(uuid.uuid4()), holder="async-outage")
            gate, task_gate, slow_gate = asyncio.Event(), asyncio.Event(), asyncio.Event()
            fences: list[int] = []

            async def hold(lease: Any) -> str:
                fences.append(lease.fence or 0)
                await gate.wait()
                fences.append(lease.fence or 0)
                return str(lease.status)

            holding = asyncio.create_task(run.claim("held-through").run(hold))
            task = await lh.tasks.create("async ride")

            async def slow_task(ctx: AsyncTaskWorkContext) -> str:
                await task_gate.wait()
                return "done"

            working = asyncio.create_task(lh.tasks.work(task["id"], slow_task))
            spool = lh.spool("o" + uuid.uuid4().hex[:10])
            await spool.create()
            queue = spool.queue("jobs")
            await queue.put(lease_timeout=300)
            handled: list[str] = []
            stop_consuming = asyncio.Event()

            slow_entered = asyncio.Event()

            async def handler(message: AsyncSpoolMessage) -> None:
                if message.body == "slow":
                    slow_entered.set()
                    await slow_gate.wait()
                handled.append(str(message.body))

            consuming = asyncio.create_task(queue.consume(handler, stop=stop_consuming, poll_interval=0.1))
            for body in ("a", "slow"):
                await queue.send(body)
            for _ in range(1500):
                if handled == ["a"] and slow_entered.is_set() and len(fences) == 1:
                    break
                await asyncio.sleep(0.02)
            assert handled == ["a"] and slow_entered.is_set() and len(fences) == 1  # no receive in flight

            with frozen(server):
                task_gate.set()
                slow_gate.set()
                late = asyncio.create_task(run.claim("started-in-the-dark").run(lambda lease: asyncio.sleep(0, result=lease.fence)))
                await asyncio.sleep(OUTAGE)

            assert await asyncio.wait_for(working, 60) == "done"
            assert isinstance(await asyncio.wait_for(late, 60), int)
            for _ in range(1500):
                if len(handled) == 2:
                    break
                await asyncio.sleep(0.02)
            gate.set()
            assert await asyncio.wait_for(holding, 60) == "held" and fences == [fences[0], fences[0]]
            stop_consuming.set()
            assert await asyncio.wait_for(consuming, 60) == 2 and sorted(handled) == ["a", "slow"]
            assert await queue.receive() is None
            assert (await lh.tasks.get(task["id"]))[0]["status"] == "Done"

    asyncio.run(main())
