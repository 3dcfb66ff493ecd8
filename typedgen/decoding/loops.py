"""Degenerate loops (in free text, numbers and structure): detect a repeating unit, then stop it.

A small model under a grammar mask often writes a string or identifier that never ends
(``"https://www.youtube.com/embed_video_embed_embed_embed..."``) until the token budget runs
out. The mask cannot help: every byte of a string is allowed. The guard watches each row's last
tokens for a unit of 1 to ``max_unit`` tokens repeated ``repeats`` times in a row. A candidate
is a loop in three cases:

- free text: the whole repeated span lies inside *one* free-text lexeme (the matcher walks the
  span's bytes: it ends in free text, :meth:`~typedgen.runtime.matcher.Matcher.in_free_text`,
  and no byte of it leaves the lexeme,
  :meth:`~typedgen.runtime.matcher.Matcher.inside_lexeme`). A phrase (``PHRASE_TOKENS`` or more
  tokens, ``phrase_bytes`` or more bytes) counts at its second occurrence;
- digits: the span is a run of at least ``DIGIT_RUN_BYTES`` digits (``id = 10000000000000000``,
  ``"n": 1234123412341234``). Numbers are not free text, but 16 digits are past what a double
  holds exactly, and a unit repeated that long is a runaway number far more often than a meant
  one (``1000000000000000``, 10^15, is left alone);
- structure: the unit crosses lexemes but spans at least ``structure_bytes``
  (``"height_width":10,`` again and again, a schema nested in itself). Such a loop is only
  penalised, never closed;
- a long run: a shorter unit that crosses lexemes and holds a letter or digit, repeated until
  its repetitions in a row span ``run_bytes`` (``1, 1, 1, ...`` sixteen times in an SQL ``IN``
  list). Penalised from there on, never closed. A few repeated items (``"stop", "stop"``) and
  runs of punctuation (``)))``) are never touched.

Then:

- ``"penalty"``: the tokens that would write the unit again (every token spelling a prefix of
  it) lose ``penalty`` from their logits, doubled at each further repetition; the grammar mask
  still applies, so the output stays valid.
- ``"close"``: the repetitions after the first are rolled back (tokens, matcher and KV cache),
  and the next token is chosen among those that end the lexeme where the grammar allows it
  (a closing quote); where it does not, the penalty applies.
- ``"penalty+close"`` (the default): the penalty first; once the guard has met a loop at
  ``close_after`` positions of one stretch of text (the same unit coming back, or the model
  moving from one loop to the next, as small models do), close. A run of digits closes at
  once, back to its first unit (a penalty only moves a runaway number on to another digit).

A number that runs on without repeating a unit (``1234567890000000000000000123...``) is closed
too: once ``number_digits`` digits end the text, the next token must end the lexeme (or, where
the grammar wants more than digits there, at least not be a digit).

Detection costs a few list comparisons per token; the byte walk runs only on a candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from typedgen.errors import OptionError

if TYPE_CHECKING:
    from typedgen.compiler.trie import TokenTrie
    from typedgen.runtime.matcher import Matcher

__all__ = [
    "DIGIT_RUN_BYTES",
    "PHRASE_TOKENS",
    "LoopEvent",
    "LoopGuard",
    "Repetition",
    "digit_run",
    "find_repetition",
    "long_run",
    "loop_guard_from",
    "run_eligible",
    "run_start",
    "trailing_digits",
]

ACTIONS = ("penalty", "close", "penalty+close")
PHRASE_TOKENS = 4
"""The fewest tokens of a unit that counts in free text at its second occurrence (a phrase)."""
DIGIT_RUN_BYTES = 16
"""A repeated run of digits this long is a runaway number (see the module's docstring)."""


@dataclass(frozen=True)
class LoopGuard:
    """Settings of the loop guard (``loop_guard=`` on ``generate``; ``False`` turns it off)."""

    action: str = "penalty+close"
    repeats: int = 3
    """A unit must appear this many times in a row before it counts as a loop."""
    max_unit: int = 32
    """The longest unit looked for, in tokens."""
    min_bytes: int = 12
    """Shorter repeated spans are left alone (``"....."``, ``"=="``)."""
    penalty: float = 4.0
    """Logit penalty on tokens that continue the unit, doubled at each further repetition."""
    phrase_bytes: int = 16
    """In free text, a unit of at least ``PHRASE_TOKENS`` tokens and this many bytes counts
    already at its second occurrence in a row (``"that is a valid JSON object that is a valid
    JSON object"``). ``0`` waits for ``repeats`` occurrences of every unit."""
    structure_bytes: int = 16
    """A unit that crosses lexemes (a key and its value, a nested object, a list item) counts
    as a loop when it spans at least this many bytes; it is penalised, never closed. ``0``
    turns structural loops off."""
    run_bytes: int = 48
    """A unit shorter than ``structure_bytes`` that crosses lexemes counts as a loop once its
    repetitions in a row span this many bytes and it holds an ASCII letter or digit (``1, ``
    sixteen times; ``"stop", `` seven times); penalised from there on, never closed. ``0``
    turns the rule off (``structure_bytes=0`` turns off both rules across lexemes)."""
    number_digits: int = 24
    """A run of this many digits, repeated or not, is a runaway number: the next token must end
    the lexeme where the grammar allows it, else at least leave the digits (a pattern's
    ``(\\d+)\\.``); ``1234567890000000000000000123...``: 24 digits are beyond any 64-bit
    integer. ``0`` turns the rule off."""
    close_after: int = 3
    """With ``"penalty+close"``: loops met in one stretch of text before the lexeme is closed
    (a stretch ends when no loop is met for ``max_unit * repeats`` tokens)."""

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise OptionError(
                f"LoopGuard action must be one of {ACTIONS}, not {self.action!r}",
                code="option-value",
                hint="or pass loop_guard=False to turn the guard off",
            )
        if (
            self.repeats < 2
            or self.max_unit < 1
            or min(
                self.min_bytes,
                self.phrase_bytes,
                self.structure_bytes,
                self.run_bytes,
                self.number_digits,
                self.penalty,
            )
            < 0
        ):
            raise OptionError(
                "LoopGuard needs repeats >= 2, max_unit >= 1, and min_bytes, phrase_bytes,"
                " structure_bytes, run_bytes, number_digits and penalty >= 0",
                code="option-value",
                hint="the defaults are repeats=3, max_unit=32, min_bytes=12, phrase_bytes=16,"
                " structure_bytes=16, run_bytes=48, number_digits=24, penalty=4.0",
            )
        if self.close_after < 1:
            raise OptionError(
                f"LoopGuard close_after must be >= 1, not {self.close_after}",
                code="option-value",
                hint="or choose action='penalty' to never close",
            )


@dataclass(frozen=True)
class LoopEvent:
    """A loop the guard met: where (tokens before its first repetition), what, and what it did.

    ``action`` is ``"penalty"`` (continuations penalised) or ``"closed"`` (rolled back to one
    unit and the lexeme closed). ``attempt`` is the attempt's index in ``Details.attempts``.
    """

    token_index: int
    unit: str
    repeats: int
    action: str
    attempt: int = 0


@dataclass(frozen=True)
class Repetition:
    """A repeated unit at the end of a row's tokens."""

    unit: tuple[int, ...]
    repeats: int
    start: int
    """Index of the first token of the first repetition."""


def loop_guard_from(value: object) -> LoopGuard | None:
    """The guard for an option value: ``True``/``None`` -> defaults, ``False`` -> off."""
    if value is None or value is True:
        return LoopGuard()
    if value is False:
        return None
    if isinstance(value, LoopGuard):
        return value
    if isinstance(value, str):
        return LoopGuard(action=value)
    raise OptionError(
        f"loop_guard must be True, False, an action name or a LoopGuard, not {value!r}",
        code="option-value",
        hint="e.g. loop_guard=typedgen.LoopGuard(action='close', repeats=4)",
    )


def find_repetition(tokens: list[int], guard: LoopGuard) -> Repetition | None:
    """The shortest unit the tokens end with, repeated at least ``guard.repeats`` times, or,
    with ``guard.phrase_bytes``, a unit of ``PHRASE_TOKENS`` or more repeated twice (the caller
    checks that such a phrase is long enough and in free text)."""
    n_tokens = len(tokens)
    for size in range(1, guard.max_unit + 1):
        needed = 2 if guard.phrase_bytes and size >= PHRASE_TOKENS else guard.repeats
        if n_tokens < size * min(needed, guard.repeats):
            break
        if n_tokens < size * needed:
            continue
        unit = tokens[n_tokens - size :]
        count = 1
        end = n_tokens - size
        while end >= size and tokens[end - size : end] == unit:
            count += 1
            end -= size
        if count >= needed:
            return Repetition(tuple(unit), count, end)
    return None


def inside_free_text(matcher: Matcher, span: bytes, span_tokens: int) -> bool:
    """Whether the last ``span_tokens`` tokens (``span``) lie in one free-text lexeme."""
    if matcher.num_accepted < span_tokens or matcher.is_terminated():
        return False
    probe = matcher.fork()
    probe.rollback(span_tokens)
    # The first byte may begin the lexeme (an identifier); every later one must stay in it.
    for b in span:
        if not probe.accept_bytes(bytes((b,))) or not probe.inside_lexeme():
            return False
    return probe.in_free_text()


def trailing_digits(tokens: list[int], pieces: Sequence[bytes], limit: int) -> int:
    """How many ASCII digits end the text of ``tokens``, counted up to ``limit`` (one strip of
    the last token's bytes per step while the text does not end in digits)."""
    count = 0
    for token in reversed(tokens):
        piece = pieces[token]
        rest = piece.rstrip(b"0123456789")
        count += len(piece) - len(rest)
        if rest or count >= limit:
            break
    return count


def run_eligible(unit: bytes, run_bytes: int) -> bool:
    """Whether repetitions of a short ``unit`` may ever make a long run: ``run_bytes`` is on
    (not ``0``) and the unit holds an ASCII letter or digit."""
    return run_bytes > 0 and any(chr(b).isalnum() for b in unit if b < 0x80)


def long_run(unit: bytes, span: bytes, run_bytes: int) -> bool:
    """Whether repetitions of a short ``unit`` spanning ``span`` are a long run: at least
    ``run_bytes`` of a unit that may make one (:func:`run_eligible`)."""
    return run_eligible(unit, run_bytes) and run_bytes <= len(span)


def run_start(unit: bytes, guard: LoopGuard) -> int:
    """The repetitions at which a long run of ``unit`` first counts (its penalty's base)."""
    return max(guard.repeats, -(-guard.run_bytes // max(len(unit), 1)))


def digit_run(span: bytes) -> bool:
    """Whether a repeated span is a run of ASCII digits (a runaway number)."""
    return bool(span) and span.isdigit()


def tokens_spelling_prefix(trie: TokenTrie, data: bytes) -> npt.NDArray[np.int64]:
    """Every text token whose bytes are a non-empty prefix of ``data`` (a walk down the trie)."""
    found: list[int] = []
    node = 0
    starts, nodes, labels = trie.child_start, trie.child_node, trie.child_byte
    for b in data:
        lo, hi = int(starts[node]), int(starts[node + 1])
        children = labels[lo:hi]
        k = int(np.searchsorted(children, b))
        if k >= children.shape[0] or int(children[k]) != b:
            break
        node = int(nodes[lo + k])
        found.extend(trie.tok_ids[int(trie.tok_start[node]) : int(trie.tok_start[node + 1])])
    return np.asarray(sorted(set(found)), dtype=np.int64)


def closing_bytes(matcher: Matcher) -> frozenset[int]:
    """The bytes allowed next after which the lexeme has ended: no longer inside free text,
    nor inside a lexeme that cannot end there (a string's backslash starts an escape: closing
    on it let a looping string go on as a run of escaped backslashes), nor a digit (a number
    may end after any digit, but one more digit does not end a runaway number). The bytes the
    grammar forces after ``b`` are taken too: a closing brace the grammar lexes together with
    the next one (``}}``) leaves a lexeme open for one byte, yet ends the number."""
    out = set()
    for b in matcher.allowed_bytes():
        if 0x30 <= b <= 0x39:
            continue
        probe = matcher.fork()
        if not probe.accept_bytes(bytes((b,))):
            continue
        if probe.inside_lexeme():
            forced = probe.forced_bytes()
            if not forced or not probe.accept_bytes(forced) or probe.inside_lexeme():
                continue
        out.add(b)
    return frozenset(out)
