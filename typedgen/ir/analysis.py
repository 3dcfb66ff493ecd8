"""Grammar analysis, computed in one place: reachability, productivity, nullability, FOLLOW.

The IR-level functions work on rule bodies (:func:`reachable_rules`, :func:`productive_rules`,
:func:`nullable`); validation, the exporters, the Lark frontend and the ``&``/``~`` rewriting use
them. The same fixpoints over the lowered integer grammar (productions ``(lhs, rhs)`` over
symbol ids, terminals first), which the compiler's lowering and the Python Earley engine need, are
:func:`bnf_nullable` and :func:`bnf_first_follow`. :func:`closure` is the one graph search behind
every "what can be reached from here".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar, assert_never

from typedgen.ir.nodes import (
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
    walk,
)
from typedgen.ir.rules import Rule

if TYPE_CHECKING:
    from typedgen.ir.grammar import Grammar

__all__ = [
    "bnf_first_follow",
    "bnf_nullable",
    "closure",
    "nullable",
    "productive_rules",
    "reachable_rules",
    "referenced_names",
]

Node = TypeVar("Node", bound=Hashable)
Productions = Sequence[tuple[int, Sequence[int]]]


def closure(roots: Iterable[Node], successors: Callable[[Node], Iterable[Node]]) -> set[Node]:
    """Everything reachable from ``roots`` (the roots included) along ``successors``."""
    seen: set[Node] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(n for n in successors(node) if n not in seen)
    return seen


def referenced_names(expr: Expr) -> list[Ref]:
    """Every rule reference inside ``expr``, in order."""
    return [node for node in walk(expr) if isinstance(node, Ref)]


def _rules(grammar: Grammar | Mapping[str, Rule]) -> Mapping[str, Rule]:
    return grammar if isinstance(grammar, Mapping) else grammar.rules


def reachable_rules(
    grammar: Grammar | Mapping[str, Rule], roots: Iterable[str] | None = None
) -> set[str]:
    """Names of the rules reachable from ``roots`` (default: the grammar's start rule, ignored
    and reserved terminals); references to undefined names are left out."""
    rules = _rules(grammar)
    if roots is None:
        assert not isinstance(grammar, Mapping), "roots are needed without a grammar"
        roots = [grammar.start, *grammar.ignore, *grammar.reserved]
    return closure(
        (name for name in roots if name in rules),
        lambda name: (ref.name for ref in referenced_names(rules[name].body) if ref.name in rules),
    )


def _productive(expr: Expr, known: set[str]) -> bool:
    match expr:
        case Lit():
            return True
        case CharClass():
            return not expr.is_empty()
        case Ref(name=name):
            return name in known
        case Seq(items=items):
            return all(_productive(item, known) for item in items)
        case Alt(items=items):
            return any(_productive(item, known) for item in items)
        case Repeat():
            return expr.min == 0 or _productive(expr.item, known)
        case Intersect(items=items):
            # Exact emptiness of intersections needs automata: the compiler checks it.
            return all(_productive(item, known) for item in items)
        case Complement():
            return True
        case _:
            assert_never(expr)


def productive_rules(grammar: Grammar | Mapping[str, Rule]) -> set[str]:
    """Names of the rules whose language is not empty (least fixpoint; ``&`` is taken as
    non-empty when its operands are, the compiler decides it exactly)."""
    rules = _rules(grammar)
    known: set[str] = set()
    changed = True
    while changed:
        changed = False
        for rule in rules.values():
            if rule.name not in known and _productive(rule.body, known):
                known.add(rule.name)
                changed = True
    return known


def nullable(
    expr: Expr,
    lookup: Callable[[str], Expr] | None = None,
    memo: dict[str, bool] | None = None,
) -> bool:
    """Whether ``expr`` matches the empty string (exact, ``&`` and ``~`` included).

    ``lookup`` gives the body of a referenced rule (without it a reference is not nullable);
    it is meant for terminals, which do not recurse; ``memo`` keeps answers per name across calls.
    """
    match expr:
        case Lit(data=data):
            return not data
        case CharClass():
            return False
        case Ref(name=name):
            if lookup is None:
                return False
            if memo is None:
                return nullable(lookup(name), lookup, memo)
            if name not in memo:
                memo[name] = False  # a guard: terminals never recurse
                memo[name] = nullable(lookup(name), lookup, memo)
            return memo[name]
        case Seq(items=items) | Intersect(items=items):
            return all(nullable(item, lookup, memo) for item in items)
        case Alt(items=items):
            return any(nullable(item, lookup, memo) for item in items)
        case Repeat():
            return expr.min == 0 or nullable(expr.item, lookup, memo)
        case Complement():
            return not nullable(expr.item, lookup, memo)
        case _:
            assert_never(expr)


# -- the lowered integer grammar ------------------------------------------------------------------
def bnf_nullable(productions: Productions, n_symbols: int) -> list[bool]:
    """Per symbol id, whether it derives the empty string (terminals never do)."""
    result = [False] * n_symbols
    changed = True
    while changed:
        changed = False
        for lhs, rhs in productions:
            if not result[lhs] and all(result[s] for s in rhs):
                result[lhs] = changed = True
    return result


def bnf_first_follow(
    productions: Productions, n_terms: int, n_symbols: int
) -> tuple[list[int], list[int]]:
    """FIRST and FOLLOW of every symbol as bitsets of terminal ids (terminals are ``0..T-1``)."""
    null = bnf_nullable(productions, n_symbols)
    first = [1 << t for t in range(n_terms)] + [0] * (n_symbols - n_terms)
    changed = True
    while changed:
        changed = False
        for lhs, rhs in productions:
            acc = 0
            for s in rhs:
                acc |= first[s]
                if not null[s]:
                    break
            if acc & ~first[lhs]:
                first[lhs] |= acc
                changed = True
    follow = [0] * n_symbols
    changed = True
    while changed:
        changed = False
        for lhs, rhs in productions:
            trailer = follow[lhs]
            for s in reversed(rhs):
                if trailer & ~follow[s]:
                    follow[s] |= trailer
                    changed = True
                trailer = (trailer | first[s]) if null[s] else first[s]
    return first, follow
