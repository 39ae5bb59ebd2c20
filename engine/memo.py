"""Caches bounded by bytes, not by entry count: ``bytes_lru(budget, sizeof)``.

A cache bounded by its number of entries holds whatever its entries weigh: a render worker whose
caches held 256 headers of 234 KB, 512 arrows of up to 675 KB and so on reached 720 MB after drawing
a few thousand pictures of all three games. Every cache of ``engine`` and ``render`` is one of these
instead: least recently used entries are dropped once the entries' estimated sizes add up to more
than the cache's budget, so a process that draws or thinks stays within the sum of the budgets
(``CACHES`` lists them; tests/engine/test_memo.py checks that no other kind of cache is left).

The store is cachetools' ``LRUCache`` with ``getsizeof`` (its ``maxsize`` is then a number of bytes),
behind a lock, as ``functools.lru_cache`` is safe to call from several threads; a forked worker gets
fresh locks, since its parent may have held one in another thread at the fork.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, TypeVar, cast

from cachetools import LRUCache
from cachetools.keys import hashkey

P = ParamSpec("P")
R = TypeVar("R")

ENTRY_OVERHEAD = 200
"""Bytes counted for each entry besides its value: the key tuple and the cache's bookkeeping."""


@dataclass(frozen=True, slots=True)
class CacheStats:
    """One cache's state: its name, budget and what its entries add up to now."""

    name: str
    budget: int
    entries: int
    size: int


class BoundedCache(Generic[P, R]):
    """A function whose results are kept until their sizes add up to more than ``budget`` bytes."""

    def __init__(self, function: Callable[P, R], budget: int, sizeof: Callable[[Any], int]) -> None:
        self.name = f"{function.__module__}.{function.__qualname__}"
        self.budget = budget
        self.__wrapped__ = function
        self.__doc__ = function.__doc__
        self._store: LRUCache[Hashable, R] = LRUCache(
            maxsize=budget, getsizeof=lambda value: ENTRY_OVERHEAD + sizeof(value)
        )
        self._lock = threading.Lock()

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = hashkey(*args, **kwargs)  # type: ignore[arg-type]  # results of hashable arguments only
        with self._lock:
            found = self._store.get(key, _MISSING)
        if found is not _MISSING:
            return cast(R, found)
        value = self.__wrapped__(*args, **kwargs)  # outside the lock: it may use other caches
        with self._lock, contextlib.suppress(ValueError):  # larger than the whole budget: not kept
            self._store[key] = value
        return value

    def cache_clear(self) -> None:
        with self._lock:
            self._store.clear()

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self.name, self.budget, len(self._store), int(self._store.currsize))

    def _after_fork(self) -> None:
        # A worker forked while another thread of its parent held this lock would wait for ever.
        self._lock = threading.Lock()


_MISSING = object()


CACHES: list[BoundedCache[Any, Any]] = []
"""Every cache made with :func:`bytes_lru`, in the order their modules were imported."""


def bytes_lru(budget: int, sizeof: Callable[[Any], int]) -> Callable[[Callable[P, R]], BoundedCache[P, R]]:
    """Decorator: memoize the function, keeping at most ``budget`` bytes of results as ``sizeof``
    estimates them (a result larger than the whole budget is returned but not kept)."""

    def wrap(function: Callable[P, R]) -> BoundedCache[P, R]:
        cache = BoundedCache(function, budget, sizeof)
        CACHES.append(cache)
        return cache

    return wrap


def _fresh_locks() -> None:
    for cache in CACHES:
        cache._after_fork()


os.register_at_fork(after_in_child=_fresh_locks)


def deep_size(value: object) -> int:
    """Bytes of ``value`` and of everything it holds (tuples, lists, sets, dicts, objects with
    ``__slots__`` or a ``__dict__``), each object counted once."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, str | bytes | bytearray | int | float | bool) or item is None:
            continue
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, tuple | list | set | frozenset):
            stack.extend(item)
        else:
            for slot in getattr(type(item), "__slots__", ()):
                if hasattr(item, slot):
                    stack.append(getattr(item, slot))
            if hasattr(item, "__dict__"):
                stack.append(vars(item))
    return total


def small(value: object) -> int:
    """``sizeof`` for results of a few dozen bytes (numbers, short tuples of numbers)."""
    return sys.getsizeof(value)


MB = 1 << 20
