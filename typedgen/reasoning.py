"""``reasoning=True``: a bounded free-text scratchpad before any structure.

The grammar becomes ``"Reasoning: " SCRATCH "\\nAnswer: " <the output's grammar>``. The scratchpad
is one line (no newline) of at most ``max_chars`` characters, so the first ``"\\nAnswer: "`` in
the text is the separator and the model cannot ramble forever: at the bound, the grammar forces
the separator. The length is counted in 16-character chunks by rules rather than by one
terminal's states, which keeps the lexer small (see ``frontends/jsonschema/scalars.py``).
"""

from __future__ import annotations

from typedgen.errors import GrammarError, OptionError
from typedgen.ir.grammar import Grammar, Rule
from typedgen.ir.nodes import Alt, CharClass, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = ["ANSWER_MARK", "DEFAULT_SCRATCH_CHARS", "REASONING_MARK", "split", "with_scratchpad"]

REASONING_MARK = "Reasoning: "
ANSWER_MARK = "\nAnswer: "
DEFAULT_SCRATCH_CHARS = 1000
_CHUNK = 16
_PREFIX = "typedgen_scratch"


def with_scratchpad(grammar: Grammar, max_chars: int = DEFAULT_SCRATCH_CHARS) -> Grammar:
    """``grammar`` preceded by a scratchpad of at most ``max_chars`` characters."""
    origin = Origin(source="reasoning")
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
        raise OptionError(
            f"the scratchpad needs a positive character bound, not {max_chars!r}",
            code="reasoning-bound",
            origin=origin,
            hint="pass reasoning=True (1000 characters) or a positive int such as reasoning=2000",
        )
    names = {f"{_PREFIX}_{n}" for n in ("start", "text", "CHUNK", "SHORT", "REST")}
    clash = names & set(grammar.rules)
    if clash:
        raise GrammarError(
            f"the grammar already defines {sorted(clash)}, which the scratchpad needs",
            code="reasoning-rule-clash",
            origin=grammar.rules[min(clash)].origin or origin,
            hint=f"rename those rules: the {_PREFIX}_ prefix is reserved for reasoning=True",
        )
    line = CharClass.of("\n", negated=True)
    chunks, rest = divmod(max_chars, _CHUNK)
    rules = list(grammar)

    def terminal(name: str, lo: int, hi: int) -> Ref:
        rules.append(Rule(f"{_PREFIX}_{name}", Repeat(line, lo, hi), lexical=True, origin=origin))
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
    rules.append(
        Rule(
            f"{_PREFIX}_start",
            Seq(
                (
                    Lit.text(REASONING_MARK),
                    Ref(f"{_PREFIX}_text"),
                    Lit.text(ANSWER_MARK),
                    Ref(grammar.start),
                )
            ),
            origin=origin,
        )
    )
    return Grammar(
        rules,
        f"{_PREFIX}_start",
        ignore=grammar.ignore,
        origin=grammar.origin,
        deferred=grammar.deferred,
        reserved=grammar.reserved,
    )


def split(text: str) -> tuple[str, str]:
    """(scratchpad, answer) of a text generated under :func:`with_scratchpad`."""
    body = text.removeprefix(REASONING_MARK)
    reasoning, sep, answer = body.partition(ANSWER_MARK)
    if not sep:
        return body, ""
    return reasoning, answer
