"""Assemble a Lark grammar's definitions the way lark's ``GrammarBuilder`` does.

``%import`` loads the named module (from the ``imports`` mapping, the ``import_paths``, the
importing file's folder for relative imports, or lark's bundled ``common``/``lark``/``python``/
``unicode`` grammars), keeps what the imported names need, and namespaces the rest as lark does
(``common.INT`` used by ``NUMBER`` becomes ``common__INT``). ``%override`` replaces a definition,
``%extend`` adds alternatives in front, ``%ignore`` of an expression defines ``__IGNORE_n``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from typedgen.errors import GrammarError
from typedgen.frontends.lark.syntax import (
    CharRange,
    Choice,
    Declare,
    Definition,
    Ignore,
    Import,
    Intersection,
    Literal,
    Name,
    Negation,
    Node,
    Repetition,
    TemplateUse,
    parse_lark,
)
from typedgen.frontends.lark.syntax import Sequence as Seq
from typedgen.ir.analysis import closure
from typedgen.ir.origin import Origin

__all__ = ["Def", "Loader", "iter_names"]

_MAX_IMPORT_DEPTH = 32
Mangle = Callable[[str], str]


@dataclass(slots=True)
class Def:
    """One assembled definition; ``body is None`` for a ``%declare``'d symbol."""

    name: str
    is_term: bool
    body: Choice | None
    params: tuple[str, ...]
    modifiers: str
    priority: int | None
    origin: Origin


def iter_names(node: Node) -> Iterator[Name]:
    """Every name a body refers to (template names and arguments included), in text order."""
    if isinstance(node, Name):
        yield node
    elif isinstance(node, TemplateUse):
        yield node.name
        for arg in node.args:
            yield from iter_names(arg)
    elif isinstance(node, Repetition | Negation):
        yield from iter_names(node.item)
    elif isinstance(node, Seq | Intersection):
        for item in node.items:
            yield from iter_names(item)
    elif isinstance(node, Choice):
        for alt in node.alts:
            yield from iter_names(alt)


def _rename(node: Node, fn: Mangle) -> Node:
    if isinstance(node, Name):
        return Name(fn(node.name), node.origin, node.is_term)
    if isinstance(node, TemplateUse):
        name = Name(fn(node.name.name), node.name.origin, False)
        return TemplateUse(name, tuple(_rename(a, fn) for a in node.args), node.origin)
    if isinstance(node, Repetition):
        return replace(node, item=_rename(node.item, fn))
    if isinstance(node, Negation):
        return replace(node, item=_rename(node.item, fn))
    if isinstance(node, Seq | Intersection):
        return replace(node, items=tuple(_rename(i, fn) for i in node.items))
    if isinstance(node, Choice):
        return replace(node, alts=tuple(_rename(a, fn) for a in node.alts))
    assert isinstance(node, Literal | CharRange)
    return node


def _get_mangle(prefix: str, aliases: Mapping[str, str], base: Mangle | None) -> Mangle:
    """Lark's namespacing: imported names take their alias, the others ``prefix__name``."""

    def mangle(name: str) -> str:
        if name in aliases:
            name = aliases[name]
        elif name.startswith("_"):
            name = f"_{prefix}__{name[1:]}"
        else:
            name = f"{prefix}__{name}"
        return base(name) if base is not None else name

    return mangle


def _kind(is_term: bool) -> str:
    return "terminal" if is_term else "rule"


def _close(name: str, names: Iterable[str], fallback: str = "define it, or %import it") -> str:
    close = difflib.get_close_matches(name, list(names), n=1)
    return f"did you mean {close[0]!r}?" if close else fallback


def _bundled_dir() -> Path:
    import lark

    return Path(lark.__file__).parent / "grammars"


