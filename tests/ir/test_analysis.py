"""Grammar analysis (ir/analysis.py): nullability against the compiler's automata, the fixpoints
on small grammars with known answers, FIRST/FOLLOW on the textbook expression grammar."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from typedgen.compiler.automata import expr_to_dfa
from typedgen.ir import (
    Alt,
    CharClass,
    Complement,
    Expr,
    Grammar,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Rule,
    Seq,
)
from typedgen.ir.analysis import (
    bnf_first_follow,
    bnf_nullable,
    closure,
    nullable,
    productive_rules,
    reachable_rules,
)

_leaves = st.sampled_from(
    [Lit(b""), Lit(b"a"), Lit(b"ab"), CharClass.of("ab"), CharClass((), negated=True)]
)


def _exprs() -> st.SearchStrategy[Expr]:
    return st.recursive(
        _leaves,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: Seq(tuple(xs))),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: Alt(tuple(xs))),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: Intersect(tuple(xs))),
            inner.map(Complement),
            st.tuples(inner, st.integers(0, 2), st.sampled_from([None, 2, 3])).map(
                lambda t: Repeat(t[0], t[1], None if t[2] is None else max(t[1], t[2]))
            ),
        ),
        max_leaves=6,
    )


@settings(max_examples=150, deadline=None)
@given(expr=_exprs())
def test_nullable_agrees_with_the_compilers_automaton(expr: Expr) -> None:
    assert nullable(expr) == expr_to_dfa(expr).accepts_empty()


def test_nullable_through_references() -> None:
    bodies = {"A": Repeat(Lit(b"a")), "B": Seq((Ref("A"), Lit(b"b")))}
    memo: dict[str, bool] = {}
    assert nullable(Ref("A"), bodies.__getitem__, memo) and memo == {"A": True}
    assert not nullable(Ref("B"), bodies.__getitem__, memo)
    assert not nullable(Ref("A"))  # without a lookup a reference is not nullable


def test_productive_and_reachable_rules() -> None:
    rules = {
        "start": Rule("start", Alt((Ref("loop"), Ref("x")))),
        "loop": Rule("loop", Seq((Lit(b"("), Ref("loop"), Lit(b")")))),  # never ends
        "x": Rule("x", Repeat(Ref("loop"))),  # empty repetition: productive
        "y": Rule("y", Intersect((CharClass.of("a"), CharClass.of("a")))),
        "z": Rule("z", CharClass(())),  # an empty class
    }
    assert productive_rules(rules) == {"start", "x", "y"}
    assert reachable_rules(rules, ["start"]) == {"start", "loop", "x"}
    grammar = Grammar([Rule("s", Ref("T")), Rule("T", Lit(b"t"), lexical=True)], "s")
    assert reachable_rules(grammar) == {"s", "T"}
    assert closure([0], lambda n: [n + 1] if n < 3 else []) == {0, 1, 2, 3}


def test_first_and_follow_of_the_expression_grammar() -> None:
    # E -> T E'; E' -> + T E' | eps; T -> F T'; T' -> * F T' | eps; F -> ( E ) | id
    plus, times, lpar, rpar, ident, end = range(6)
    e, e2, t, t2, f, s = range(6, 12)
    productions = [
        (s, (e, end)),
        (e, (t, e2)),
        (e2, (plus, t, e2)),
        (e2, ()),
        (t, (f, t2)),
        (t2, (times, f, t2)),
        (t2, ()),
        (f, (lpar, e, rpar)),
        (f, (ident,)),
    ]
    null = bnf_nullable(productions, 12)
    assert [i for i, n in enumerate(null) if n] == [e2, t2]
    first, follow = bnf_first_follow(productions, 6, 12)

    def names(bits: int) -> set[int]:
        return {i for i in range(6) if bits >> i & 1}

    assert names(first[e]) == names(first[t]) == names(first[f]) == {lpar, ident}
    assert names(first[e2]) == {plus} and names(first[t2]) == {times}
    assert names(follow[e]) == names(follow[e2]) == {rpar, end}
    assert names(follow[t]) == names(follow[t2]) == {plus, rpar, end}
    assert names(follow[f]) == {plus, times, rpar, end}
