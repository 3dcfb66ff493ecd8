"""Does a grammar accept these texts? typedgen's matcher, byte by byte, and a second opinion.

``typedgen check GRAMMAR SAMPLE...`` runs this: each sample is fed to the compiled grammar's
matcher over a byte vocabulary (the same engine that masks tokens), so a refusal is found at the
exact byte, with what the grammar would have allowed there. The second opinion is lark's own
Earley parser for Lark grammars, or the output type's binder (a DSL class's ``parse``, which
also runs its methods); a disagreement between the two is reported as a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.ir.grammar import Grammar

__all__ = ["SampleReport", "byte_vocabulary", "check_sample", "describe_allowed"]

Oracle = Callable[[str], object]


def byte_vocabulary() -> Vocabulary:
    """One token per byte, plus EOS (id 0): the matcher then accepts any byte string."""
    return Vocabulary([b"", *(bytes([b]) for b in range(256))], eos_ids=[0], name="bytes")


@dataclass(frozen=True)
class SampleReport:
    """The verdict on one sample."""

    name: str
    accepted: bool
    """typedgen's matcher accepts the whole text as a sentence."""
    line: int | None = None
    column: int | None = None
    found: str | None = None
    """What the text has where the grammar stops it (``None`` at the end of the text)."""
    expected: str | None = None
    oracle: str | None = None
    """Who gave the second opinion (``lark``, ``Robot.parse``), ``None`` when nobody did."""
    oracle_error: str | None = None
    """The second opinion's objection, ``None`` when it accepts."""

    @property
    def ok(self) -> bool:
        return self.accepted and self.oracle_error is None

    def render(self) -> str:
        """One line (two with a second opinion's objection) for the command line."""
        head = f"{self.name}: "
        if self.accepted:
            text = head + "OK"
        elif self.found is None:
            text = f"{head}FAIL at {self.line}:{self.column}: the text ends too early; expected"
            text += f" {self.expected}"
        else:
            text = f"{head}FAIL at {self.line}:{self.column}: unexpected {self.found};"
            text += f" expected {self.expected}"
        if self.oracle_error is not None:
            if self.accepted:
                text = f"{head}MISMATCH: typedgen accepts the text, {self.oracle} does not"
            text += f"\n  {self.oracle}: {self.oracle_error}"
        elif self.oracle is not None and not self.accepted:
            text += f"\n  {self.oracle}: accepts the text (the two disagree)"
        return text


def _char(b: int) -> str:
    if b == 0x27:
        return '"\'"'
    if 0x20 <= b < 0x7F:
        return f"'{chr(b)}'"
    named = {0x09: "'\\t'", 0x0A: "'\\n'", 0x0D: "'\\r'"}
    return named.get(b, f"'\\x{b:02x}'")


def describe_allowed(allowed: bytes, complete: bool, forced: bytes = b"") -> str:
    """What may come next, for people: ``'=' or ' '``, ``'a'..'z'``, ``end of text``."""
    if forced:
        return repr(forced.decode("utf-8", errors="replace"))
    parts: list[str] = []
    values = sorted(set(allowed))
    ascii_values = [b for b in values if b < 0x80]
    i = 0
    while i < len(ascii_values):
        j = i
        while j + 1 < len(ascii_values) and ascii_values[j + 1] == ascii_values[j] + 1:
            j += 1
        lo, hi = ascii_values[i], ascii_values[j]
        if hi - lo >= 2:
            parts.append(f"{_char(lo)}..{_char(hi)}")
        else:
            parts.extend(_char(b) for b in range(lo, hi + 1))
        i = j + 1
    if any(b >= 0x80 for b in values):
        parts.append("non-ASCII text")
    if complete:
        parts.append("end of text")
    if not parts:
        return "nothing (dead end)"
    return parts[0] if len(parts) == 1 else "one of " + ", ".join(parts)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    before = data[:offset]
    line = before.count(b"\n") + 1
    line_start = before.rfind(b"\n") + 1
    column = len(before[line_start:].decode("utf-8", errors="replace")) + 1
    return line, column


def _found(data: bytes, offset: int) -> str:
    tail = data[offset : offset + 12]
    text = tail.decode("utf-8", errors="replace").split("\n")[0] or tail[:1].decode(
        "utf-8", errors="replace"
    )
    return repr(text)


def check_sample(
    compiled: CompiledGrammar,
    data: bytes,
    name: str,
    oracle: tuple[str, Oracle] | None = None,
) -> SampleReport:
    """Feed ``data`` to a matcher; on refusal, say where and what was expected."""
    matcher = compiled.matcher()
    if matcher.accept_bytes(data) and matcher.is_complete():
        report = SampleReport(name, True)
    else:
        matcher = compiled.matcher()
        offset = 0
        # Whole lines first (cheap), then byte by byte inside the line that fails.
        for line in data.splitlines(keepends=True):
            if not matcher.accept_bytes(line):
                break
            offset += len(line)
        while offset < len(data) and matcher.accept_bytes(data[offset : offset + 1]):
            offset += 1
        at_end = offset >= len(data)
        line_no, column = _position(data, offset)
        expected = describe_allowed(
            matcher.allowed_bytes(), matcher.is_complete(), matcher.forced_bytes()
        )
        report = SampleReport(
            name,
            False,
            line_no,
            column,
            None if at_end else _found(data, offset),
            expected,
        )
    if oracle is None:
        return report
    who, parse = oracle
    try:
        parse(data.decode("utf-8"))
    except Exception as exc:  # any objection is reported, whatever its type
        lines = str(exc).strip().splitlines()
        return _with(report, who, f"{type(exc).__name__}: {lines[0] if lines else ''}".strip())
    return _with(report, who, None)


def _with(report: SampleReport, who: str, error: str | None) -> SampleReport:
    from dataclasses import replace

    return replace(report, oracle=who, oracle_error=error)


def compile_for_check(grammar: Grammar) -> CompiledGrammar:
    """The grammar compiled over the byte vocabulary."""
    from typedgen.api import compile as compile_grammar

    return compile_grammar(grammar, byte_vocabulary())
