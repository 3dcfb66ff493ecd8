"""A DSL class's specification: its grammar, holes, methods; checked when the class is created.

Everything that does not need the embedded types' own grammars is checked at class creation: the
grammar compiles (with stand-ins in the holes), every embed names a rule or terminal the grammar
uses, and every public method names a rule, terminal or alias of the grammar (a misspelt method
is an error naming the closest one). The full IR (with the embedded grammars spliced in) and
lark's parser are built on first use and cached here, one per class.
"""

from __future__ import annotations

import difflib
import inspect
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typedgen.dsl.embeds import normalize
from typedgen.dsl.transform import Bound, DSLValueError, Transform
from typedgen.errors import GrammarError
from typedgen.frontends.lark.embeds import is_terminal_name
from typedgen.frontends.lark.loader import Loader
from typedgen.frontends.lark.syntax import Choice as SyntaxChoice
from typedgen.frontends.lark.syntax import Node, children
from typedgen.ir.grammar import Grammar
from typedgen.ir.origin import Origin
from typedgen.outputs import Fragment, binder_for, fragment_for, grammar_of, lark_terminal_for
from typedgen.types import examples_of

if TYPE_CHECKING:
    import lark

__all__ = ["API_NAMES", "Hole", "Spec", "build_spec"]

API_NAMES = frozenset(
    {
        "grammar",
        "grammar_file",
        "start_rule",
        "lexer",
        "embeds",
        "parse",
        "parse_tree",
        "with_params",
        "lark_grammar",
        "examples",
    }
)
"""Attributes of :class:`~typedgen.dsl.DSL` itself; a method of that name cannot be a rule's."""

_LEXERS = ("contextual", "basic", "dynamic", "dynamic_complete")
_MARKER = "typedgen_embed_value_"
_DECLARE = re.compile(r"^(\s*)%declare\b([^\n]*)$", re.MULTILINE)


@dataclass(frozen=True)
class Hole:
    """A rule or terminal that an embed fills."""

    name: str
    is_term: bool
    defined: bool
    """The text defines a placeholder (replaced with ``%override`` for lark)."""
    priority: int | None = None


