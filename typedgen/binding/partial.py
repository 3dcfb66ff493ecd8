"""Parse a *prefix* of a JSON document into the value seen so far.

A grammar-constrained decoder emits JSON token by token and callers want typed progress before
the closing brace arrives. Repairing each truncation and re-running ``json.loads`` is quadratic and
guessy, so this is one resumable left-to-right pass with an explicit stack: total work is linear in
the text, and :class:`PartialJSONParser` keeps only the pending token between calls.

What a partial value holds: every member/element whose value is finished, plus the one open
container being filled (recursively partial), but never an unfinished scalar -- a string without
its closing quote, ``tru``, or a number not yet followed by a delimiter (``12`` may become
``123``). A top-level string or literal is complete once closed; a top-level number only when
followed by whitespace, or at the end when the caller says the text is final.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["PartialJSONParser", "PartialValue", "parse_partial_json"]

_WS = frozenset(" \t\n\r")
_STRING_SPECIAL = re.compile(r'["\\\x00-\x1f]')
_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')
_ESCAPE_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_NUMBER_END = re.compile(r"[^-+0-9.eE]")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_PREFIX = re.compile(
    r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*|(?:\.[0-9]+)?(?:[eE][+-]?[0-9]*)?))?"
)
_LITERALS: dict[str, tuple[str, Any]] = {
    "t": ("true", True),
    "f": ("false", False),
    "n": ("null", None),
}

# Parser states: what the next significant character may be.
_VALUE, _DONE = 0, 1
_OBJ_FIRST, _OBJ_KEY, _OBJ_COLON, _OBJ_VALUE, _OBJ_NEXT = 2, 3, 4, 5, 6
_ARR_FIRST, _ARR_VALUE, _ARR_NEXT = 7, 8, 9
_VALUE_STATES = frozenset({_VALUE, _OBJ_VALUE, _ARR_FIRST, _ARR_VALUE})
_CLOSERS = {(_OBJ_NEXT, "}"), (_OBJ_FIRST, "}"), (_ARR_NEXT, "]"), (_ARR_FIRST, "]")}


@dataclass(frozen=True, slots=True)
class PartialValue:
    """The value parsed so far; ``complete`` once the top-level value can no longer change."""

    value: Any
    complete: bool


class _Frame:
    """One open container; ``slot`` is its key in the parent object, ``key`` the pending key."""

    __slots__ = ("container", "key", "slot")

    def __init__(self, container: dict[str, Any] | list[Any], slot: str) -> None:
        self.container = container
        self.slot = slot
        self.key = ""


class PartialJSONParser:
    """Feed the decoded text delta by delta; each call costs O(delta + pending token).

    Values returned by :meth:`feed` are snapshots (the open containers are copied), so they do not
    change under later calls; finished sub-values are shared with the parser, treat them as
    read-only. After a :class:`ValueError` the parser is poisoned and re-raises it.
    """

    def __init__(self) -> None:
        self._buf = ""  # unconsumed text, starting at the pending token
        self._base = 0  # offset of _buf[0] in the whole document, for error messages
        self._resume = 0  # where scanning of a pending string restarts (index into _buf)
        self._state = _VALUE
        self._stack: list[_Frame] = []
        self._root: Any = None
        self._has_root = False
        self._error: ValueError | None = None

    def feed(self, delta: str) -> PartialValue | None:
        """Append ``delta``; return the value so far, or None while there is none yet."""
        self._advance(delta, final=False)
        return self._result(snapshot=True)

    def finish(self) -> PartialValue:
        """Declare the text final (ending a trailing top-level number); raise if incomplete."""
        self._advance("", final=True)
        if self._state != _DONE:
            offset = self._base + len(self._buf)
            self._error = ValueError(f"incomplete JSON document at offset {offset}")
            raise self._error
        return PartialValue(self._root, True)

    def _advance(self, delta: str, final: bool) -> None:
        if self._error is not None:
            raise self._error
        buf = self._buf + delta
        i, n = 0, len(buf)
        try:
            while i < n:
                c, state = buf[i], self._state
                if c in _WS:
                    i += 1
                elif (state, c) in _CLOSERS:
                    self._close()
                    i += 1
                elif state in _VALUE_STATES:
                    if c == "{" or c == "[":
                        self._open({} if c == "{" else [])
                        i += 1
                        continue
                    end, value = self._scalar(buf, i, final)
                    if end < 0:
                        break
                    self._put(value)
                    i = end
                elif (state == _OBJ_FIRST or state == _OBJ_KEY) and c == '"':
                    end = self._string(buf, i)
                    if end < 0:
                        break
                    self._stack[-1].key = json.loads(buf[i:end])
                    self._state = _OBJ_COLON
                    i = end
                elif state == _OBJ_COLON and c == ":":
                    self._state = _OBJ_VALUE
                    i += 1
                elif (state == _OBJ_NEXT or state == _ARR_NEXT) and c == ",":
                    self._state = _OBJ_KEY if state == _OBJ_NEXT else _ARR_VALUE
                    i += 1
                else:
                    raise self._fail(i, f"unexpected {c!r}")
        except ValueError as exc:
            self._error = exc
            raise
        self._buf, self._base, self._resume = buf[i:], self._base + i, self._resume - i

    def _fail(self, i: int, what: str) -> ValueError:
        return ValueError(f"not a JSON prefix: {what} at offset {self._base + i}")

    def _scalar(self, buf: str, i: int, final: bool) -> tuple[int, Any]:
        """Scan the scalar at ``i``: (end, value), or (-1, None) while it may still grow."""
        c = buf[i]
        if c == '"':
            end = self._string(buf, i)
            return end, (json.loads(buf[i:end]) if end >= 0 else None)
        if c == "-" or "0" <= c <= "9":
            m = _NUMBER_END.search(buf, i)
            end = len(buf) if m is None else m.start()
            token = buf[i:end]
            if (end < len(buf) or final) and _NUMBER.fullmatch(token):
                return end, json.loads(token)
            if end == len(buf) and _NUMBER_PREFIX.fullmatch(token):
                if not final:
                    return -1, None
                raise self._fail(i, f"incomplete number {token!r}")
            raise self._fail(i, f"invalid number {token!r}")
        if c in _LITERALS:
            word, value = _LITERALS[c]
            got = buf[i : i + len(word)]
            if got == word:
                return i + len(word), value
            if len(got) < len(word) and word.startswith(got):
                return -1, None
        raise self._fail(i, f"unexpected {c!r}")

    def _string(self, buf: str, start: int) -> int:
        """Return the end of the string token at ``start``, or -1 while it is still open."""
        j, n = max(start + 1, self._resume), len(buf)
        while True:
            m = _STRING_SPECIAL.search(buf, j)
            if m is None:
                j = n
                break
            j = m.start()
            if buf[j] == '"':
                return j + 1
            if buf[j] != "\\":
                raise self._fail(j, "control character in string")
            esc = _ESCAPE.match(buf, j)
            if esc is None:
                if _ESCAPE_PREFIX.fullmatch(buf, j):
                    break  # an escape cut short by the end of the text
                raise self._fail(j, "invalid escape")
            j = esc.end()
        self._resume = j  # everything before j is validated; rescan from here next time
        return -1

    def _put(self, value: Any) -> None:
        if not self._stack:
            self._root, self._has_root, self._state = value, True, _DONE
            return
        frame = self._stack[-1]
        if isinstance(frame.container, list):
            frame.container.append(value)
            self._state = _ARR_NEXT
        else:
            frame.container[frame.key] = value
            self._state = _OBJ_NEXT

    def _open(self, container: dict[str, Any] | list[Any]) -> None:
        # Attached to the parent right away, so an open container shows up (partially) at once.
        slot = self._stack[-1].key if self._stack else ""
        self._put(container)
        self._stack.append(_Frame(container, slot))
        self._state = _OBJ_FIRST if isinstance(container, dict) else _ARR_FIRST

    def _close(self) -> None:
        self._stack.pop()
        if not self._stack:
            self._state = _DONE
        else:
            self._state = _ARR_NEXT if isinstance(self._stack[-1].container, list) else _OBJ_NEXT

    def _result(self, snapshot: bool) -> PartialValue | None:
        if not self._has_root:
            return None
        if not self._stack or not snapshot:
            return PartialValue(self._root, not self._stack)
        # Copy only the open spine: finished values are never mutated again.
        copy: Any = None
        for depth in range(len(self._stack) - 1, -1, -1):
            new = self._stack[depth].container.copy()
            if copy is not None:
                if isinstance(new, list):
                    new[-1] = copy
                else:
                    new[self._stack[depth + 1].slot] = copy
            copy = new
        return PartialValue(copy, False)


def parse_partial_json(text: str, *, final: bool = False) -> PartialValue | None:
    """Parse ``text``, a prefix of a JSON document; None if no value is available yet.

    Raises :class:`ValueError` (with the character offset) if ``text`` is not a JSON prefix, or,
    with ``final=True``, if it is not a whole document.
    """
    parser = PartialJSONParser()
    parser._advance(text, final=final)
    return parser.finish() if final else parser._result(snapshot=False)