class Loader:
    """Collects definitions, ignores and imports; :meth:`validate` checks them as lark does."""

    def __init__(
        self,
        imports: Mapping[str, str] | None = None,
        import_paths: Sequence[str | Path] = (),
        *,
        depth: int = 0,
    ) -> None:
        self.imports = dict(imports or {})
        self.import_paths = [Path(p) for p in import_paths]
        self.depth = depth
        self.defs: dict[str, Def] = {}
        self.ignore: list[tuple[str, Origin]] = []
        self.own_names: list[str] = []  # names as written in this text, before namespacing

    # -- loading -------------------------------------------------------------------------
    def load(
        self,
        text: str,
        source: str,
        mangle: Mangle | None = None,
        base_dir: Path | None = None,
    ) -> None:
        """Parse ``text`` and add its definitions (imports first, as lark does)."""
        statements = parse_lark(text, source)
        grouped: dict[tuple[tuple[str, ...], bool], tuple[dict[str, str], Origin]] = {}
        for stmt in statements:
            if isinstance(stmt, Import):
                key = (stmt.path, stmt.relative)
                aliases, _ = grouped.setdefault(key, ({}, stmt.origin))
                aliases.update(stmt.names)
        for (path, relative), (aliases, origin) in grouped.items():
            self._import(path, relative, aliases, mangle, base_dir, origin)
        for stmt in statements:
            if isinstance(stmt, Definition):
                self._definition(stmt, mangle)
            elif isinstance(stmt, Ignore):
                if mangle is None:  # lark applies %ignore of the top-level grammar only
                    self._ignore(stmt)
            elif isinstance(stmt, Declare):
                for name in stmt.names:
                    new = mangle(name.name) if mangle else name.name
                    self._define(Def(new, name.is_term, None, (), "", None, name.origin))

    def _definition(self, stmt: Definition, mangle: Mangle | None) -> None:
        self.own_names.append(stmt.name)
        body = stmt.body
        name, params = stmt.name, stmt.params
        if mangle is not None:
            name = mangle(name)
            params = tuple(mangle(p) for p in params)
            renamed = _rename(body, mangle)
            assert isinstance(renamed, Choice)
            body = renamed
        new = Def(name, stmt.is_term, body, params, stmt.modifiers, stmt.priority, stmt.origin)
        if stmt.directive == "extend":
            self._extend(new)
        else:
            self._define(new, override=stmt.directive == "override")

    def _define(self, new: Def, *, override: bool = False) -> None:
        kind = _kind(new.is_term)
        old = self.defs.get(new.name)
        if old is not None and not override:
            raise GrammarError(
                f"duplicate {'token' if new.is_term else 'rule'} {new.name!r}: {kind} defined "
                f"twice (first at {old.origin})",
                code="duplicate-terminal" if new.is_term else "duplicate-rule",
                origin=new.origin,
                hint="merge the alternatives with '|', or use %override / %extend",
            )
        if old is None and override:
            raise GrammarError(
                f"cannot override {kind} {new.name!r}: it is not defined",
                code="lark-override-undefined",
                origin=new.origin,
                hint="%override replaces an earlier (often imported) definition",
            )
        if new.name.startswith("__"):
            raise GrammarError(
                f"names starting with a double underscore are reserved ({new.name})",
                code="lark-reserved-name",
                origin=new.origin,
                hint="lark keeps __names for its own anonymous terminals; rename it",
            )
        if not new.is_term and new.name.startswith("_") and "?" in new.modifiers:
            raise GrammarError(
                f"inlined rules (_rule) cannot use the ?rule modifier ({new.name})",
                code="lark-modifier",
                origin=new.origin,
                hint="an _rule is always inlined: drop the ?",
            )
        self.defs[new.name] = new

    def _extend(self, new: Def) -> None:
        kind = _kind(new.is_term)
        old = self.defs.get(new.name)
        if old is None:
            raise GrammarError(
                f"cannot extend {kind} {new.name!r}: it was not defined before",
                code="lark-extend-undefined",
                origin=new.origin,
                hint="define (or %import) it before the %extend",
            )
        if old.is_term != new.is_term or old.params != new.params or old.body is None:
            raise GrammarError(
                f"cannot extend {kind} {new.name!r}: kind, parameters or declaration differ",
                code="lark-extend-mismatch",
                origin=new.origin,
                hint="extend a rule with a rule and a terminal with a terminal, same parameters",
            )
        assert new.body is not None
        body = Choice((new.body, *old.body.alts), (None, *old.body.aliases), old.body.origin)
        self.defs[new.name] = replace(old, body=body)

    def _ignore(self, stmt: Ignore) -> None:
        body = stmt.body
        if len(body.alts) == 1 and body.aliases[0] is None:
            alt = body.alts[0]
            if isinstance(alt, Seq) and len(alt.items) == 1:
                item = alt.items[0]
                if isinstance(item, Name) and item.is_term:
                    self.ignore.append((item.name, item.origin))
                    return
        name = f"__IGNORE_{len(self.ignore)}"
        self.ignore.append((name, stmt.origin))
        self.defs[name] = Def(name, True, body, (), "", None, stmt.origin)

    # -- imports -------------------------------------------------------------------------
    def _find(
        self, path: tuple[str, ...], relative: bool, base_dir: Path | None, origin: Origin
    ) -> tuple[str, str, Path | None]:
        dotted = ".".join(path)
        joined = os.path.join(*path) + ".lark"
        for key in (dotted, f"{dotted}.lark", joined):
            if key in self.imports:
                return self.imports[key], f"{dotted}.lark", None
        candidates = [d / joined for d in self.import_paths]
        if relative and base_dir is not None:
            candidates.append(base_dir / joined)
        for candidate in candidates:
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8"), str(candidate), candidate.parent
        if not relative:
            bundled = _bundled_dir() / joined
            if bundled.is_file():
                return bundled.read_text(encoding="utf-8"), f"lark/grammars/{joined}", None
        raise GrammarError(
            f"cannot find grammar {'.' if relative else ''}{dotted} to import",
            code="lark-import-not-found",
            origin=origin,
            hint=f"pass imports={{{dotted!r}: text}} or import_paths=[folder]; lark's bundled "
            "grammars are common, lark, python and unicode",
        )

    def _import(
        self,
        path: tuple[str, ...],
        relative: bool,
        aliases: dict[str, str],
        base_mangle: Mangle | None,
        base_dir: Path | None,
        origin: Origin,
    ) -> None:
        if self.depth >= _MAX_IMPORT_DEPTH:
            raise GrammarError(
                f"imports nest deeper than {_MAX_IMPORT_DEPTH} levels (cyclic %import?)",
                code="lark-import-cycle",
                origin=origin,
                hint="break the cycle: move the shared definitions into a grammar both import",
            )
        mangle = _get_mangle("__".join(path), aliases, base_mangle)
        text, source, sub_dir = self._find(path, relative, base_dir, origin)
        sub = Loader(self.imports, self.import_paths, depth=self.depth + 1)
        sub.load(text, source, mangle, sub_dir)
        roots = []
        for name in aliases:
            target = mangle(name)
            if target not in sub.defs:
                module = ".".join(path)
                raise GrammarError(
                    f"grammar {module!r} defines no {name!r} to import",
                    code="lark-import-unknown-name",
                    origin=origin,
                    hint=_close(
                        name, sub.own_names, f"it defines {', '.join(sub.own_names) or 'nothing'}"
                    ),
                )
            roots.append(target)
        for name in sub.reachable(roots):
            if name in self.defs:
                raise GrammarError(
                    f"cannot import {name!r} from {'.'.join(path)}: the name is already defined",
                    code="lark-import-conflict",
                    origin=origin,
                    hint="import it under another name with -> ALIAS",
                )
            self.defs[name] = sub.defs[name]

    def reachable(self, roots: Iterable[str]) -> list[str]:
        """Names of the definitions ``roots`` need, in definition order (lark's remove_unused)."""

        def uses(name: str) -> list[str]:
            d = self.defs.get(name)
            if d is None or d.body is None:
                return []
            return [n.name for n in iter_names(d.body) if n.name not in d.params]

        seen = closure(roots, uses)
        return [name for name in self.defs if name in seen]

    # -- validation ----------------------------------------------------------------------
    def validate(self) -> None:
        """Lark's checks over every definition, used or not: names, templates, ignores."""
        for d in self.defs.values():
            for i, param in enumerate(d.params):
                if param in self.defs:
                    raise GrammarError(
                        f"template parameter {param!r} of {d.name!r} conflicts with a rule",
                        code="lark-template",
                        origin=d.origin,
                        hint="rename the parameter",
                    )
                if param in d.params[:i]:
                    raise GrammarError(
                        f"duplicate template parameter {param!r} in {d.name!r}",
                        code="lark-template",
                        origin=d.origin,
                        hint="give each parameter its own name",
                    )
            if d.body is None:
                continue
            self._check_body(d, d.body)
        for name, origin in self.ignore:
            if name not in self.defs:
                raise GrammarError(
                    f"%ignore names {name!r}, which is not defined",
                    code="undefined-terminal",
                    origin=origin,
                    hint=_close(name, self.defs),
                )

    def _check_body(self, d: Def, node: Node) -> None:
        if isinstance(node, TemplateUse):
            sym = node.name.name
            if sym not in d.params:
                target = self.defs.get(sym)
                if target is None:
                    raise GrammarError(
                        f"template {sym!r} used but not defined (in {_kind(d.is_term)} {d.name!r})",
                        code="undefined-rule",
                        origin=node.origin,
                        hint=_close(sym, self.defs),
                    )
                if len(node.args) != len(target.params):
                    raise GrammarError(
                        f"wrong number of template arguments for {sym!r}: expected "
                        f"{len(target.params)}, got {len(node.args)}",
                        code="lark-template",
                        origin=node.origin,
                        hint="pass one argument per parameter of the template's definition",
                    )
            for arg in node.args:
                self._check_body(d, arg)
            return
        if isinstance(node, Name):
            if node.name not in self.defs and node.name not in d.params:
                kind = _kind(node.is_term)
                raise GrammarError(
                    f"{kind} {node.name!r} used but not defined (in {_kind(d.is_term)} {d.name!r})",
                    code="undefined-terminal" if node.is_term else "undefined-rule",
                    origin=node.origin,
                    hint=_close(node.name, self.defs),
                )
            return
        if isinstance(node, Repetition | Negation):
            self._check_body(d, node.item)
        elif isinstance(node, Seq | Intersection):
            for item in node.items:
                self._check_body(d, item)
        elif isinstance(node, Choice):
            for alt in node.alts:
                self._check_body(d, alt)