@dataclass
class Spec:
    """Everything typedgen knows about one DSL class."""

    owner: type
    text: str
    source: str
    file: Path | None
    import_paths: tuple[Path, ...]
    start: str
    lexer: str
    embeds: dict[str, object]
    holes: dict[str, Hole]
    missing: tuple[str, ...]
    methods: dict[str, str]
    origins: dict[str, Origin]
    examples: tuple[str, ...] = ()
    _ir: Grammar | None = None
    _parser: Any = None
    _binders: dict[str, Any] = field(default_factory=dict)
    _grammars: dict[str, Grammar] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- the IR ----------------------------------------------------------------------------------
    def require_complete(self) -> None:
        if self.missing:
            names = ", ".join(self.missing)
            example = self.missing[0]
            raise GrammarError(
                f"{self.owner.__name__} leaves {names} to be filled: the grammar %declares"
                " it without an embed",
                code="dsl-missing-param",
                origin=self.origins.get(example),
                hint=f"use {self.owner.__name__}.with_params({example}=...) or add it to embeds",
            )

    def ir(self) -> Grammar:
        """The full IR: the grammar with every embedded type's grammar spliced in."""
        if self._ir is None:
            from typedgen.frontends.lark import lark_grammar

            self.require_complete()
            embedded = {name: self.embedded_grammar(name) for name in self.embeds}
            self._ir = lark_grammar(
                self.text,
                start=self.start,
                lexer=self.lexer,
                source=self.source,
                import_paths=self.import_paths,
                embeds=embedded,
            )
        return self._ir

    def embedded_grammar(self, name: str) -> Grammar:
        """The IR of the type embedded as ``name`` (computed once: SQL's takes seconds)."""
        found = self._grammars.get(name)
        if found is None:
            found = self._grammars[name] = grammar_of(self.embeds[name])
        return found

    # -- lark's side -----------------------------------------------------------------------------
    def lark_source(self, prefix: str = "typedgen_embed") -> Fragment:
        """The grammar as lark's parser sees it: holes filled with lark fragments."""
        self.require_complete()
        lines = [_strip_declares(self.text, set(self.holes)), ""]
        paths = list(self.import_paths)
        modules: list[tuple[str, str]] = []
        for i, (name, value) in enumerate(self.embeds.items()):
            hole = self.holes[name]
            head = "%override " if hole.defined else ""
            if hole.is_term:
                prio = f".{hole.priority}" if hole.priority else ""
                lines.append(f"{head}{name}{prio}: {lark_terminal_for(value)}")
                continue
            module = f"{prefix}_{i}"
            part = fragment_for(value, module, partial(self.embedded_grammar, name))
            alias = f"typedgen_embed_start_{i}"
            lines.append(f"{head}{name}: {_MARKER}{i}")
            lines.append(f"{_MARKER}{i}: {alias}")
            lines.append(f"%import {module}.{part.start} -> {alias}")
            modules.append((module, part.text))
            modules.extend(part.modules)
            paths.extend(part.import_paths)
        return Fragment("\n".join(lines) + "\n", self.start, tuple(paths), tuple(modules))

    def parser(self) -> lark.Lark:
        """lark's Earley parser for the grammar (with positions), built once."""
        with self._lock:
            if self._parser is None:
                self._parser = self._build_parser()
            parser: lark.Lark = self._parser
            return parser

    def _build_parser(self) -> lark.Lark:
        import lark

        source = self.lark_source()
        modules = dict(source.modules)

        def load(_base: object, grammar_path: str) -> tuple[str, str]:
            name = grammar_path.removesuffix(".lark")
            if name in modules:
                return grammar_path, modules[name]
            raise OSError(f"no embedded grammar {grammar_path}")

        options: dict[str, Any] = {}
        if self.file is not None:
            options["source_path"] = str(self.file)
        try:
            return lark.Lark(
                source.text,
                start=self.start,
                parser="earley",
                lexer="dynamic_complete" if self.lexer == "dynamic_complete" else "dynamic",
                propagate_positions=True,
                import_paths=[*source.import_paths, load],
                **options,
            )
        except lark.exceptions.LarkError as exc:
            raise GrammarError(
                f"lark cannot build a parser for {self.owner.__name__}: {exc}",
                code="dsl-lark",
                origin=Origin(self.source),
                hint="typedgen accepted the grammar but lark did not; see `typedgen check`",
            ) from exc

    # -- binding ---------------------------------------------------------------------------------
    def binder(self, name: str) -> Any:
        found = self._binders.get(name)
        if found is None:
            found = self._binders[name] = binder_for(self.embeds[name])
        return found

    def tree(self, text: str) -> lark.Tree[Any]:
        """lark's tree for ``text``, embedded parts replaced by their bound values (boxed)."""
        import lark

        try:
            tree = self.parser().parse(text)
        except lark.exceptions.LarkError as exc:
            raise DSLValueError(
                f"lark's parser rejects the text for {self.owner.__name__}: {exc}",
                code="dsl-parse",
                origin=Origin(self.source),
            ) from exc
        markers = {f"{_MARKER}{i}": name for i, name in enumerate(self.embeds)}
        terms = {name for name, hole in self.holes.items() if hole.is_term}
        for node in _subtrees(tree):
            for i, child in enumerate(node.children):
                if isinstance(child, lark.Tree) and str(child.data) in markers:
                    name = markers[str(child.data)]
                    span = text[child.meta.start_pos : child.meta.end_pos]
                    node.children[i] = Bound(self._bind(name, span, child.meta), name)
                elif isinstance(child, lark.Token) and child.type in terms:
                    value = self._bind(child.type, str(child), child)
                    if not (isinstance(value, str) and value == str(child)):
                        node.children[i] = Bound(value, child.type)
        return tree

    def _bind(self, name: str, span: str, meta: Any) -> object:
        from typedgen.validation import is_verdict

        binder = self.binder(name)
        try:
            return binder(span)
        except Exception as exc:
            if not is_verdict(exc):
                raise
            where = (
                f"output line {getattr(meta, 'line', '?')}, column {getattr(meta, 'column', '?')}"
            )
            raise DSLValueError(
                f"the value embedded in {self.owner.__name__}.{name} ({where}) is invalid:"
                f" {type(exc).__name__}: {exc}",
                origin=self.origins.get(name),
            ) from exc

    def transform(self, owner: object, text: str) -> Any:
        """Parse ``text`` and run ``owner``'s methods over the tree."""
        tree = self.tree(text)
        holes = frozenset(name for name, hole in self.holes.items() if not hole.is_term)
        return Transform(owner, self.methods, self.origins, holes, text).run(tree)


