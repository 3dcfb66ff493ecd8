"""IR grammar -> parser grammar: terminals as byte DFAs, rules as plain BNF productions.

Three things happen here:

* **Terminals.** Lexical rules used by rules (or ignored) become lexer terminals. Literals and
  classes inside rules become anonymous terminals. For scannerless (``Lexing.FREE``) parts, any
  maximal run of regular material inside a sequence, and any non-recursive rule made only of
  such material, is fused into one terminal: the language is unchanged (free terminals may end
  anywhere their pattern matches) and the parser has far fewer steps to take.
* **EBNF to BNF.** Alternations, groups and repetitions become helper nonterminals (left
  recursion for unbounded repeats, a linear chain for bounded ones).
* **Empty strings.** Terminals never match the empty string; a nullable terminal ``T`` becomes a
  nullable helper ``T? -> ε | T⁺``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from typedgen.compiler.automata import DEFAULT_STATE_BUDGET, DFA, expr_to_dfa
from typedgen.errors import CompileBudgetError
from typedgen.ir.analysis import bnf_first_follow
from typedgen.ir.grammar import Grammar, Lexing
from typedgen.ir.nodes import (
    Alt,
    CharClass,
    Expr,
    Lit,
    Ref,
    Repeat,
    Seq,
)
from typedgen.ir.origin import Origin
from typedgen.ir.passes import referenced_names
from typedgen.ir.printer import print_expr

__all__ = ["ParserGrammar", "Terminal", "lower"]

RULE_BUDGET = 200_000
"""Most grammar symbols a counted repetition of rules may unroll into (``X{m,n}`` costs about
``m * len(X) + (n - m)``); past it the lowering refuses with ``rule-budget``."""
FUSE_BUDGET = 2_000
"""Largest DFA (states) a fused run of free material may have before it stays a rule."""


@dataclass(frozen=True, eq=False)
class Terminal:
    """A lexer terminal: a non-empty regular language over bytes, with its lexing mode."""

    name: str
    dfa: DFA
    lexing: Lexing
    priority: int
    literal: bool
    origin: Origin | None = None


@dataclass(frozen=True, eq=False)
class ParserGrammar:
    """BNF over terminal ids ``0..T-1`` and nonterminal ids ``T..T+N-1``.

    ``productions[i] = (lhs, rhs)``; ``start`` is the augmented start nonterminal whose single
    production is ``start -> <user start>``.
    """

    terminals: tuple[Terminal, ...]
    nonterminals: tuple[str, ...]
    productions: tuple[tuple[int, tuple[int, ...]], ...]
    start: int
    ignore: tuple[int, ...]
    nt_origins: tuple[Origin | None, ...] = field(default=())
    follow: tuple[int, ...] = field(default=())
    """Per terminal: bitset of the terminals that may come right after it (ignores included)."""
    first: int = 0
    """Bitset of the terminals that may begin the text (ignores included)."""

    @property
    def n_terminals(self) -> int:
        return len(self.terminals)

    def place(self, terminals: Iterable[int] = ()) -> Origin | None:
        """Where to point an error about these terminals: the first one with an origin, else
        the grammar's start rule."""
        for t in terminals:
            origin = self.terminals[t].origin
            if origin is not None:
                return origin
        k = self.start - len(self.terminals)
        return self.nt_origins[k] if 0 <= k < len(self.nt_origins) else None

    def symbol_name(self, sym: int) -> str:
        """Readable name of a symbol id (for errors and debugging)."""
        t = len(self.terminals)
        return self.terminals[sym].name if sym < t else self.nonterminals[sym - t]


WIDE_LOOP = 48
"""A DFA state looping on this many bytes marks free-text material (strings, comments)."""


def is_wide(dfa: DFA) -> bool:
    """Whether some state of ``dfa`` loops on itself over many bytes (free-text material).

    Such terminals are kept separate and shared instead of being copied into fused terminals:
    every copy would cost a full token-table sweep.
    """
    states = np.arange(dfa.n_states)[:, None]
    return bool(((dfa.trans == states).sum(axis=1) >= WIDE_LOOP).any())


def _is_free_regular(
    expr: Expr, grammar: Grammar, regular_rules: set[str], wide: Callable[[str], bool]
) -> bool:
    """Whether ``expr`` is regular material that may be fused into a free terminal.

    References to named free-text terminals (see :func:`is_wide`) are not fusable: they stay
    shared terminals.
    """
    if grammar.ignore:
        # Ignored terminals may appear between any two lexemes: fusing would drop those places.
        return False
    if isinstance(expr, Lit | CharClass):
        return True
    if isinstance(expr, Ref):
        rule = grammar.rules[expr.name]
        if rule.lexical:
            ok = rule.lexing is Lexing.FREE and not rule.priority
        else:
            ok = expr.name in regular_rules
        return ok and not wide(expr.name)
    if isinstance(expr, Seq | Alt):
        return all(_is_free_regular(item, grammar, regular_rules, wide) for item in expr.items)
    if isinstance(expr, Repeat):
        return _is_free_regular(expr.item, grammar, regular_rules, wide)
    return False


