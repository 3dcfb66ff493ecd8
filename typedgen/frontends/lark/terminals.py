"""Lark terminal definitions -> IR expressions with lark's matching semantics.

Lark compiles every terminal into one Python regex (references to other terminals inlined) and
lexes with ``re.match``, which returns the regex's *preferred* match. Two consequences shape the
translation:

* Lookarounds, anchors and ``\\b`` inside a regex literal may look across the boundary between
  the parts of a terminal (common.lark's ``_STRING_ESC_INNER`` looks behind into
  ``_STRING_INNER``). Terminals that use such constructs (directly or through
  the terminals they reference) are therefore converted as lark composes them: one regex, handed
  to :func:`typedgen.frontends.regex.regex_to_expr` whole. Other terminals keep their structure,
  with ``Ref`` to the terminals they use.
* With lazy quantifiers (``.*?``) the preferred match can be the shortest one, so ``"a" "b"``
  can never be one ``ESCAPED_STRING`` token. When a lazy quantifier decides where the match ends
  (see :mod:`typedgen.frontends.lark.lazy`), the terminal denotes the strings of its regular
  language that have no proper prefix in it: ``B & ~(B .+)``. This is exact for lazy loops
  ending at a delimiter (quoted strings, comments: every use in lark's bundled grammars). Lazy
  loops whose body cannot start like their end (the ``REGEXP`` terminal of lark.lark) stop
  where a greedy loop would, and keep their plain language.

Two differences remain. Lookaheads and ``\\b`` at the *end* of a terminal see the following
text in lark but only the lexeme here (the IR has no notion of the text around a lexeme). And
ordered alternatives inside one regex literal (``/a|ab/``, where ``re`` prefers ``a``) denote
their union; lark sorts the alternatives of terminal *definitions* longest first itself, so only
hand-written regexes are concerned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from typedgen.errors import ErrorCode, GrammarError, UnsupportedFeatureError
from typedgen.frontends.lark.lazy import lazy_decides_end
from typedgen.frontends.lark.loader import Def
from typedgen.frontends.lark.lookaround import regex_with_lookarounds, top_level_bars
from typedgen.frontends.lark.syntax import (
    CharRange,
    Choice,
    Intersection,
    Literal,
    Name,
    Negation,
    Node,
    Repetition,
    Sequence,
    TemplateUse,
    children,
)
from typedgen.ir.nodes import (
    MAX_CODEPOINT,
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
)
from typedgen.ir.origin import Origin

__all__ = ["PatternKey", "RegexToExpr", "TerminalCompiler", "literal_key", "regex_traits"]

RegexToExpr = Callable[..., Expr]
PatternKey = tuple[str, str, frozenset[str]]
"""Lark's identity of a terminal pattern: (``str``/``re``, value, flags)."""

_PY_FLAGS = {"i": re.I, "m": re.M, "s": re.S, "u": re.U, "x": re.X}
_ANY = CharClass(((0, MAX_CODEPOINT),))
_QUANTIFIER = re.compile(r"\{\d*(,\d*)?\}")
_WIDE = 1 << 64
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_LEADING_QUANTIFIER = re.compile(r"[*+?]|\{(?:\d+(?:,\d*)?|,\d+)\}")
_TRAILING_NUMBER_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\\d{1,2}$")


class _NoPattern(Exception):
    """The subtree uses ``&``/``~``, which no lark regex expresses."""


@dataclass(frozen=True, slots=True)
class _Pat:
    kind: str
    value: str
    flags: frozenset[str]
    regex: str  # what typedgen compiles: lark's regexp, with ranges written safely

    def key(self) -> PatternKey:
        return (self.kind, self.value, self.flags)


def _wrap_flags(text: str, flags: frozenset[str]) -> str:
    for flag in sorted(flags):
        text = f"(?{flag}:{text})"
    return text


def _lark_regexp(pat: _Pat) -> str:
    return _wrap_flags(re.escape(pat.value) if pat.kind == "str" else pat.value, pat.flags)


def _width(pat: _Pat) -> tuple[int, int]:
    if pat.kind == "str":
        return len(pat.value), len(pat.value)
    from lark.utils import get_regexp_width

    try:
        lo, hi = get_regexp_width(_lark_regexp(pat))
    except Exception:  # lark refuses the regex; only the sort order depends on it
        return 0, _WIDE
    return int(lo), int(hi)


