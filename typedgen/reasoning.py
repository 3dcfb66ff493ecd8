"""``reasoning=True``: a bounded free-text scratchpad before any structure.

The grammar becomes ``"Reasoning: " SCRATCH "\\nAnswer: " <the output's grammar>``. The scratchpad
is one line (no newline) of at most ``max_chars`` characters, so the first ``"\\nAnswer: "`` in
the text is the separator and the model cannot ramble forever: at the bound, the grammar forces
the separator. The length is counted in 16-character chunks by rules rather than by one
terminal's states, which keeps the lexer small (see ``frontends/jsonschema/scalars.py``).
"""

from __future__ import annotations

from typedgen.ir.grammar import Grammar, Rule
from typedgen.ir.nodes import CharClass, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = ["ANSWER_MARK", "DEFAULT_SCRATCH_CHARS", "REASONING_MARK", "split", "with_scratchpad"]

REASONING_MARK = "Reasoning: "
ANSWER_MARK = "\nAnswer: "
DEFAULT_SCRATCH_CHARS = 1000
_CHUNK = 16
_PREFIX = "typedgen_scratch"


def with_scratchpad(grammar: Grammar, max_chars: int = DEFAULT_SCRATCH_CHARS) -> Grammar:
    """``grammar`` preceded by a scratchpad of at most ``max_chars`` characters."""
    if max_chars < 1:
        raise ValueError(f"the scratchpad needs a positive character bound, not {max_chars}")
    origin = Origin(source="reasoning")
    names = {f"{_PREFIX}_{n}" for n in ("start", "text", "CHUNK", "TAIL")}
    clash = names & set(grammar.rules)
    if clash:
        raise ValueError(f"the grammar already defines {sorted(clash)}; rename those rules")
    line = CharClass.of("\n", negated=True)
    chunks, rest = divmod(max_chars, _CHUNK)
    rules = list(grammar)
    rules.append(
        Rule(f"{_PREFIX}_CHUNK", Repeat(line, _CHUNK, _CHUNK), lexical=True, origin=origin)
    )
    tail_max = rest if chunks == 0 else _CHUNK - 1 + rest
    text: Expr = Repeat(Ref(f"{_PREFIX}_CHUNK"), 0, chunks)
    if tail_max:
        rules.append(
            Rule(f"{_PREFIX}_TAIL", Repeat(line, 1, tail_max), lexical=True, origin=origin)
        )
        text = Seq((text, Repeat(Ref(f"{_PREFIX}_TAIL"), 0, 1)))
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
    )


def split(text: str) -> tuple[str, str]:
    """(scratchpad, answer) of a text generated under :func:`with_scratchpad`."""
    body = text.removeprefix(REASONING_MARK)
    reasoning, sep, answer = body.partition(ANSWER_MARK)
    if not sep:
        return body, ""
    return reasoning, answer
