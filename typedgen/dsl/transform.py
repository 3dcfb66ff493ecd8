"""Parse tree -> objects, with lark's ``Transformer`` conventions and errors that name the rule.

A DSL class's methods are called bottom-up, exactly as ``lark.Transformer`` calls them: a rule's
method gets the list of its transformed children (``v_args`` changes that), a terminal's method
gets the ``Token``; a rule without a method becomes ``lark.Tree(rule, children, meta)``
(``__default__`` overrides that), a token without one stays a ``Token``
(``__default_token__``). Returning :data:`Discard` drops the node from its parent. lark's own
``lark.v_args`` and ``lark.Discard`` work too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from typedgen.errors import DSLValueError, GrammarError
from typedgen.ir.origin import Origin

if TYPE_CHECKING:
    from lark import Token, Tree

__all__ = ["Bound", "DSLValueError", "Discard", "Transform", "v_args"]

F = TypeVar("F")
Wrapper = Callable[[Callable[..., Any], str, list[Any], Any], Any]


class _DiscardType:
    """Return :data:`Discard` from a method to drop the node from its parent's children."""

    _instance: _DiscardType | None = None

    def __new__(cls) -> _DiscardType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Discard"


Discard = _DiscardType()


def _plain(f: Callable[..., Any], _data: str, children: list[Any], _meta: Any) -> Any:
    return f(children)


def _inline(f: Callable[..., Any], _data: str, children: list[Any], _meta: Any) -> Any:
    return f(*children)


def _meta(f: Callable[..., Any], _data: str, children: list[Any], meta: Any) -> Any:
    return f(meta, children)


def _meta_inline(f: Callable[..., Any], _data: str, children: list[Any], meta: Any) -> Any:
    return f(meta, *children)


def _tree(f: Callable[..., Any], data: str, children: list[Any], meta: Any) -> Any:
    from lark import Tree

    return f(Tree(data, children, meta))


def v_args(
    inline: bool = False, meta: bool = False, tree: bool = False, wrapper: Wrapper | None = None
) -> Callable[[F], F]:
    """How a method receives its children, as ``lark.v_args``: on a method or on a DSL class.

    ``inline=True``: the children as positional arguments; ``meta=True``: the node's ``meta``
    (line, column, start_pos...) first; ``tree=True``: the ``lark.Tree`` itself (children already
    transformed); ``wrapper``: a callable ``(f, data, children, meta)``. On a class it applies
    to every method that does not carry its own.
    """
    if tree and (meta or inline):
        raise GrammarError(
            "v_args: 'tree' cannot be combined with 'meta' or 'inline'", code="dsl-v-args"
        )
    chosen: Wrapper
    if wrapper is not None:
        if inline or meta or tree:
            raise GrammarError(
                "v_args: 'wrapper' cannot be combined with other options", code="dsl-v-args"
            )
        chosen = wrapper
    elif tree:
        chosen = _tree
    elif meta:
        chosen = _meta_inline if inline else _meta
    else:
        chosen = _inline if inline else _plain

    def apply(target: F) -> F:
        if isinstance(target, type):
            target.__dsl_visit_wrapper__ = chosen  # type: ignore[attr-defined]
        elif isinstance(target, staticmethod):
            target.__func__.visit_wrapper = chosen  # type: ignore[attr-defined]
        else:
            target.visit_wrapper = chosen  # type: ignore[attr-defined]
        return target

    return apply


@dataclass(frozen=True, slots=True)
class Bound:
    """An embedded value, already bound, standing in the tree for the text it was made from."""

    value: Any
    name: str = ""
    """The embed (rule or terminal) it fills."""


def _is_discard(value: Any) -> bool:
    if value is Discard:
        return True
    if type(value).__name__ == "_DiscardType" and type(value).__module__.startswith("lark"):
        return True
    return False


def _snippet(text: str, start: int, end: int) -> str:
    part = text[start:end]
    return repr(part if len(part) <= 60 else part[:57] + "...")


class Transform:
    """One bottom-up pass of a DSL instance's methods over a parse tree."""

    def __init__(
        self,
        owner: Any,
        methods: Mapping[str, str],
        origins: Mapping[str, Origin],
        holes: frozenset[str],
        text: str,
    ) -> None:
        self.owner = owner
        self.methods = methods
        self.origins = origins
        self.holes = holes
        self.text = text
        self.class_wrapper: Wrapper | None = getattr(type(owner), "__dsl_visit_wrapper__", None)
        self.cls_name = type(owner).__name__

    def run(self, tree: Tree[Any]) -> Any:
        return self._tree(tree)

    # -- nodes ---------------------------------------------------------------------------------
    def _tree(self, tree: Tree[Any]) -> Any:
        from lark import Token, Tree

        children: list[Any] = []
        for child in tree.children:
            if isinstance(child, Tree):
                value = self._tree(child)
            elif isinstance(child, Token):
                value = self._token(child)
            elif isinstance(child, Bound):
                value = self._bound(child)
            else:
                value = child
            if not _is_discard(value):
                children.append(value)
        return self._rule(tree, children)

    def _rule(self, tree: Tree[Any], children: list[Any]) -> Any:
        data = str(tree.data)
        attr = self.methods.get(data)
        if attr is None:
            if data in self.holes:
                return children[0] if len(children) == 1 else children
            default = self.methods.get("__default__")
            if default is None:
                from lark import Tree

                return Tree(tree.data, children, tree.meta)
            return self._guard(
                data, tree.meta, lambda: getattr(self.owner, default)(data, children, tree.meta)
            )
        f = getattr(self.owner, attr)
        wrapper = getattr(f, "visit_wrapper", None) or self.class_wrapper
        if wrapper is None:
            return self._guard(data, tree.meta, lambda: f(children))
        return self._guard(data, tree.meta, lambda: wrapper(f, data, children, tree.meta))

    def _bound(self, bound: Bound) -> Any:
        attr = self.methods.get(bound.name) if bound.name not in self.holes else None
        if attr is None:
            return bound.value
        f = getattr(self.owner, attr)
        return self._guard(bound.name, None, lambda: f(bound.value))

    def _token(self, token: Token) -> Any:
        attr = self.methods.get(token.type) or self.methods.get("__default_token__")
        if attr is None:
            return token
        f = getattr(self.owner, attr)
        return self._guard(token.type, token, lambda: f(token))

    # -- errors --------------------------------------------------------------------------------
    def _where(self, name: str, meta: Any) -> tuple[str, Origin | None]:
        origin = self.origins.get(name)
        rule = f"{self.cls_name}.{name}"
        place = ""
        start = getattr(meta, "start_pos", None)
        end = getattr(meta, "end_pos", None)
        if start is not None and end is not None:
            place = f" on {_snippet(self.text, start, end)}"
            line, column = getattr(meta, "line", None), getattr(meta, "column", None)
            if line is not None:
                place += f" (output line {line}, column {column})"
        return f"{rule}{place}", origin

    def _guard(self, name: str, meta: Any, call: Callable[[], Any]) -> Any:
        from typedgen.validation import is_verdict

        try:
            return call()
        except DSLValueError:
            raise
        except Exception as exc:
            if not is_verdict(exc):
                what, origin = self._where(name, meta)
                where = f" (grammar {origin})" if origin is not None else ""
                exc.add_note(f"typedgen: raised by {what}{where}")
                raise
            what, origin = self._where(name, meta)
            raise DSLValueError(
                f"{what} failed: {type(exc).__name__}: {exc}",
                origin=origin,
                hint=f"the method for {'terminal' if name.isupper() else 'rule'} {name!r} raised;"
                " the model's output is retried with this message",
            ) from exc
