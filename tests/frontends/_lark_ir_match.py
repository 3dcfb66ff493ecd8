"""A test-only membership oracle for IR grammars under ``Lexing.FREE`` semantics.

The language is the plain context-free one: every terminal (lexical rule) stands for its regular
language, ignored terminals may occur before, between and after the terminals of non-lexical
rules. Terminals are matched by memoised end-position sets over the UTF-8 bytes (``Intersect``
and ``Complement`` included); non-lexical rules by an Earley recogniser over the EBNF expanded
to BNF. Slow and simple on purpose: it is an independent check of what the frontend produced,
not the engine.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from typedgen.ir import Alt, CharClass, Complement, Expr, Grammar, Intersect, Lit, Ref, Repeat, Seq

__all__ = ["IRMatcher", "MatchBudgetExceeded"]


class MatchBudgetExceeded(Exception):
    """The input is too expensive for this naive oracle."""


Symbol = tuple[str, object]  # ("N", name) | ("T", name) | ("X", expr)


@dataclass(frozen=True, slots=True)
class _Production:
    lhs: str
    rhs: tuple[Symbol, ...]


class _Bnf:
    """The non-lexical rules of a grammar as BNF productions."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.productions: dict[str, list[_Production]] = {}
        self.fresh = 0
        for rule in grammar:
            if not rule.lexical:
                self.productions[rule.name] = [
                    _Production(rule.name, rhs) for rhs in self.alternatives(rule.body)
                ]

    def new(self, alternatives: Iterable[tuple[Symbol, ...]]) -> Symbol:
        name = f"#{self.fresh}"
        self.fresh += 1
        self.productions[name] = [_Production(name, rhs) for rhs in alternatives]
        return ("N", name)

    def alternatives(self, expr: Expr) -> list[tuple[Symbol, ...]]:
        if isinstance(expr, Alt):
            return [rhs for item in expr.items for rhs in self.alternatives(item)]
        return [self.sequence(expr)]

    def sequence(self, expr: Expr) -> tuple[Symbol, ...]:
        if isinstance(expr, Seq):
            return tuple(s for item in expr.items for s in self.sequence(item))
        if isinstance(expr, Lit) and not expr.data:
            return ()
        return (self.symbol(expr),)

    def symbol(self, expr: Expr) -> Symbol:
        if isinstance(expr, Ref):
            rule = self.grammar.rules[expr.name]
            return ("T" if rule.lexical else "N", expr.name)
        if isinstance(expr, Alt | Seq):
            return self.new(self.alternatives(expr))
        if isinstance(expr, Repeat):
            item = self.sequence(expr.item)
            head = item * expr.min
            if expr.max is None:
                star = self.new([()])
                self.productions[str(star[1])].append(_Production(str(star[1]), (star, *item)))
                return self.new([(*head, star)])
            extra = expr.max - expr.min
            if extra <= 8:
                return self.new([head + item * k for k in range(extra + 1)])
            tail = self.new([()])
            for _ in range(extra):
                tail = self.new([(), (*item, tail)])
            return self.new([(*head, tail)])
        return ("X", expr)


