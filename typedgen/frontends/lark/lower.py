"""The last stage of the Lark frontend: assembled definitions -> IR rules (see :mod:`.`).

Lark's ``Grammar.compile`` without the BNF step: rules keep their EBNF in the IR, anonymous
literals become terminals named as lark names them, template instances become rules, and rules
that derive nothing are dropped with the alternatives that need them (same language).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.frontends.lark.embeds import Spliced, splice, unused_embed
from typedgen.frontends.lark.loader import Def, Loader
from typedgen.frontends.lark.syntax import (
    CharRange,
    Choice,
    Intersection,
    Literal,
    Name,
    Negation,
    Node,
    Repetition,
    TemplateUse,
)
from typedgen.frontends.lark.syntax import Sequence as SyntaxSeq
from typedgen.frontends.lark.terminals import PatternKey, TerminalCompiler, literal_key
from typedgen.ir.analysis import nullable, productive_rules
from typedgen.ir.grammar import Grammar, Lexing, Rule, TreeShape
from typedgen.ir.nodes import Alt, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes.rewrite import prune_unreachable, simplify, transform

__all__ = ["Converter"]

_MAX_TEMPLATE_INSTANCES = 10_000

# lark.load_grammar._TERMINAL_NAMES: names of anonymous punctuation terminals.
_TERMINAL_NAMES = {
    ".": "DOT",
    ",": "COMMA",
    ":": "COLON",
    ";": "SEMICOLON",
    "+": "PLUS",
    "-": "MINUS",
    "*": "STAR",
    "/": "SLASH",
    "\\": "BACKSLASH",
    "|": "VBAR",
    "?": "QMARK",
    "!": "BANG",
    "@": "AT",
    "#": "HASH",
    "$": "DOLLAR",
    "%": "PERCENT",
    "^": "CIRCUMFLEX",
    "&": "AMPERSAND",
    "_": "UNDERSCORE",
    "<": "LESSTHAN",
    ">": "MORETHAN",
    "=": "EQUAL",
    '"': "DBLQUOTE",
    "'": "QUOTE",
    "`": "BACKQUOTE",
    "~": "TILDE",
    "(": "LPAR",
    ")": "RPAR",
    "{": "LBRACE",
    "}": "RBRACE",
    "[": "LSQB",
    "]": "RSQB",
    "\n": "NEWLINE",
    "\r\n": "CRLF",
    "\t": "TAB",
    " ": "SPACE",
}


def _shape(name: str, modifiers: str, keep_all_tokens: bool) -> TreeShape:
    return TreeShape(
        inline=name.startswith("_"),
        expand_single="?" in modifiers,
        keep_tokens="!" in modifiers or keep_all_tokens,
    )


@dataclass(slots=True)
class _Instance:
    """A rule to convert: a plain rule, or a template instance with its parameter bindings."""

    name: str
    definition: Def
    env: dict[str, str] = field(default_factory=dict)


class Converter:
    """Lark's ``Grammar.compile`` without the BNF step: rules keep their EBNF in the IR."""

    def __init__(self, loader: Loader, lexing: Lexing, keep_all_tokens: bool, source: str):
        from typedgen.frontends.regex import regex_to_expr

        self.defs = loader.defs
        self.ignore = loader.ignore
        self.lexing = lexing
        self.keep_all_tokens = keep_all_tokens
        self.source = source
        self.terms = TerminalCompiler(self.defs, regex_to_expr)
        self.term_names = [n for n, d in self.defs.items() if d.is_term and d.body is not None]
        self.term_set = set(self.term_names)
        self.reverse: dict[PatternKey, str] = {}
        for name in self.term_names:
            self.terms.check(name)
            key = self.terms.key(name)
            if key is not None:
                self.reverse[key] = name
        self.anon: dict[str, Literal | CharRange] = {}
        self.anon_count = 0
        self.queue: list[_Instance] = []
        self.instances: set[str] = set()
        self.literal_names: dict[int, str] = {}

    # -- anonymous terminals (lark's PrepareAnonTerminals) --------------------------------
    def _anon_name(self, node: Literal | CharRange) -> str:
        key = literal_key(node)
        known = self.reverse.get(key)
        if known is not None:
            return known
        name: str | None = None
        if isinstance(node, Literal) and node.kind == "str":
            from lark.utils import is_id_continue, is_id_start

            value = node.value
            name = _TERMINAL_NAMES.get(value)
            if (
                name is None
                and is_id_continue(value)
                and is_id_start(value[0])
                and value.upper() not in self.term_set
            ):
                name = value.upper()
            if name in self.term_set:
                name = None
        if name is None:
            name = f"__ANON_{self.anon_count}"
            self.anon_count += 1
        self.term_set.add(name)
        self.reverse[key] = name
        self.anon[name] = node
        return name

    def _name_literals(self, node: Node) -> None:
        """Name the rule's literals in text order before templates expand, as lark does."""
        if isinstance(node, Literal | CharRange):
            self.literal_names[id(node)] = self._anon_name(node)
        elif isinstance(node, TemplateUse):
            for arg in node.args:
                self._name_literals(arg)
        elif isinstance(node, Repetition | Negation):
            self._name_literals(node.item)
        elif isinstance(node, SyntaxSeq | Intersection):
            for item in node.items:
                self._name_literals(item)
        elif isinstance(node, Choice):
            for alt in node.alts:
                self._name_literals(alt)

    # -- rules ---------------------------------------------------------------------------
    def _symbol(self, node: Node, inst: _Instance) -> str:
        """The name a template argument stands for."""
        if isinstance(node, Name):
            return inst.env.get(node.name, node.name)
        if isinstance(node, Literal | CharRange):
            return self.literal_names[id(node)]
        if isinstance(node, TemplateUse):
            return self._instantiate(node, inst)
        raise GrammarError(
            "template arguments must be names, literals or template uses",
            code="lark-template",
            origin=node.origin,
            hint="name a rule for a longer argument and pass the name",
        )

    def _instantiate(self, node: TemplateUse, inst: _Instance) -> str:
        template = inst.env.get(node.name.name, node.name.name)
        d = self.defs.get(template)
        if d is None or len(d.params) != len(node.args):
            expected = len(d.params) if d is not None else 0
            raise GrammarError(
                f"wrong number of template arguments for {template!r}: expected {expected}, "
                f"got {len(node.args)}",
                code="lark-template",
                origin=node.origin,
                hint="pass one argument per parameter of the template's definition",
            )
        args = [self._symbol(arg, inst) for arg in node.args]
        name = "{}{{{}}}".format(template, ",".join(args))
        if name not in self.instances:
            if len(self.instances) >= _MAX_TEMPLATE_INSTANCES:
                raise GrammarError(
                    f"template expansion does not terminate ({name})",
                    code="lark-template",
                    origin=node.origin,
                    hint="a template must not instantiate itself with ever larger arguments",
                )
            self.instances.add(name)
            self.queue.append(_Instance(name, d, dict(zip(d.params, args, strict=True))))
        return name

    def _rule_expr(self, node: Node, inst: _Instance) -> Expr:
        if isinstance(node, Name):
            name = inst.env.get(node.name, node.name)
            target = self.defs.get(name)
            if target is not None and target.params:
                raise GrammarError(
                    f"template {name!r} used without arguments",
                    code="lark-template",
                    origin=node.origin,
                    hint=f"write {name}{{{', '.join(target.params)}}} with actual arguments",
                )
            return Ref(name, origin=node.origin)
        if isinstance(node, Literal | CharRange):
            return Ref(self.literal_names[id(node)], origin=node.origin)
        if isinstance(node, TemplateUse):
            return Ref(self._instantiate(node, inst), origin=node.origin)
        if isinstance(node, Repetition):
            item = self._rule_expr(node.item, inst)
            return Repeat(item, node.min, node.max, origin=node.origin)
        if isinstance(node, SyntaxSeq):
            items = tuple(self._rule_expr(item, inst) for item in node.items)
            return items[0] if len(items) == 1 else Seq(items, origin=node.origin)
        if isinstance(node, Choice):
            for alias in node.aliases:
                if alias is not None and inst.name.startswith("_"):
                    raise GrammarError(
                        f"rule {inst.name} is inlined (starts with an underscore) and cannot "
                        f"have aliases (-> {alias.name})",
                        code="lark-alias-on-inlined-rule",
                        origin=alias.origin,
                        hint="drop the alias, or rename the rule without the underscore",
                    )
            alts = tuple(self._rule_expr(alt, inst) for alt in node.alts)
            return alts[0] if len(alts) == 1 else Alt(alts, origin=node.origin)
        op = "&" if isinstance(node, Intersection) else "~"
        raise GrammarError(
            f"{op!r} is only supported between terminals, not in rules ({inst.name})",
            code="lark-intersection-in-rule" if op == "&" else "lark-complement-in-rule",
            origin=node.origin,
            hint="move the expression into a terminal (upper-case name)",
        )

    def _convert_rule(self, inst: _Instance) -> Rule:
        d = inst.definition
        assert d.body is not None
        self._name_literals(d.body)
        body = simplify(self._rule_expr(d.body, inst))
        shape = _shape(inst.name, d.modifiers, self.keep_all_tokens)
        return Rule(inst.name, body, shape=shape, origin=d.origin)

    # -- terminals -----------------------------------------------------------------------
    def _terminal(self, name: str) -> Rule:
        anon = self.anon.get(name)
        if anon is not None:
            body = self.terms.literal_expr(anon)
            filtered = isinstance(anon, Literal) and anon.kind == "str"
            return Rule(
                name,
                simplify(body),
                lexical=True,
                lexing=self.lexing,
                shape=TreeShape(filtered=filtered and not self.keep_all_tokens),
                origin=anon.origin,
            )
        d = self.defs[name]
        return Rule(
            name,
            simplify(self.terms.expr(name)),
            lexical=True,
            priority=d.priority or 0,
            lexing=self.lexing,
            shape=TreeShape(filtered=name.startswith("_") and not self.keep_all_tokens),
            origin=d.origin,
        )

    # -- the grammar ---------------------------------------------------------------------
    def build(self, start: str, embeds: Mapping[str, Grammar] | None = None) -> Grammar:
        d = self.defs.get(start)
        if d is None or d.is_term or d.params or d.body is None:
            candidates = [n for n, x in self.defs.items() if not x.is_term and not x.params]
            close = difflib.get_close_matches(start, candidates, n=1)
            raise GrammarError(
                f"the start rule {start!r} is not defined"
                if d is None
                else f"the start symbol {start!r} must be a plain rule",
                code="undefined-start",
                origin=Origin(self.source) if d is None else d.origin,
                hint=f"did you mean {close[0]!r}?" if close else "define it or pass start=...",
            )
        self.queue = [
            _Instance(n, x) for n, x in self.defs.items() if not x.is_term and x.body is not None
        ]
        rules: list[Rule] = []
        i = 0
        while i < len(self.queue):
            inst = self.queue[i]
            i += 1
            if inst.definition.params and inst.name not in self.instances:
                continue  # a template itself: only its instances become rules
            rules.append(self._convert_rule(inst))
        ignore = [name for name, _ in self.ignore]
        roots = [start, *ignore]
        terminals = self._reachable_terminals(rules, roots)
        order = [*self.term_names, *self.anon]
        all_rules = rules + [terminals[n] for n in order if n in terminals]
        spliced = self._splice(embeds or {}, all_rules, [terminals[n] for n in ignore])
        all_rules += spliced.rules
        roots += spliced.reserved
        kept = prune_unreachable(all_rules, roots)
        kept_names = {rule.name for rule in kept}
        for name in embeds or {}:
            if name not in kept_names:
                names = [n for n, d in self.defs.items() if d.body is not None]
                raise unused_embed(name, names, self.defs[name].origin)
        self._check_declared(kept, embeds or {})
        embedded = {rule.name for rule in spliced.rules}
        self._check_zero_width([r for r in kept if r.name not in embedded], ignore)
        kept, ignore = _drop_unproductive(kept, start, ignore, spliced.reserved)
        return Grammar(
            kept,
            start,
            ignore=tuple(dict.fromkeys(ignore)),
            origin=Origin(self.source),
            deferred=tuple(spliced.deferred),
            reserved=tuple(spliced.reserved),
        )

    def _splice(
        self, embeds: Mapping[str, Grammar], rules: list[Rule], ignored: list[Rule]
    ) -> Spliced:
        """The rules that fill the embedded holes (see :mod:`typedgen.frontends.lark.embeds`)."""
        out = Spliced()
        taken = {rule.name for rule in rules} | set(self.defs)
        host_ignore = [rule.body for rule in ignored]
        for name, sub in embeds.items():
            part = splice(
                name,
                self.defs[name],
                sub,
                lexing=self.lexing,
                taken=taken,
                host_ignore=host_ignore,
            )
            taken.update(rule.name for rule in part.rules)
            out.rules += part.rules
            out.reserved += part.reserved
            out.deferred += part.deferred
        return out

    def _reachable_terminals(self, rules: list[Rule], roots: list[str]) -> dict[str, Rule]:
        """Convert the terminals reachable from the roots (lark never compiles the others)."""
        table = {r.name: r for r in rules}
        done: dict[str, Rule] = {}
        seen: set[str] = set()
        stack = list(roots)
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            rule = table.get(name)
            if rule is None and (name in self.anon or name in self.term_set):
                d = self.defs.get(name)
                if d is not None and d.body is None:
                    continue  # %declare'd: reported once we know it is used
                rule = self._terminal(name)
                done[name] = rule
            if rule is not None:
                stack.extend(ref.name for ref in _refs(rule.body))
        return done

    def _check_declared(self, kept: list[Rule], filled: Mapping[str, Grammar]) -> None:
        from typedgen.ir.passes.validate import referenced_names

        for rule in kept:
            for ref in referenced_names(rule.body):
                d = self.defs.get(ref.name)
                if d is not None and d.body is None and ref.name not in filled:
                    raise UnsupportedFeatureError(
                        f"{ref.name} is %declare'd: it has no pattern (a custom lexer or "
                        "postlexer such as lark's Indenter produces it)",
                        code="lark-declare",
                        origin=ref.origin or d.origin,
                        hint="define the terminal with a pattern; indentation-sensitive "
                        "grammars cannot be expressed as a context-free mask",
                    )

    def _check_zero_width(self, kept: list[Rule], ignore: list[str]) -> None:
        table = {r.name: r for r in kept}
        tokens = set(ignore)
        for rule in kept:
            if not rule.lexical:
                tokens.update(ref.name for ref in _refs(rule.body))

        def body(name: str) -> Expr:
            return table[name].body

        for term in kept:
            if term.name in tokens and term.lexical and nullable(term.body, body):
                raise GrammarError(
                    f"terminal {term.name} matches the empty string; lark does not allow "
                    "zero-width terminals",
                    code="lark-zero-width-terminal",
                    origin=term.origin,
                    hint="make it match at least one character, and make its use optional "
                    "in the rules (x? or [x])",
                )


