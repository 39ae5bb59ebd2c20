"""engine.memo: every cache of engine/ and render/ is bounded by bytes, and stays within its budget."""

from __future__ import annotations

import functools
import importlib
import multiprocessing
import pkgutil
import threading

import engine
import render
from engine import memo
from engine.memo import CACHES, BoundedCache, bytes_lru


def _modules() -> list[str]:
    names = []
    for package in (engine, render):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            names.append(info.name)
    return names


def test_no_cache_of_engine_or_render_is_bounded_by_entry_count_only() -> None:
    unbounded = []
    for name in _modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper):  # type: ignore[attr-defined]
                unbounded.append(f"{name}.{attribute}")
    assert unbounded == [], "caches bounded by count: use engine.memo.bytes_lru"
    # and the byte-bounded ones are all known, with a budget each
    assert len(CACHES) >= 40
    assert all(cache.budget > 0 for cache in CACHES)


def test_a_cache_drops_its_oldest_entries_beyond_its_budget() -> None:
    calls: list[int] = []

    def blob(n: int) -> bytes:
        calls.append(n)
        return bytes(1000)

    cache = BoundedCache(blob, 10 * (1000 + memo.ENTRY_OVERHEAD), len)
    for n in range(25):
        assert cache(n) == bytes(1000)
    stats = cache.stats()
    assert stats.entries == 10 and stats.size <= stats.budget
    cache(24)  # kept: not computed again
    cache(0)  # dropped long ago: computed again
    assert calls[-1] == 0 and calls.count(24) == 1


def test_a_result_larger_than_the_budget_is_returned_and_not_kept() -> None:
    cache = BoundedCache(lambda n: bytes(n), 5000, len)
    assert len(cache(100_000)) == 100_000
    assert cache.stats().entries == 0


def test_the_decorator_registers_the_cache() -> None:
    before = len(CACHES)

    @bytes_lru(1 << 20, memo.small)
    def square(n: int) -> int:
        return n * n

    try:
        assert square(12) == 144 and CACHES[-1] is square and len(CACHES) == before + 1
        assert square.stats().entries == 1
    finally:
        CACHES.remove(square)


def test_deep_size_counts_what_a_result_holds() -> None:
    boards = frozenset(tuple(range(i, i + 26)) for i in range(100))
    assert memo.deep_size(boards) > 100 * 26 * 8  # each tuple's 26 pointers at least
    assert memo.deep_size((boards, 3)) > memo.deep_size(boards)


def _use_cache(cache: BoundedCache[[int], int], done: multiprocessing.queues.Queue[int]) -> None:
    done.put(cache(7))


def test_a_worker_forked_while_a_cache_lock_is_held_can_use_the_cache() -> None:
    cache = BoundedCache(lambda n: n + 1, 1 << 20, memo.small)
    CACHES.append(cache)
    try:
        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            with cache._lock:
                held.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(10)
        context = multiprocessing.get_context("fork")
        done: multiprocessing.queues.Queue[int] = context.Queue()
        child = context.Process(target=_use_cache, args=(cache, done))
        child.start()
        child.join(20)
        alive = child.is_alive()
        if alive:
            child.kill()
        release.set()
        holder.join()
        assert not alive, "the forked worker waited for a lock its parent's thread held"
        assert done.get(timeout=5) == 8
    finally:
        CACHES.remove(cache)


def test_the_picture_caches_together_fit_a_worker_under_250_mb() -> None:
    """A warmed render worker holds about 100 MB before its caches fill (bench/worker_memory.py):
    the budgets of render/'s caches must leave it under 250 MB whatever it draws."""
    for name in _modules():
        importlib.import_module(name)
    pictures = sum(cache.budget for cache in CACHES if cache.name.startswith("render."))
    assert pictures <= 140 * memo.MB