def _subtrees(tree: lark.Tree[Any]) -> Iterator[lark.Tree[Any]]:
    import lark

    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in node.children if isinstance(c, lark.Tree))


def _strip_declares(text: str, names: set[str]) -> str:
    """``text`` without ``%declare`` of the filled names (lines kept, so positions stay)."""

    def fix(match: re.Match[str]) -> str:
        rest, _, comment = match.group(2).partition("//")
        kept = [n for n in rest.split() if n not in names]
        if not kept:
            return match.group(1)
        return f"{match.group(1)}%declare {' '.join(kept)}" + (f" //{comment}" if comment else "")

    return _DECLARE.sub(fix, text)


# -- building the spec -----------------------------------------------------------------------


def _own(cls: type, name: str) -> tuple[type, Any] | None:
    """The nearest class in the MRO that sets ``name`` itself, and the value."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass, vars(klass)[name]
    return None


def _grammar_source(cls: type) -> tuple[str, str, Path | None, str] | None:
    """The grammar's text, its source name, its file, and the lexer it is meant for."""
    text_def = _own(cls, "grammar")
    file_def = _own(cls, "grammar_file")
    text_def = text_def if text_def is not None and text_def[1] is not None else None
    file_def = file_def if file_def is not None and file_def[1] is not None else None
    if text_def is None and file_def is None:
        return None
    if text_def is not None and file_def is not None:
        if text_def[0] is file_def[0]:
            raise GrammarError(
                f"{cls.__name__} sets both grammar and grammar_file",
                code="dsl-grammar",
                hint="keep one: grammar (Lark text) or grammar_file (a library name or a path)",
            )
        nearest_text = cls.__mro__.index(text_def[0]) < cls.__mro__.index(file_def[0])
        if nearest_text:
            file_def = None
        else:
            text_def = None
    if text_def is not None:
        owner, text = text_def
        if not isinstance(text, str):
            raise GrammarError(
                f"{cls.__name__}.grammar must be Lark grammar text, not {type(text).__name__}",
                code="dsl-grammar",
                hint="a method named 'grammar' cannot be a rule's method: rename the rule",
            )
        return text, f"{owner.__qualname__}.grammar", None, "contextual"
    assert file_def is not None
    owner, value = file_def
    path, lexer = _grammar_path(owner, value)
    return path.read_text(encoding="utf-8"), str(path), path, lexer


def _grammar_path(owner: type, value: object) -> tuple[Path, str]:
    if not isinstance(value, str | Path):
        raise GrammarError(
            f"{owner.__name__}.grammar_file must be a library grammar name or a path",
            code="dsl-grammar",
        )
    text = str(value)
    if isinstance(value, Path) or "/" in text or "\\" in text or text.endswith(".lark"):
        path = Path(value)
        if not path.is_absolute():
            module = sys.modules.get(owner.__module__)
            module_file = getattr(module, "__file__", None)
            beside = Path(module_file).parent / path if module_file else None
            if beside is not None and beside.is_file():
                path = beside
        if not path.is_file():
            raise GrammarError(
                f"{owner.__name__}.grammar_file: no such file {str(path)!r}",
                code="dsl-grammar-file",
                hint="relative paths are looked up beside the class's module, then in the"
                " current folder",
            )
        return path, "contextual"
    try:
        from typedgen import grammars
    except ImportError as exc:  # pragma: no cover - the library ships with typedgen
        raise GrammarError(
            f"{owner.__name__}.grammar_file names the library grammar {text!r}, but this typedgen"
            " has no grammar library",
            code="dsl-grammar-file",
            hint="give a path to a .lark file",
        ) from exc
    return grammars.path(text), grammars.lexer(text)


