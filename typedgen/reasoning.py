"""Reasoning before the structure: a bounded free-text scratchpad in front of the output.

Two styles (:class:`Scratchpad`):

- ``"line"`` (``reasoning=True``): ``"Reasoning: " SCRATCH "\\nAnswer: " <the output's grammar>``.
  The scratchpad is one line (no newline) of at most ``max_chars`` characters, so the first
  ``"\\nAnswer: "`` in the text is the separator and the model cannot ramble forever: at the bound,
  the grammar forces the separator.
- ``"fenced"`` (``reasoning="fenced"``): free text, any lines, then the output in a Markdown code
  block: ``TEXT "```" TAG "\\n" <the output's grammar> "\\n```"``, the way chat models answer
  with code when nobody stops them. The text never holds three backticks in a row, so the first
  fence opens the answer; ``max_chars`` bounds its characters other than backticks. The tag is
  the output kind's (``sql``, ``json``; none for plain grammars).

The length is counted in 16-character chunks by rules rather than by one terminal's states,
which keeps the lexer small (see ``frontends/jsonschema/scalars.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from typedgen.errors import GrammarError, OptionError
from typedgen.ir.grammar import Grammar, Rule
from typedgen.ir.nodes import Alt, CharClass, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = [
    "ANSWER_MARK",
    "DEFAULT_SCRATCH_CHARS",
    "FENCE_CLOSE",
    "REASONING_MARK",
    "Scratchpad",
    "scratchpad_from",
    "split",
    "with_scratchpad",
]

REASONING_MARK = "Reasoning: "
ANSWER_MARK = "\nAnswer: "
FENCE = "```"
FENCE_CLOSE = "\n```"
DEFAULT_SCRATCH_CHARS = 1000
_CHUNK = 16
_PREFIX = "typedgen_scratch"


@dataclass(frozen=True)
class Scratchpad:
    """Where the model may reason before the output, and how much (``max_chars``)."""

    style: Literal["line", "fenced"] = "line"
    max_chars: int = DEFAULT_SCRATCH_CHARS
    tag: str | None = None
    """The fenced style's code-block language; ``None``: the output kind's (``sql``, ``json``)."""

    def __post_init__(self) -> None:
        origin = Origin(source="reasoning")
        if self.style not in ("line", "fenced"):
            raise OptionError(
                f"unknown scratchpad style {self.style!r}",
                code="reasoning-bound",
                origin=origin,
                hint='use reasoning=True (one "Reasoning:" line) or reasoning="fenced"',
            )
        bound = self.max_chars
        if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
            raise OptionError(
                f"the scratchpad needs a positive character bound, not {bound!r}",
                code="reasoning-bound",
                origin=origin,
                hint="pass reasoning=True (1000 characters) or a positive int, e.g. reasoning=2000",
            )
        if self.tag and not self.tag.isalnum():
            raise OptionError(
                f"a code block's tag is letters and digits, not {self.tag!r}",
                code="reasoning-bound",
                origin=origin,
                hint='leave the tag to the output kind ("sql", "json") or pass tag="" for none',
            )

    @property
    def answer_mark(self) -> str:
        """The text right before the answer."""
        return ANSWER_MARK if self.style == "line" else f"{FENCE}{self.tag or ''}\n"

    @property
    def answer_end(self) -> str | None:
        """Text that, once seen after the answer's mark, ends the answer: the closing fence's
        first two characters (a JSON answer never holds a raw newline before a backtick)."""
        return FENCE_CLOSE[:2] if self.style == "fenced" else None

    def grammar(self, answer: Grammar) -> Grammar:
        """``answer``'s grammar behind this scratchpad."""
        return with_scratchpad(answer, self.max_chars, style=self.style, tag=self.tag or "")

    def split(self, text: str) -> tuple[str, str, int]:
        """(scratchpad, answer, where the answer starts in ``text``) of a generated text; the
        answer is empty while its mark has not been written."""
        if self.style == "line":
            body = text.removeprefix(REASONING_MARK)
            reasoning, sep, answer = body.partition(ANSWER_MARK)
            if not sep:
                return body, "", len(text)
            return reasoning, answer, len(text) - len(answer)
        mark = self.answer_mark
        at = text.find(mark)
        if at < 0:
            return text, "", len(text)
        answer = text[at + len(mark) :]
        return text[:at], answer.removesuffix(FENCE_CLOSE), at + len(mark)

    def instruction(self) -> str | None:
        """What the prompt says about the scratchpad (the line style's marks are forced)."""
        if self.style == "line":
            return None
        block = f"a ```{self.tag} code block" if self.tag else "a ``` code block"
        return f"You may explain first; then write the answer in {block}."


