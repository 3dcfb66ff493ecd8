"""Rules and grammars: the one structure passed from frontends to the compiler."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from typedgen.errors import GrammarError
from typedgen.ir.export import export_gbnf, export_lark
from typedgen.ir.origin import Origin
from typedgen.ir.passes.rewrite import rename_rules
from typedgen.ir.passes.validate import validate_grammar
from typedgen.ir.printer import print_grammar
from typedgen.ir.rules import DeferredCheck, Lexing, Rule, TreeShape, rule_with

__all__ = [
    "DeferredCheck",
    "Grammar",
    "Lexing",
    "Rule",
    "TreeShape",
    "register_format",
    "rule_with",
]


_FORMATS: dict[str, Callable[..., Grammar]] = {}


def register_format(name: str, parse: Callable[..., Grammar]) -> None:
    """Register a text format for ``Grammar.from_<name>`` (frontends call this at import)."""
    _FORMATS[name] = parse


def _parse_with(fmt: str, /, *args: Any, **kwargs: Any) -> Grammar:
    try:
        parse = _FORMATS[fmt]
    except KeyError:
        raise GrammarError(
            f"no frontend registered for {fmt!r}",
            code="no-frontend",
            hint="import typedgen (not only typedgen.ir) so that the frontends register",
        ) from None
    return parse(*args, **kwargs)


class Grammar:
    """A context-free grammar over UTF-8 bytes: named rules, a start rule, ignored terminals.

    ``reserved`` names basic-lexed terminals that no rule uses: they compete in the lexer like
    every basic terminal, so text that lexes as one of them is refused (SQL's ``--`` comment
    opener, which would otherwise pass as two minus signs).

    Grammars are immutable; construction validates them (undefined, unreachable and empty rules
    raise :class:`~typedgen.errors.GrammarError` naming the place). ``str(grammar)`` is the
    canonical text and :attr:`fingerprint` its hash.
    """

    __slots__ = (
        "_fingerprint",
        "_rules",
        "_text",
        "deferred",
        "ignore",
        "origin",
        "reserved",
        "start",
    )

    def __init__(
        self,
        rules: Mapping[str, Rule] | list[Rule] | tuple[Rule, ...],
        start: str,
        *,
        ignore: tuple[str, ...] = (),
        origin: Origin | None = None,
        deferred: tuple[DeferredCheck, ...] = (),
        reserved: tuple[str, ...] = (),
        validate: bool = True,
    ) -> None:
        if isinstance(rules, Mapping):
            table = dict(rules)
        else:
            table = {}
            for rule in rules:
                if rule.name in table:
                    raise GrammarError(
                        f"rule {rule.name!r} is defined twice",
                        code="duplicate-rule",
                        origin=rule.origin,
                        hint="rename one of them, or merge their alternatives into one rule",
                    )
                table[rule.name] = rule
        self._rules: dict[str, Rule] = table
        self.start = start
        self.ignore = tuple(ignore)
        self.deferred = tuple(deferred)
        self.reserved = tuple(reserved)
        self.origin = origin
        self._text: str | None = None
        self._fingerprint: str | None = None
        if validate:
            validate_grammar(self)

    # -- construction from text -------------------------------------------------------------
    @classmethod
    def from_lark(cls, text: str, *, start: str = "start", **options: Any) -> Grammar:
        """Parse Lark grammar text (see :mod:`typedgen.frontends.lark`)."""
        return _parse_with("lark", text, start=start, **options)

    @classmethod
    def from_gbnf(cls, text: str, *, start: str = "root", **options: Any) -> Grammar:
        """Parse llama.cpp GBNF text (see :mod:`typedgen.frontends.gbnf`)."""
        return _parse_with("gbnf", text, start=start, **options)

    @classmethod
    def from_regex(cls, pattern: str, **options: Any) -> Grammar:
        """A grammar whose language is what the Python regex fully matches."""
        return _parse_with("regex", pattern, **options)

    @classmethod
    def from_json_schema(cls, schema: Any, **options: Any) -> Grammar:
        """JSON text valid against a JSON Schema (see :mod:`typedgen.frontends.jsonschema`)."""
        return _parse_with("json_schema", schema, **options)

    @classmethod
    def from_choice(cls, options: list[str] | tuple[str, ...], **kwargs: Any) -> Grammar:
        """A grammar whose language is exactly the given strings."""
        return _parse_with("choice", options, **kwargs)

    # -- access ----------------------------------------------------------------------------
    @property
    def rules(self) -> Mapping[str, Rule]:
        """Rules by name, in definition order."""
        return self._rules

    def __getitem__(self, name: str) -> Rule:
        return self._rules[name]

    def __contains__(self, name: object) -> bool:
        return name in self._rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._rules.values())

    def __len__(self) -> int:
        return len(self._rules)

    def terminals(self) -> list[Rule]:
        """The lexical rules, in definition order."""
        return [r for r in self._rules.values() if r.lexical]

    def replace(self, **changes: Any) -> Grammar:
        """A copy with ``rules``, ``start``, ``ignore``, ``reserved`` or ``origin`` replaced."""
        return Grammar(
            changes.get("rules", self._rules),
            changes.get("start", self.start),
            ignore=changes.get("ignore", self.ignore),
            origin=changes.get("origin", self.origin),
            deferred=changes.get("deferred", self.deferred),
            reserved=changes.get("reserved", self.reserved),
        )

    def with_rule(self, rule: Rule) -> Grammar:
        """A copy with ``rule`` added or replacing the rule of the same name."""
        rules = dict(self._rules)
        rules[rule.name] = rule
        return self.replace(rules=rules)

    def renamed(self, name: str, new: str) -> Grammar:
        """A copy where rule ``name`` is called ``new`` (references included)."""
        return rename_rules(self, {name: new})

    # -- export ----------------------------------------------------------------------------
    def to_lark(self, *, dialect: str = "lark", lexer: str | None = None) -> str:
        """Lark grammar text with this grammar's language (see :mod:`typedgen.ir.export`).

        ``dialect="llguidance"`` writes llguidance's Lark dialect (``&``/``~`` kept, no
        priorities); ``lexer`` overrides the lark lexer named in the header when the terminals
        mix lexing modes (an approximation, stated there).
        """
        return export_lark(self, dialect=dialect, lexer=lexer)

    def to_gbnf(self) -> str:
        """llama.cpp GBNF text with this grammar's language (see :mod:`typedgen.ir.export`)."""
        return export_gbnf(self)

    # -- identity --------------------------------------------------------------------------
    def __str__(self) -> str:
        if self._text is None:
            self._text = print_grammar(self)
        return self._text

    def __repr__(self) -> str:
        return f"<Grammar start={self.start!r} rules={len(self._rules)} {self.fingerprint[:12]}>"

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the canonical text: equal for structurally equal grammars."""
        if self._fingerprint is None:
            self._fingerprint = hashlib.sha256(str(self).encode("utf-8")).hexdigest()
        return self._fingerprint

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grammar):
            return NotImplemented
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __reduce__(self) -> tuple[Any, ...]:
        state = (
            list(self._rules.values()),
            self.start,
            self.ignore,
            self.origin,
            self.deferred,
            self.reserved,
        )
        return (_rebuild, state)


def _rebuild(
    rules: list[Rule],
    start: str,
    ignore: tuple[str, ...],
    origin: Origin | None,
    deferred: tuple[DeferredCheck, ...] = (),
    reserved: tuple[str, ...] = (),
) -> Grammar:
    return Grammar(
        rules,
        start,
        ignore=ignore,
        origin=origin,
        deferred=deferred,
        reserved=reserved,
        validate=False,
    )