def _recursive_rules(grammar: Grammar) -> set[str]:
    """Names of non-lexical rules that take part in a reference cycle (Tarjan's SCC)."""
    graph = {
        name: [r.name for r in referenced_names(rule.body)]
        for name, rule in grammar.rules.items()
        if not rule.lexical
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: set[str] = set()
    counter = [0]

    def strong(v: str) -> None:
        work = [(v, iter(graph[v]))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph[w])))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    result.update(component)

    for name in graph:
        if name not in index:
            strong(name)
    return result


class _Lowerer:
    def __init__(self, grammar: Grammar, budget: int) -> None:
        self.g = grammar
        self.budget = budget
        self._unrolled = 0
        self.rule_dfas: dict[str, DFA] = {}
        self.terminals: list[Terminal] = []
        # key -> terminal id: ``rule:<name>`` for named terminals, ``("anon", expr)`` for
        # anonymous ones (expressions compare and hash without their origins, like their
        # canonical text, at a fraction of printing's cost).
        self.term_index: dict[str | tuple[str, Expr], int] = {}
        self.nt_names: list[str] = []
        self.nt_origins: list[Origin | None] = []
        self.nt_index: dict[str, int] = {}
        self.productions: list[tuple[int, tuple[int, ...]]] = []
        self.helper_cache: dict[tuple[str, Expr], int] = {}
        self.regular: set[str] = set()
        self._wide: dict[str, bool] = {}
        # Nullable terminal id -> the nullable helper nonterminal that stands for it.
        self.pending_nullable: dict[int, int] = {}

    # -- terminal automata ---------------------------------------------------------------
    def rule_dfa(self, name: str) -> DFA:
        dfa = self.rule_dfas.get(name)
        if dfa is None:
            rule = self.g.rules[name]
            dfa = expr_to_dfa(rule.body, self._resolve, budget=self.budget, origin=rule.origin)
            self.rule_dfas[name] = dfa
        return dfa

    def _resolve(self, ref: Ref) -> DFA:
        return self.rule_dfa(ref.name)

    def wide(self, name: str) -> bool:
        """Whether the named lexical or regular rule is free-text material (not to be copied)."""
        found = self._wide.get(name)
        if found is None:
            rule = self.g.rules[name]
            if not rule.lexical and name not in self.rule_dfas:
                return False
            found = self._wide[name] = is_wide(self.rule_dfa(name))
        return found

    # -- symbols -------------------------------------------------------------------------
    def nt(self, name: str, origin: Origin | None) -> int:
        idx = self.nt_index.get(name)
        if idx is None:
            idx = self.nt_index[name] = len(self.nt_names)
            self.nt_names.append(name)
            self.nt_origins.append(origin)
        return idx

    def _add_terminal(
        self,
        key: str | tuple[str, Expr],
        name: str,
        dfa: DFA,
        lexing: Lexing,
        priority: int,
        literal: bool,
        origin: Origin | None,
    ) -> list[int]:
        """Register a terminal; return the symbol list it stands for (``[]`` if only ε)."""
        if key in self.term_index:
            return self._use(self.term_index[key])
        if dfa.is_empty():
            # A terminal whose language is empty (an intersection the frontends could not
            # decide) makes its production dead: it refers to a nonterminal without productions.
            self.term_index[key] = _VOID_TID
            return self._use(_VOID_TID)
        nullable = dfa.accepts_empty()
        body = dfa.without_empty() if nullable else dfa
        tid = len(self.terminals)
        if body.is_empty():
            tid = -1  # matches only the empty string
        else:
            self.terminals.append(Terminal(name, body, lexing, priority, literal, origin))
        self.term_index[key] = tid
        if nullable and tid >= 0:
            opt = self.nt(f"{name}?", origin)
            self.productions.append((opt, ()))
            self.productions.append((opt, (tid,)))
            self.pending_nullable[tid] = opt
        return self._use(tid)

    def _use(self, tid: int) -> list[int]:
        if tid == _VOID_TID:
            return [self.nt("%void", None) + _NT_MARK]
        if tid < 0:
            return []
        opt = self.pending_nullable.get(tid)
        return [opt + _NT_MARK] if opt is not None else [tid]

    def lexical_symbol(self, name: str) -> list[int]:
        rule = self.g.rules[name]
        literal = isinstance(rule.body, Lit)
        return self._add_terminal(
            f"rule:{name}",
            name,
            self.rule_dfa(name),
            rule.lexing,
            rule.priority,
            literal,
            rule.origin,
        )

    def anonymous_symbol(self, expr: Expr, origin: Origin | None) -> list[int]:
        key = ("anon", expr)
        if key in self.term_index:
            return self._use(self.term_index[key])
        dfa = expr_to_dfa(expr, self._resolve, budget=self.budget, origin=origin)
        text = print_expr(expr)
        label = text if len(text) <= 40 else text[:37] + "..."
        return self._add_terminal(key, label, dfa, Lexing.FREE, 0, isinstance(expr, Lit), origin)

    # -- rules -----------------------------------------------------------------------------
    def classify(self) -> None:
        """Find the non-recursive rules made only of free regular material (fusable)."""
        recursive = _recursive_rules(self.g)
        candidates = [
            name
            for name, rule in self.g.rules.items()
            if not rule.lexical and name not in recursive
        ]
        rejected: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name in candidates:
                if name in self.regular or name in rejected:
                    continue
                rule = self.g.rules[name]
                deps = [
                    r.name for r in referenced_names(rule.body) if not self.g.rules[r.name].lexical
                ]
                if any(d not in self.regular for d in deps):
                    if any(d in rejected or d in recursive for d in deps):
                        rejected.add(name)
                        changed = True
                    continue
                changed = True
                if not _is_free_regular(rule.body, self.g, self.regular, self.wide):
                    rejected.add(name)
                    continue
                try:
                    dfa = expr_to_dfa(
                        rule.body, self._resolve, budget=FUSE_BUDGET, origin=rule.origin
                    )
                except CompileBudgetError:
                    rejected.add(name)
                    continue
                self.rule_dfas[name] = dfa
                self.regular.add(name)

    def symbol_for(self, expr: Expr, owner: str) -> list[int]:
        """Symbols standing for ``expr`` inside a rule body (possibly a helper nonterminal)."""
        origin = expr.origin
        if isinstance(expr, Ref):
            rule = self.g.rules[expr.name]
            if rule.lexical:
                return self.lexical_symbol(expr.name)
            if expr.name in self.regular:
                return self._add_terminal(
                    f"rule:{expr.name}",
                    expr.name,
                    self.rule_dfas[expr.name],
                    Lexing.FREE,
                    0,
                    False,
                    rule.origin,
                )
            return [self.nt(expr.name, rule.origin) + _NT_MARK]
        if isinstance(expr, Lit) and not expr.data:
            return []
        if isinstance(expr, Lit | CharClass):
            return self.anonymous_symbol(expr, origin)
        if _is_free_regular(expr, self.g, self.regular, self.wide):
            try:
                return self.anonymous_symbol(expr, origin)
            except CompileBudgetError:
                pass  # too big to fuse: keep its structure as rules
        return [self.helper(expr, owner) + _NT_MARK]

    def helper(self, expr: Expr, owner: str) -> int:
        key = (owner if isinstance(expr, Repeat) else "", expr)
        cached = self.helper_cache.get(key)
        if cached is not None:
            return cached
        name = f"{owner}~{len(self.helper_cache)}"
        idx = self.nt(name, expr.origin)
        self.helper_cache[key] = idx
        if isinstance(expr, Repeat):
            self._lower_repeat(idx, expr, owner)
        else:
            for alt in self.alternatives(expr, owner):
                self.productions.append((idx, tuple(alt)))
        return idx

    def _rule_origin(self, owner: str) -> Origin | None:
        rule = self.g.rules.get(owner)
        return rule.origin if rule is not None else None

    def _lower_repeat(self, idx: int, expr: Repeat, owner: str) -> None:
        item = self.symbol_for(expr.item, owner)
        cost = expr.min * max(1, len(item)) + (0 if expr.max is None else expr.max - expr.min)
        self._unrolled += cost
        if cost > RULE_BUDGET or self._unrolled > RULE_BUDGET:
            bounds = f"{{{expr.min},{'' if expr.max is None else expr.max}}}"
            raise CompileBudgetError(
                f"the counted repetition {bounds} unrolls into more than {RULE_BUDGET} grammar"
                " symbols",
                code="rule-budget",
                origin=expr.origin or self._rule_origin(owner),
                hint="lower the count (e.g. a maxItems/minItems), or leave the bound to a"
                " validator (strict=False)",
            )
        head = item * expr.min
        if expr.max is None:
            # R -> X^m | R X   (left recursion is cheap for Earley)
            self.productions.append((idx, tuple(head)))
            self.productions.append((idx, (idx + _NT_MARK, *item)))
            return
        # R -> X^m O_k with O_k -> ε | X O_{k-1}
        tail: list[int] = []
        prev: int | None = None
        for k in range(1, expr.max - expr.min + 1):
            opt = self.nt(f"{self.nt_names[idx]}.{k}", expr.origin)
            self.productions.append((opt, ()))
            rest = [prev + _NT_MARK] if prev is not None else []
            self.productions.append((opt, (*item, *rest)))
            prev = opt
        if prev is not None:
            tail = [prev + _NT_MARK]
        self.productions.append((idx, (*head, *tail)))

    def alternatives(self, expr: Expr, owner: str) -> list[list[int]]:
        if isinstance(expr, Alt):
            if not expr.items:
                return []
            out: list[list[int]] = []
            for item in expr.items:
                out.extend(self.alternatives(item, owner))
            return out
        if isinstance(expr, Seq):
            return [self.sequence(expr.items, owner)]
        return [self.symbol_for(expr, owner)]

    def sequence(self, items: Iterable[Expr], owner: str) -> list[int]:
        out: list[int] = []
        run: list[Expr] = []

        def flush() -> None:
            if not run:
                return
            if len(run) == 1:
                out.extend(self.symbol_for(run[0], owner))
            else:
                fused = Seq(tuple(run), origin=run[0].origin)
                try:
                    out.extend(self.anonymous_symbol(fused, run[0].origin))
                except CompileBudgetError:
                    for part in run:
                        out.extend(self.symbol_for(part, owner))
            run.clear()

        for item in items:
            if _is_free_regular(item, self.g, self.regular, self.wide):
                run.append(item)
                continue
            flush()
            out.extend(self.symbol_for(item, owner))
        flush()
        return out

    def lower(self) -> ParserGrammar:
        self.classify()
        start_rule = self.g.rules[self.g.start]
        augmented = self.nt("$start", self.g.origin)
        start_syms = self.symbol_for(Ref(self.g.start, origin=start_rule.origin), "$start")
        self.productions.append((augmented, tuple(start_syms)))
        # Lower every reachable nonterminal rule (worklist: rules get ids when referenced).
        done: set[str] = set()
        while True:
            todo = [
                n
                for n in self.nt_names
                if n in self.g.rules and n not in done and not self.g.rules[n].lexical
            ]
            if not todo:
                break
            for name in todo:
                done.add(name)
                idx = self.nt_index[name]
                for alt in self.alternatives(self.g.rules[name].body, name):
                    self.productions.append((idx, tuple(alt)))
        for name in self.g.reserved:
            # Basic terminals compete in every lexeme; a reserved one is never expected.
            self.lexical_symbol(name)
        ignore: list[int] = []
        for name in self.g.ignore:
            syms = self.lexical_symbol(name)
            tid = self.term_index[f"rule:{name}"]
            if tid >= 0 and syms:
                ignore.append(tid)
        n_terms = len(self.terminals)
        productions = tuple(
            (lhs + n_terms, tuple(s - _NT_MARK + n_terms if s >= _NT_MARK else s for s in rhs))
            for lhs, rhs in self.productions
        )
        ignore_t = tuple(dict.fromkeys(ignore))
        follow, first = _follow_sets(
            n_terms, len(self.nt_names), productions, augmented + n_terms, ignore_t
        )
        return ParserGrammar(
            terminals=tuple(self.terminals),
            nonterminals=tuple(self.nt_names),
            productions=productions,
            start=augmented + n_terms,
            ignore=ignore_t,
            nt_origins=tuple(self.nt_origins),
            follow=follow,
            first=first,
        )


def _follow_sets(
    n_terms: int,
    n_nts: int,
    productions: tuple[tuple[int, tuple[int, ...]], ...],
    start: int,
    ignore: tuple[int, ...],
) -> tuple[tuple[int, ...], int]:
    """Terminal-level FOLLOW sets and the FIRST set of the start symbol, as bitsets, with the
    ignored terminals allowed everywhere (FIRST/FOLLOW themselves: :mod:`typedgen.ir.analysis`)."""
    first, follow_nt = bnf_first_follow(productions, n_terms, n_terms + n_nts)
    ignore_bits = sum(1 << t for t in ignore)
    everything = (1 << n_terms) - 1
    follow = tuple(
        everything if t in ignore else follow_nt[t] | ignore_bits for t in range(n_terms)
    )
    return follow, first[start] | ignore_bits


_VOID_TID = -2
_NT_MARK = 1 << 30
"""Nonterminal symbols are ``_NT_MARK + index`` until the terminal count is known."""


def lower(grammar: Grammar, *, budget: int = DEFAULT_STATE_BUDGET) -> ParserGrammar:
    """Lower a validated IR grammar to terminals (DFAs) and BNF productions."""
    return _Lowerer(grammar, budget).lower()