def scratchpad_from(value: object) -> Scratchpad | None:
    """The scratchpad a ``reasoning=`` option asks for (``None``: none)."""
    if value is None or value is False:
        return None
    if isinstance(value, Scratchpad):
        return value
    if value is True:
        return Scratchpad()
    if value == "fenced":
        return Scratchpad("fenced")
    if isinstance(value, int):
        return Scratchpad(max_chars=value)
    raise OptionError(
        f'reasoning must be True, False, a bound, "fenced" or a Scratchpad, not {value!r}',
        code="reasoning-bound",
        origin=Origin(source="reasoning"),
        hint='e.g. reasoning=True, reasoning=2000, reasoning="fenced" or'
        ' reasoning=typedgen.Scratchpad("fenced", max_chars=400)',
    )


def with_scratchpad(
    grammar: Grammar,
    max_chars: int = DEFAULT_SCRATCH_CHARS,
    *,
    style: Literal["line", "fenced"] = "line",
    tag: str = "",
) -> Grammar:
    """``grammar`` preceded by a scratchpad of at most ``max_chars`` characters."""
    Scratchpad(style, max_chars, tag)  # checks the options
    origin = Origin(source="reasoning")
    names = {f"{_PREFIX}_{n}" for n in ("start", "text", "CHUNK", "SHORT", "REST")}
    clash = names & set(grammar.rules)
    if clash:
        raise GrammarError(
            f"the grammar already defines {sorted(clash)}, which the scratchpad needs",
            code="reasoning-rule-clash",
            origin=grammar.rules[min(clash)].origin or origin,
            hint=f"rename those rules: the {_PREFIX}_ prefix is reserved for reasoning=True",
        )
    unit: Expr
    if style == "line":
        unit = CharClass.of("\n", negated=True)
    else:  # a character other than a backtick, after at most two backticks
        other = CharClass.of("`", negated=True)
        tick = Lit.text("`")
        unit = Alt((other, Seq((tick, other)), Seq((tick, tick, other))))
    chunks, rest = divmod(max_chars, _CHUNK)
    rules = list(grammar)

    def terminal(name: str, lo: int, hi: int) -> Ref:
        rules.append(Rule(f"{_PREFIX}_{name}", Repeat(unit, lo, hi), lexical=True, origin=origin))
        return Ref(f"{_PREFIX}_{name}")

    # Lengths below chunks*16: up to chunks-1 full chunks and a short tail; from chunks*16 on:
    # every chunk and a tail of at most `rest`. The two sets of lengths are disjoint.
    short = terminal("SHORT", 1, _CHUNK - 1)
    text: Expr = Repeat(short, 0, 1)
    if chunks:
        chunk = terminal("CHUNK", _CHUNK, _CHUNK)
        full: Expr = Repeat(chunk, chunks, chunks)
        if rest:
            tail = short if rest == _CHUNK - 1 else terminal("REST", 1, rest)
            full = Seq((full, Repeat(tail, 0, 1)))
        below = Seq((Repeat(chunk, 0, chunks - 1), Repeat(short, 0, 1)))
        text = Alt((below, full))
    elif rest < _CHUNK - 1:
        text = Repeat(terminal("REST", 1, rest), 0, 1)
        rules.remove(next(r for r in rules if r.name == f"{_PREFIX}_SHORT"))
    rules.append(Rule(f"{_PREFIX}_text", text, origin=origin))
    if style == "line":
        body: tuple[Expr, ...] = (
            Lit.text(REASONING_MARK),
            Ref(f"{_PREFIX}_text"),
            Lit.text(ANSWER_MARK),
            Ref(grammar.start),
        )
    else:
        body = (
            Ref(f"{_PREFIX}_text"),
            Lit.text(f"{FENCE}{tag}\n"),
            Ref(grammar.start),
            Lit.text(FENCE_CLOSE),
        )
    rules.append(Rule(f"{_PREFIX}_start", Seq(body), origin=origin))
    return Grammar(
        rules,
        f"{_PREFIX}_start",
        ignore=grammar.ignore,
        origin=grammar.origin,
        deferred=grammar.deferred,
        reserved=grammar.reserved,
    )


def split(text: str) -> tuple[str, str]:
    """(scratchpad, answer) of a text generated under :func:`with_scratchpad` (line style)."""
    reasoning, answer, _ = Scratchpad().split(text)
    return reasoning, answer