def _refs(expr: Expr) -> list[Ref]:
    from typedgen.ir.passes.validate import referenced_names

    return referenced_names(expr)


def _is_void(expr: Expr) -> bool:
    return isinstance(expr, Alt) and not expr.items


def _drop_unproductive(
    rules: list[Rule], start: str, ignore: list[str], reserved: Sequence[str] = ()
) -> tuple[list[Rule], list[str]]:
    """Drop rules that derive no string (lark accepts them, the IR does not); same language.

    An alternative that needs such a rule can never match, so it goes too; only when the start
    rule itself derives nothing is the grammar refused.
    """
    alive = productive_rules({rule.name: rule for rule in rules})
    if len(alive) == len(rules):
        return rules, ignore
    table = {r.name: r for r in rules}
    if start not in alive:
        raise GrammarError(
            f"the start rule {start!r} matches no string: every derivation recurses forever",
            code="empty-language",
            origin=table[start].origin,
            hint="lark accepts such a grammar but rejects every input; give recursions a way out",
        )

    def cut(node: Expr) -> Expr:
        if isinstance(node, Ref) and node.name not in alive:
            return Alt((), origin=node.origin)
        if isinstance(node, Repeat) and _is_void(simplify(node.item)):
            return Lit(b"", origin=node.origin) if node.min == 0 else Alt((), origin=node.origin)
        return node

    fixed = [
        replace(rule, body=simplify(transform(rule.body, cut)))
        for rule in rules
        if rule.name in alive
    ]
    kept_ignore = [name for name in ignore if name in alive]
    return prune_unreachable(fixed, [start, *kept_ignore, *reserved]), kept_ignore