def _library_folder() -> tuple[Path, ...]:
    """The grammar library's folder: inline grammars may ``%import toml (BARE_KEY, ...)``."""
    try:
        from typedgen import grammars

        return (grammars.folder(),)
    except (ImportError, GrammarError):  # pragma: no cover - the library ships with typedgen
        return ()


def _names_and_origins(
    loader: Loader, ir: Grammar, holes: Mapping[str, Hole]
) -> tuple[set[str], dict[str, Origin]]:
    origins: dict[str, Origin] = {}
    for name, d in loader.defs.items():
        origins[name] = d.origin
        if d.body is not None:
            for alias_name, alias_origin in _aliases(d.body):
                origins.setdefault(alias_name, alias_origin)
    prefixes = tuple(f"{name}__" for name in holes)
    for rule in ir:
        if rule.lexical and rule.name not in origins and not rule.name.startswith(prefixes):
            if rule.origin is not None:
                origins[rule.name] = rule.origin
            else:
                origins[rule.name] = Origin(loader_source(ir))
    for name in holes:
        if name not in origins and name in ir and ir[name].origin is not None:
            origin = ir[name].origin
            assert origin is not None
            origins[name] = origin
    return set(origins) | set(holes), origins


def loader_source(ir: Grammar) -> str:
    return ir.origin.source if ir.origin is not None else "<lark>"


def _aliases(node: Node) -> Iterator[tuple[str, Origin]]:
    if isinstance(node, SyntaxChoice):
        for alias in node.aliases:
            if alias is not None:
                yield alias.name, alias.origin
    for child in children(node):
        yield from _aliases(child)


def _method_origin(value: Any) -> Origin | None:
    func = getattr(value, "__func__", None) or getattr(value, "base_func", None) or value
    try:
        file = inspect.getsourcefile(func)
        _, line = inspect.getsourcelines(func)
    except (TypeError, OSError):
        return None
    return Origin(file or "<unknown>", line) if file else None


def _is_callback(value: Any) -> bool:
    if isinstance(value, staticmethod):
        return True
    if isinstance(value, classmethod | property):
        return False
    return inspect.isfunction(value) or hasattr(value, "visit_wrapper")


def _collect_methods(
    cls: type, base: type, names: set[str], origins: Mapping[str, Origin], rules: set[str]
) -> dict[str, str]:
    methods: dict[str, str] = {}
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass is base or klass is object or not issubclass(klass, base):
            continue
        for name, value in vars(klass).items():
            if name in seen:
                continue
            seen.add(name)
            if name in ("__default__", "__default_token__"):
                methods[name] = name
                continue
            if name.startswith("__") or not _is_callback(value):
                continue
            if name in API_NAMES:
                raise GrammarError(
                    f"{cls.__name__}.{name} would replace DSL.{name}",
                    code="dsl-reserved-name",
                    origin=_method_origin(value),
                    hint=f"rename the rule (e.g. {name}_) or give its alternatives an alias"
                    " (-> other_name); DSL's own names are " + ", ".join(sorted(API_NAMES)),
                )
            if name.startswith("_"):
                if name in rules:
                    raise GrammarError(
                        f"{cls.__name__}.{name} is never called: rule {name} is inlined"
                        " (its name starts with '_'), so it has no node in the tree",
                        code="dsl-method-never-called",
                        origin=_method_origin(value),
                        hint=f"rename the rule to {name.lstrip('_')} to give it a node",
                    )
                continue  # a helper
            if name not in names:
                close = difflib.get_close_matches(name, sorted(names), n=1)
                hint = "methods must be named after a rule, terminal or alias of the grammar;"
                hint += " helpers start with '_'"
                if close:
                    hint = f"did you mean {close[0]!r} ({origins.get(close[0]) or 'grammar'})?"
                raise GrammarError(
                    f"{cls.__name__}.{name}: the grammar has no rule, terminal or alias {name!r}",
                    code="dsl-unknown-method",
                    origin=_method_origin(value),
                    hint=hint,
                )
            methods[name] = name
    return methods