def regex_traits(pattern: str, verbose: bool = False) -> tuple[bool, bool]:
    """(has a lazy quantifier, looks beyond its own match: lookaround, anchor, ``\\b``, backref)."""
    lazy = context = False
    i, n = 0, len(pattern)
    quantifiable = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt in ("b", "B", "A", "Z") or (nxt.isdigit() and nxt != "0"):
                context = True
            i += 2
            quantifiable = True
            continue
        if c == "[":
            j = i + 1
            if pattern.startswith("^", j):
                j += 1
            if pattern.startswith("]", j):
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            quantifiable = True
            continue
        if c == "(":
            if pattern.startswith("(?#", i):
                end = pattern.find(")", i)
                i = n if end < 0 else end + 1
                continue
            head = pattern[i + 2 : i + 4]
            if pattern.startswith("(?", i) and (
                head[:1] in ("=", "!", "(") or head in ("<=", "<!") or head[:2] == "P="
            ):
                context = True
            i += 2 if pattern.startswith("(?", i) else 1
            quantifiable = False
            continue
        if quantifiable and c in "*+?":
            if pattern.startswith("?", i + 1):
                lazy = True
                i += 1
            i += 1
            quantifiable = False
            continue
        if quantifiable and c == "{":
            m = _QUANTIFIER.match(pattern, i)
            if m:
                i = m.end()
                if pattern.startswith("?", i):
                    lazy = True
                    i += 1
                quantifiable = False
                continue
        if c in "^$":
            context = True
        if verbose and c == "#":
            end = pattern.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if verbose and c.isspace():
            i += 1
            continue
        quantifiable = c != "|"
        i += 1
    return lazy, context


def joins_apart(regexps: list[str]) -> bool:
    """Whether lark's joined regexp of a terminal sequence reads other than the sequence.

    lark writes ``T: "a" /b|c/`` as the one regexp ``ab|c`` (``ab`` or ``c``), not ``a(b|c)``:
    the parts of a sequence are concatenated as text. That text differs from the sequence of
    the parts when a part has an alternation at its top level, starts with global flags
    (``(?i)`` then covers the whole, or is an error), starts with something that quantifies the
    part before it (``/{2}/``), or ends in a numeric escape that the next part's digits extend.
    """
    if len(regexps) < 2:
        return False
    for i, regexp in enumerate(regexps):
        if top_level_bars(regexp) or _GLOBAL_FLAGS.match(regexp):
            return True
        if i and _LEADING_QUANTIFIER.match(regexp):
            return True
        following = regexps[i + 1][:1] if i + 1 < len(regexps) else ""
        if following.isdigit() and _TRAILING_NUMBER_ESCAPE.search(regexp):
            return True
    return False


def literal_key(node: Literal | CharRange) -> PatternKey:
    """Lark's pattern identity of an anonymous literal (to reuse a terminal defined as it)."""
    if isinstance(node, CharRange):
        return ("re", f"[{node.raw_start}-{node.raw_end}]", frozenset())
    return (node.kind, node.value, frozenset(node.flags))


def _class_char(ch: str) -> str:
    return f"\\U{ord(ch):08x}" if ord(ch) > 0xFFFF else f"\\u{ord(ch):04x}"


def _terminal_error(message: str, code: ErrorCode, origin: Origin, hint: str | None = None) -> None:
    raise GrammarError(message, code=code, origin=origin, hint=hint)