class IRMatcher:
    """``IRMatcher(grammar).matches(text)``: is ``text`` in the grammar's FREE language?"""

    def __init__(self, grammar: Grammar, *, budget: int = 2_000_000) -> None:
        self.grammar = grammar
        self.bnf = _Bnf(grammar)
        self.budget = budget
        self.classes: dict[int, tuple[list[int], list[int]]] = {}
        self.data = b""
        self.memo: dict[tuple[int, int], frozenset[int]] = {}
        self.skips: dict[int, frozenset[int]] = {}
        self.steps = 0
        self.nullable = self._nullable()

    # -- terminals ---------------------------------------------------------------------
    def _tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.budget:
            raise MatchBudgetExceeded(f"more than {self.budget} steps")

    def _char(self, i: int) -> tuple[int, int] | None:
        data = self.data
        if i >= len(data):
            return None
        b = data[i]
        width = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        try:
            ch = data[i : i + width].decode("utf-8")
        except UnicodeDecodeError:
            return None
        return ord(ch), width

    def _in_class(self, node: CharClass, cp: int) -> bool:
        table = self.classes.get(id(node))
        if table is None:
            ranges = node.codepoints()
            table = ([lo for lo, _ in ranges], [hi for _, hi in ranges])
            self.classes[id(node)] = table
        los, his = table
        k = bisect.bisect_right(los, cp) - 1
        return k >= 0 and cp <= his[k]

    def ends(self, expr: Expr, i: int) -> frozenset[int]:
        """End positions of the matches of ``expr`` starting at byte ``i``."""
        key = (id(expr), i)
        found = self.memo.get(key)
        if found is not None:
            return found
        self._tick()
        result = self._ends(expr, i)
        self.memo[key] = result
        return result

    def _ends(self, expr: Expr, i: int) -> frozenset[int]:
        if isinstance(expr, Lit):
            return (
                frozenset({i + len(expr.data)})
                if self.data.startswith(expr.data, i)
                else frozenset()
            )
        if isinstance(expr, CharClass):
            char = self._char(i)
            if char is not None and self._in_class(expr, char[0]):
                return frozenset({i + char[1]})
            return frozenset()
        if isinstance(expr, Ref):
            return self.ends(self.grammar.rules[expr.name].body, i)
        if isinstance(expr, Seq):
            positions = {i}
            for item in expr.items:
                positions = {j for p in positions for j in self.ends(item, p)}
                if not positions:
                    break
            return frozenset(positions)
        if isinstance(expr, Alt):
            return frozenset(j for item in expr.items for j in self.ends(item, i))
        if isinstance(expr, Intersect):
            positive = [item for item in expr.items if not isinstance(item, Complement)]
            if not positive:
                sets = [self.ends(item, i) for item in expr.items]
                return frozenset.intersection(*sets) if sets else frozenset()
            result = frozenset.intersection(*(self.ends(item, i) for item in positive))
            for item in expr.items:
                if isinstance(item, Complement) and result:
                    result = result - self.ends(item.item, i)
            return result
        if isinstance(expr, Complement):
            inner = self.ends(expr.item, i)
            n = len(self.data)
            return frozenset(
                j
                for j in range(i, n + 1)
                if j not in inner and (j == n or not 0x80 <= self.data[j] < 0xC0)
            )
        if isinstance(expr, Repeat):
            return self._repeat(expr, i)
        raise TypeError(f"unknown IR node {type(expr).__name__}")

    def _repeat(self, expr: Repeat, i: int) -> frozenset[int]:
        result: set[int] = {i} if expr.min == 0 else set()
        level = {i}
        seen: set[int] = set(result)
        count = 0
        while level and (expr.max is None or count < expr.max):
            count += 1
            nxt = {j for p in level for j in self.ends(expr.item, p)}
            self._tick(len(nxt))
            if count >= expr.min:
                if expr.max is None:
                    level = nxt - seen
                    seen |= nxt
                else:
                    level = nxt
                result |= nxt
            else:
                level = nxt
        return frozenset(result)

    # -- ignores -------------------------------------------------------------------------
    def skip(self, i: int) -> frozenset[int]:
        """Positions reachable from ``i`` through zero or more ignored lexemes."""
        found = self.skips.get(i)
        if found is not None:
            return found
        reached = {i}
        stack = [i]
        while stack:
            p = stack.pop()
            for name in self.grammar.ignore:
                for j in self.ends(self.grammar.rules[name].body, p):
                    if j not in reached:
                        reached.add(j)
                        stack.append(j)
        result = frozenset(reached)
        self.skips[i] = result
        return result

    def scan(self, symbol: Symbol, i: int) -> frozenset[int]:
        kind, value = symbol
        if kind == "T":
            assert isinstance(value, str)
            body = self.grammar.rules[value].body
            return frozenset(j for p in self.skip(i) for j in self.ends(body, p))
        assert isinstance(value, Expr)
        return self.ends(value, i)

    # -- Earley ------------------------------------------------------------------------
    def _nullable(self) -> set[str]:
        self.data, self.memo, self.steps = b"", {}, 0
        nullable: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, prods in self.bnf.productions.items():
                if name in nullable:
                    continue
                for prod in prods:
                    if all(self._sym_nullable(s, nullable) for s in prod.rhs):
                        nullable.add(name)
                        changed = True
                        break
        return nullable

    def _sym_nullable(self, symbol: Symbol, nullable: set[str]) -> bool:
        kind, value = symbol
        if kind == "N":
            return value in nullable
        if kind == "X":
            assert isinstance(value, Expr)
            return 0 in self.ends(value, 0)
        return False  # terminals of lark grammars are never empty

    def matches(self, text: str) -> bool:
        """Whether ``text`` is a sentence; raises :class:`MatchBudgetExceeded` when too costly."""
        self.data = text.encode("utf-8")
        self.memo = {}
        self.skips = {}
        self.steps = 0
        n = len(self.data)
        start = self.grammar.start
        sets: list[dict[tuple[_Production, int, int], None]] = [{} for _ in range(n + 1)]
        for prod in self.bnf.productions[start]:
            sets[0][(prod, 0, 0)] = None
        accepted = False
        waiting_at: list[dict[str, list[tuple[_Production, int, int]]]] = []
        for k in range(n + 1):
            agenda = list(sets[k])
            done: set[tuple[_Production, int, int]] = set()
            completed: dict[str, set[int]] = {}
            waiting: dict[str, list[tuple[_Production, int, int]]] = {}
            waiting_at.append(waiting)

            def add(
                item: tuple[_Production, int, int],
                k: int = k,
                agenda: list[tuple[_Production, int, int]] = agenda,
            ) -> None:
                if item not in sets[k]:
                    sets[k][item] = None
                    agenda.append(item)

            while agenda:
                item = agenda.pop()
                if item in done:
                    continue
                done.add(item)
                self._tick()
                prod, dot, origin = item
                if dot == len(prod.rhs):
                    lhs = prod.lhs
                    if lhs == start and origin == 0 and n in self.skip(k):
                        accepted = True
                    if origin == k:
                        completed.setdefault(lhs, set()).add(k)
                    for p2, d2, o2 in list(waiting_at[origin].get(lhs, ())):
                        add((p2, d2 + 1, o2))
                    continue
                symbol = prod.rhs[dot]
                if symbol[0] == "N":
                    name = str(symbol[1])
                    waiting.setdefault(name, []).append(item)
                    for child in self.bnf.productions[name]:
                        add((child, 0, k))
                    if name in self.nullable or name in completed:
                        add((prod, dot + 1, origin))
                    continue
                for j in self.scan(symbol, k):
                    nxt = (prod, dot + 1, origin)
                    if j == k:
                        add(nxt)
                    elif nxt not in sets[j]:
                        sets[j][nxt] = None
        return accepted