def _terminal(value: object) -> str | None:
    try:
        return lark_terminal_for(value)
    except GrammarError:  # not an output type at all: the same refusal as a non-regular one
        return None


def build_spec(cls: type, base: type) -> Spec | None:
    """Check ``cls`` and return its spec (``None`` for an abstract DSL without a grammar)."""
    from typedgen.frontends.lark import lark_grammar

    found = _grammar_source(cls)
    if found is None:
        return None
    text, source, file, default_lexer = found
    start = getattr(cls, "start_rule", "start")
    lexer = getattr(cls, "lexer", None) or default_lexer
    if not isinstance(start, str):
        raise GrammarError(f"{cls.__name__}.start_rule must be a rule name", code="dsl-grammar")
    if lexer not in _LEXERS:
        raise GrammarError(
            f"{cls.__name__}.lexer is {lexer!r}",
            code="dsl-grammar",
            hint=f"use one of {', '.join(_LEXERS)}",
        )
    raw = getattr(cls, "embeds", None) or {}
    if not isinstance(raw, Mapping):
        raise GrammarError(
            f"{cls.__name__}.embeds must map rule or terminal names to output types",
            code="dsl-embed",
        )
    embeds = {
        str(name): normalize(value, f"{cls.__name__}.embeds[{name!r}]")
        for name, value in raw.items()
    }
    paths = (*((file.parent,) if file is not None else ()), *_library_folder())
    loader = Loader(None, paths)
    loader.load(text, source, None, file.parent if file is not None else None)
    holes: dict[str, Hole] = {}
    for name, value in embeds.items():
        d = loader.defs.get(name)
        is_term = is_terminal_name(name)
        defined = d is not None and d.body is not None
        holes[name] = Hole(name, is_term, defined, d.priority if d is not None else None)
        if is_term and _terminal(value) is None:
            raise GrammarError(
                f"{cls.__name__}.embeds[{name!r}]: terminal {name} can only hold a list of"
                f" strings, a Choice, a Regex or an Enum, not {type(value).__name__}",
                code="dsl-embed",
                origin=d.origin if d is not None else Origin(source),
                hint=f"embed it into a rule instead (a lower-case name such as {name.lower()})",
            )
    roots = [start, *(name for name, _ in loader.ignore)]
    missing = tuple(
        name
        for name in loader.reachable(roots)
        if loader.defs[name].body is None and name not in embeds
    )
    stubs = {name: Grammar.from_choice([f"<{name}>"]) for name in [*embeds, *missing]}
    ir = lark_grammar(
        text, start=start, lexer=lexer, source=source, import_paths=paths, embeds=stubs
    )
    names, origins = _names_and_origins(loader, ir, holes)
    rules = {name for name, d in loader.defs.items() if not d.is_term}
    methods = _collect_methods(cls, base, names, origins, rules)
    examples = examples_of(getattr(cls, "examples", ()), f"{cls.__name__}.examples")
    return Spec(
        owner=cls,
        text=text,
        source=source,
        file=file,
        import_paths=paths,
        start=start,
        lexer=lexer,
        embeds=embeds,
        holes=holes,
        missing=missing,
        methods=methods,
        origins=origins,
        examples=examples,
    )