class TerminalCompiler:
    """Turns the terminal definitions of an assembled grammar into IR expressions."""

    def __init__(self, defs: Mapping[str, Def], regex_to_expr: RegexToExpr) -> None:
        self.defs = defs
        self.regex_to_expr = regex_to_expr
        self._pats: dict[str, _Pat | None] = {}
        self._traits: dict[str, tuple[bool, bool]] = {}
        self._categories: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}

    # -- lark's checks ------------------------------------------------------------------
    def check(self, name: str) -> None:
        """Lark's errors for a terminal definition, raised whether it is used or not."""
        d = self.defs[name]
        assert d.body is not None
        body = d.body
        if len(body.alts) == 1 and isinstance(body.alts[0], Sequence) and not body.alts[0].items:
            _terminal_error(
                f"terminal {name} is empty", "lark-empty-terminal", d.origin, "give it a pattern"
            )
        self.traits(name)  # walks the references: rules, templates, aliases, recursion

    def _walk_checks(self, owner: str, node: Node) -> None:
        if isinstance(node, Choice):
            for alt, alias in zip(node.alts, node.aliases, strict=True):
                if alias is not None:
                    _terminal_error(
                        f"aliases (-> name) are not allowed in terminals ({owner})",
                        "lark-alias-in-terminal",
                        alias.origin,
                    )
                self._walk_checks(owner, alt)
        elif isinstance(node, Name):
            if not node.is_term:
                _terminal_error(
                    f"rules are not allowed inside terminals ({node.name} in {owner})",
                    "terminal-uses-rule",
                    node.origin,
                    "make the terminal a rule (lower-case name), or the rule a terminal",
                )
        elif isinstance(node, TemplateUse):
            _terminal_error(
                f"templates cannot be used inside terminals ({node.name.name} in {owner})",
                "terminal-uses-rule",
                node.origin,
            )
        elif isinstance(node, Repetition | Negation):
            self._walk_checks(owner, node.item)
        elif isinstance(node, Sequence | Intersection):
            for item in node.items:
                self._walk_checks(owner, item)

    # -- traits: lazy / context-sensitive, transitively ----------------------------------
    def traits(self, name: str, stack: tuple[str, ...] = ()) -> tuple[bool, bool]:
        """(lazy, context-sensitive) for terminal ``name`` and everything it references."""
        if name in self._traits:
            return self._traits[name]
        d = self.defs[name]
        if name in stack:
            cycle = " -> ".join((*stack[stack.index(name) :], name))
            _terminal_error(
                f"terminal {name} is recursive ({cycle}); terminals must be regular",
                "recursive-terminal",
                d.origin,
                "make it a rule (lower-case name) so the parser handles the recursion",
            )
        if d.body is None:
            self._traits[name] = (False, False)
            return (False, False)
        self._walk_checks(name, d.body)
        result = self._node_traits(d.body, (*stack, name))
        self._traits[name] = result
        return result

    def _node_traits(self, node: Node, stack: tuple[str, ...]) -> tuple[bool, bool]:
        if isinstance(node, Literal):
            if node.kind == "str":
                return (False, False)
            return regex_traits(node.value, "x" in node.flags)
        if isinstance(node, Name):
            return self.traits(node.name, stack)
        lazy = context = False
        for child in children(node):
            a, b = self._node_traits(child, stack)
            lazy, context = lazy or a, context or b
        return lazy, context

    # -- lark's pattern of a terminal ----------------------------------------------------
    def key(self, name: str) -> PatternKey | None:
        """Lark's pattern identity of terminal ``name`` (``None`` for ``&``/``~``/declared)."""
        pat = self._named_pattern(name)
        return pat.key() if pat is not None else None

    def _named_pattern(self, name: str) -> _Pat | None:
        if name not in self._pats:
            d = self.defs[name]
            try:
                self._pats[name] = self._pattern(d.body) if d.body is not None else None
            except _NoPattern:
                self._pats[name] = None
        return self._pats[name]

    def _pattern(self, node: Node) -> _Pat:
        if isinstance(node, Literal):
            flags = frozenset(node.flags)
            value = node.value
            regex = _wrap_flags(re.escape(value) if node.kind == "str" else value, flags)
            return _Pat(node.kind, value, flags, regex)
        if isinstance(node, CharRange):
            safe = f"[{_class_char(node.start)}-{_class_char(node.end)}]"
            return _Pat("re", f"[{node.raw_start}-{node.raw_end}]", frozenset(), safe)
        if isinstance(node, Name):
            pat = self._named_pattern(node.name)
            if pat is None:
                raise _NoPattern
            return pat
        if isinstance(node, Choice):
            pats = [self._pattern(alt) for alt in node.alts]
            if len(pats) == 1:
                return pats[0]
            order = sorted(pats, key=lambda p: (-_width(p)[1], -_width(p)[0], -len(p.value)))
            value = "(?:" + "|".join(_lark_regexp(p) for p in order) + ")"
            regex = "(?:" + "|".join(p.regex for p in order) + ")"
            return _Pat("re", value, frozenset(), regex)
        if isinstance(node, Sequence):
            if not node.items:
                return _Pat("str", "", frozenset(), "")
            pats = [self._pattern(item) for item in node.items]
            if len(pats) == 1:
                return pats[0]
            value = "".join(_lark_regexp(p) for p in pats)
            return _Pat("re", value, frozenset(), "".join(p.regex for p in pats))
        if isinstance(node, Repetition):
            inner = self._pattern(node.item)
            if node.op in ("?", "*", "+"):
                op = node.op
            elif node.op == "[]":
                op = "?"
            elif node.max is None:
                op = f"{{{node.min},}}"
            elif node.min == node.max:
                op = f"{{{node.min}}}"
            else:
                op = f"{{{node.min},{node.max}}}"
            value = f"(?:{_lark_regexp(inner)}){op}"
            return _Pat("re", value, inner.flags, f"(?:{inner.regex}){op}")
        raise _NoPattern

    # -- IR --------------------------------------------------------------------------------
    def expr(self, name: str) -> Expr:
        """The IR body of terminal ``name``."""
        d = self.defs[name]
        assert d.body is not None
        lazy, context = self.traits(name)
        if lazy and self._lazy_decides(d.body):
            return self._lazy_body(d.body, d.origin)
        return self._composed(d.body, d.origin) if lazy or context else self._structural(d.body)

    def _lazy_body(self, body: Node, origin: Origin) -> Expr:
        """A terminal whose end a lazy loop decides: its shortest matches, except for a trailing
        run of greedy optional parts (lark.STRING's ``"i"?``). A lazy loop stops as soon as
        the rest can match, and an optional rest always can, so the loop stops where the part
        before it first matches; the optional parts then take what they can: ``""i`` is one
        STRING. Taken as the shortest match of the whole, the ``i`` was never reached."""
        tail: list[Expr] = []
        while isinstance(body, Choice) and len(body.alts) == 1:
            body = body.alts[0]
        if isinstance(body, Sequence):
            items = list(body.items)
            while len(items) > 1 and self._greedy_optional(items[-1]):
                tail.insert(0, self._composed(items.pop(), origin))
            head = Sequence(tuple(items), body.origin)
            if tail and self._lazy_decides(head):
                return Seq((shortest_match(self._composed(head, origin)), *tail), origin=origin)
        return shortest_match(self._composed(body, origin))

    def _greedy_optional(self, node: Node) -> bool:
        """Whether ``node`` is ``x?`` or ``x*`` over plain text (no lazy loop, no lookaround)."""
        if not isinstance(node, Repetition) or node.min != 0:
            return False
        item = node.item
        if isinstance(item, CharRange):
            return True
        return isinstance(item, Literal) and self._node_traits(item, ()) == (False, False)

    def literal_expr(self, node: Literal | CharRange) -> Expr:
        """The IR body of an anonymous terminal (a literal inside a rule)."""
        if isinstance(node, CharRange):
            return CharClass(((ord(node.start), ord(node.end)),), origin=node.origin)
        expr = self._literal(node)
        if node.kind == "re" and regex_traits(node.value, "x" in node.flags)[0]:
            if self._lazy_decides(node):
                return shortest_match(expr)
        return expr

    def _lazy_decides(self, node: Node) -> bool:
        """Whether lark's preferred match is shorter than the longest one (see lazy.py)."""
        try:
            pat = self._pattern(node)
        except _NoPattern:
            pass
        else:
            return lazy_decides_end(pat.regex, 0, self._category)
        if isinstance(node, Literal):
            return False
        if isinstance(node, Name):
            d = self.defs[node.name]
            return d.body is not None and self._lazy_decides(d.body)
        return any(self._lazy_decides(child) for child in children(node))

    def _category(self, escape: str, flags: int) -> tuple[tuple[int, int], ...]:
        key = (escape, flags & (re.A | re.U))
        found = self._categories.get(key)
        if found is None:
            expr = self.regex_to_expr(escape, flags=key[1], flavor="python")
            found = expr.codepoints() if isinstance(expr, CharClass) else ((0, MAX_CODEPOINT),)
            self._categories[key] = found
        return found

    def _literal(self, node: Literal) -> Expr:
        if node.kind == "str" and not node.flags:
            return Lit.text(node.value, origin=node.origin)
        if "l" in node.flags:
            raise UnsupportedFeatureError(
                f"the l (locale) regex flag is not supported ({node.raw})",
                code="lark-regex-flag-l",
                origin=node.origin,
                hint="Python refuses re.LOCALE for text patterns; drop the flag",
            )
        flags = 0
        for flag in node.flags:
            flags |= _PY_FLAGS[flag]
        pattern = re.escape(node.value) if node.kind == "str" else node.value
        return self._regex(pattern, flags, node.origin)

    def _regex(self, pattern: str, flags: int, origin: Origin) -> Expr:
        try:
            return regex_with_lookarounds(pattern, flags, self.regex_to_expr, origin)
        except GrammarError as exc:
            if exc.origin is not None:
                raise
            raise type(exc)(exc.message, code=exc.code, origin=origin, hint=exc.hint) from exc

    def _structural(self, node: Node) -> Expr:
        if isinstance(node, Literal):
            return self._literal(node)
        if isinstance(node, CharRange):
            return CharClass(((ord(node.start), ord(node.end)),), origin=node.origin)
        if isinstance(node, Name):
            return Ref(node.name, origin=node.origin)
        if isinstance(node, Choice):
            alts = tuple(self._structural(alt) for alt in node.alts)
            return alts[0] if len(alts) == 1 else Alt(alts, origin=node.origin)
        if isinstance(node, Sequence):
            joined = self._joined(node)
            if joined is not None:
                return joined
            items = tuple(self._structural(item) for item in node.items)
            return items[0] if len(items) == 1 else Seq(items, origin=node.origin)
        if isinstance(node, Intersection):
            parts = tuple(self._structural(item) for item in node.items)
            return Intersect(parts, origin=node.origin)
        if isinstance(node, Negation):
            return Complement(self._structural(node.item), origin=node.origin)
        if isinstance(node, Repetition):
            item = self._structural(node.item)
            return Repeat(item, node.min, node.max, origin=node.origin)
        raise AssertionError(f"unexpected node in terminal: {node!r}")  # checked before

    def _joined(self, node: Sequence) -> Expr | None:
        """Lark's reading of a sequence whose joined regexp reads otherwise (see joins_apart)."""
        try:
            pats = [self._pattern(item) for item in node.items]
        except _NoPattern:
            return None  # llguidance's & and ~: no lark regexp, each part stands alone
        if not joins_apart([_lark_regexp(p) for p in pats]):
            return None
        return self._regex("".join(p.regex for p in pats), 0, node.origin)

    def _composed(self, node: Node, origin: Origin) -> Expr:
        """Lark's single-regex form, so lookarounds see across the parts of the terminal."""
        try:
            pat = self._pattern(node)
        except _NoPattern:
            pass
        else:
            return self._regex(pat.regex, 0, origin)
        if isinstance(node, Name):
            d = self.defs[node.name]
            assert d.body is not None
            return self._composed(d.body, node.origin)
        if isinstance(node, Choice):
            return Alt(tuple(self._composed(a, origin) for a in node.alts), origin=node.origin)
        if isinstance(node, Sequence):
            return Seq(tuple(self._composed(i, origin) for i in node.items), origin=node.origin)
        if isinstance(node, Intersection):
            parts = tuple(self._composed(i, origin) for i in node.items)
            return Intersect(parts, origin=node.origin)
        if isinstance(node, Negation):
            return Complement(self._composed(node.item, origin), origin=node.origin)
        if isinstance(node, Repetition):
            item = self._composed(node.item, origin)
            return Repeat(item, node.min, node.max, origin=node.origin)
        return self._structural(node)


def shortest_match(body: Expr) -> Expr:
    """The strings of ``body`` with no proper prefix in ``body``: a lazy regex's matches."""
    longer = Seq((body, Repeat(_ANY, 1, None)))
    return Intersect((body, Complement(longer)), origin=body.origin)
