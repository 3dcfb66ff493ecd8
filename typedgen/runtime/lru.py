"""A least-recently-used map bounded in bytes, for the reference engine's caches."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["ByteLru"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ByteLru(Generic[K, V]):
    """Entries weigh ``size(value)`` bytes; past ``limit`` the least recently used go first.

    Not locked: the engine that owns it serialises access.
    """

    def __init__(self, limit: int, size: Callable[[V], int]) -> None:
        self.limit = limit
        self._size = size
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.bytes = 0
        self.evictions = 0

    def get(self, key: K) -> V | None:
        found = self._data.get(key)
        if found is None:
            return None
        self._data.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        old = self._data.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        weight = self._size(value)
        self._data[key] = (value, weight)
        self.bytes += weight
        while self.bytes > self.limit and len(self._data) > 1:
            _, (_, w) = self._data.popitem(last=False)
            self.bytes -= w
            self.evictions += 1

    def __len__(self) -> int:
        return len(self._data)
