"""Unique object keys in JSON output: a key its object already holds is not written again.

JSON Schema lets an open object (``additionalProperties``, ``dict[str, int]``, ``{}``) take any
keys, and the grammar cannot say "each key once": that language is not context-free. A small
model often writes a key again (``"description": ..., "description": ...``); the text is valid
JSON, but RFC 8259 leaves duplicate names to the parser (Python keeps the last, so data is lost
silently) and the repetition burns the token budget. Declared properties come in schema order,
so the grammar already writes each once; this guard covers the open objects.

:class:`KeyTracker` follows the text token by token: the stack of containers, for each object
the keys written so far (decoded, so ``"a"`` and ``"\\u0061"`` are one key), whether the
string being written is a key, and which token wrote the object's last comma.
:meth:`KeyTracker.repeated` says whether a candidate token would close a key its object already
holds. The decoding loop (``Decoder._unique_key``) then rolls the row back to that comma and
excludes it there, so the model ends the object or goes on otherwise; where it cannot, it
chooses again without the token, and where nothing else is allowed (a ``propertyNames`` that
leaves only that key) the repeated key is written and reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KeyEvent", "KeyTracker", "Repeated"]


@dataclass(frozen=True)
class KeyEvent:
    """A repeated object key met while decoding: where (tokens before it), which key, and what
    was done: ``"rolled back"`` (to the comma before the key, excluded there), ``"excluded"``
    (another token chosen at the key) or, with nothing else allowed, ``"kept"``.

    ``attempt`` is the attempt's index in ``Details.attempts``."""

    token_index: int
    key: str
    action: str
    attempt: int = 0


@dataclass(frozen=True)
class Repeated:
    """A key a token would write again: which, and where the comma before it was written."""

    key: str
    comma_at: int
    """Index of the token that wrote the comma before the key (the candidate's own index when
    it writes the comma itself)."""


@dataclass(frozen=True)
class _Object:
    """An open object: its keys so far, whether the next string is a key, and the index of the
    token that wrote its last comma."""

    keys: frozenset[str] = frozenset()
    expect_key: bool = True
    comma_at: int = -1


@dataclass(frozen=True)
class _State:
    """Where the text stands: immutable, so one is kept per token position."""

    stack: tuple[_Object | None, ...] = ()
    """Open containers, innermost last: an object, or ``None`` for an array."""
    string: bytes | None = None
    """The raw bytes of the key being written, or ``None`` outside a key."""
    in_string: bool = False
    escaped: bool = False
    """Inside a string, right after a backslash."""
    started: bool = False
    """The JSON has begun (the answer's mark has been written)."""
    seen: bytes = b""
    """Before the start: the last bytes, to find the mark across token boundaries."""
    done: bool = False
    """The top-level value has ended; later text (a closing fence) is not JSON."""


def _key(raw: bytes) -> str:
    """The decoded key of a string's raw bytes (escapes resolved)."""
    try:
        value = json.loads(b'"' + raw + b'"')
    except ValueError:  # not valid JSON text (the grammar would not allow it): compare raw
        return raw.decode("utf-8", errors="surrogateescape")
    return str(value)


def _feed(state: _State, data: bytes, mark: bytes, index: int) -> tuple[_State, Repeated | None]:
    """``state`` after ``data`` (the bytes of token ``index``), and the first key ``data``
    closes that its object already has."""
    stack = list(state.stack)
    string, in_string, escaped = state.string, state.in_string, state.escaped
    started, seen, done = state.started, state.seen, state.done
    repeated: Repeated | None = None
    i = 0
    if not started:
        window = seen + data
        at = window.find(mark)
        if at < 0:
            keep = window[-(len(mark) - 1) :] if len(mark) > 1 else b""
            return _State(seen=keep), None
        i = max(at + len(mark) - len(seen), 0)  # the JSON's first byte, in ``data``
        started, seen = True, b""
    n = len(data)
    while i < n and not done:
        b = data[i]
        i += 1
        top = stack[-1] if stack else None
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:  # closing quote
                in_string = False
                if string is not None and top is not None:
                    key = _key(string)
                    if key in top.keys and repeated is None:
                        repeated = Repeated(key, top.comma_at)
                    stack[-1] = _Object(top.keys | {key}, False, top.comma_at)
                    string = None
                continue
            if string is not None:
                string += bytes((b,))
            continue
        if b == 0x22:  # opening quote
            in_string = True
            if top is not None and top.expect_key:
                string = b""
        elif b == 0x7B:  # {
            stack.append(_Object())
        elif b == 0x5B:  # [
            stack.append(None)
        elif b in (0x7D, 0x5D):  # } ]
            if stack:
                stack.pop()
            done = not stack
        elif b == 0x2C and top is not None:  # a comma in an object
            stack[-1] = _Object(top.keys, True, index)
    new = _State(tuple(stack), string, in_string, escaped, started, seen, done)
    return new, repeated


class KeyTracker:
    """The object keys of one row's JSON text, kept per token position (see the module).

    ``mark`` is the text right before the JSON (a scratchpad's answer mark); ``b""`` when the
    output is JSON from its first byte.
    """

    def __init__(self, pieces: list[bytes] | tuple[bytes, ...], mark: bytes = b"") -> None:
        self._pieces = pieces
        self._mark = mark
        self._tokens: list[int] = []
        self._states: list[_State] = [_State(started=not mark)]

    def _sync(self, tokens: list[int]) -> _State:
        """The state after ``tokens``, reusing the states of the common prefix (a rollback or
        a rewind shortens the text; only what is new is fed)."""
        mine = self._tokens
        keep = min(len(mine), len(tokens))
        if mine[:keep] != tokens[:keep]:
            keep = next(k for k in range(keep) if mine[k] != tokens[k])
        del mine[keep:]
        del self._states[keep + 1 :]
        state = self._states[-1]
        for token in tokens[keep:]:
            state, _ = _feed(state, self._piece(token), self._mark, len(mine))
            mine.append(token)
            self._states.append(state)
        return state

    def _piece(self, token: int) -> bytes:
        return self._pieces[token] if 0 <= token < len(self._pieces) else b""

    def repeated(
        self, tokens: list[int], token: int, forced: Callable[[], bytes] | None = None
    ) -> Repeated | None:
        """The key ``token`` would close, after ``tokens``, that its object already holds.

        ``forced`` gives the bytes the grammar forces after ``token``; it is called only when
        the token leaves a key open, since a forced closing quote (``"a`` then ``":`` from an
        enum of keys) closes the key as surely as a sampled one."""
        state = self._sync(tokens)  # incremental: the tokens since the last call
        piece = self._piece(token)
        if state.done or (not state.in_string and b'"' not in piece):
            return None  # the common case: no string is open or opened
        index = len(tokens)
        after, found = _feed(state, piece, self._mark, index)
        if found is None and after.string is not None and forced is not None:
            found = _feed(after, forced(), self._mark, index)[1]
        return found
