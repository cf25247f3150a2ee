"""LeaseSignal, what ``lease.lost`` / ``at_risk`` / ``granted`` are: a ``threading.Event``'s
behaviour (set, clear, a waiter woken from another thread, timeouts) without its per-lease memory."""

from __future__ import annotations

import threading
import tracemalloc

from leasehold import LeaseSignal


def test_it_behaves_as_an_event() -> None:
    signal = LeaseSignal()
    assert not signal.is_set() and signal.wait(0) is False
    signal.set()
    assert signal.is_set() and signal.wait(0) is True and signal.wait() is True
    signal.clear()
    assert not signal.is_set() and signal.wait(0.01) is False
    assert LeaseSignal(True).is_set()


def test_a_waiter_in_another_thread_is_woken_by_set() -> None:
    signal = LeaseSignal()
    started, woke = threading.Event(), []

    def waiter() -> None:
        started.set()
        woke.append(signal.wait(30))

    thread = threading.Thread(target=waiter)
    thread.start()
    assert started.wait(10)
    signal.set()
    thread.join(10)
    assert woke == [True]


def test_many_waiters_and_a_set_racing_them_never_leave_one_asleep() -> None:
    for _ in range(50):  # bounded: each round ends when its waiters return
        signal = LeaseSignal()
        results: list[bool] = []
        threads = [threading.Thread(target=lambda: results.append(signal.wait(10))) for _ in range(4)]
        for thread in threads:
            thread.start()
        signal.set()
        for thread in threads:
            thread.join(10)
        assert results == [True] * 4


def test_it_costs_a_fraction_of_an_event() -> None:
    tracemalloc.start()
    signals = [LeaseSignal() for _ in range(1000)]
    signal_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    tracemalloc.start()
    events = [threading.Event() for _ in range(1000)]
    event_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(signals) == len(events)
    assert signal_bytes * 5 < event_bytes, (signal_bytes, event_bytes)
