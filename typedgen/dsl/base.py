"""``typedgen.DSL``: a grammar plus Lark-Transformer-style methods, usable as an output type."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from typedgen.dsl.spec import Spec, build_spec
from typedgen.errors import GrammarError
from typedgen.outputs import instructions as _instructions

if TYPE_CHECKING:
    import lark

    from typedgen.ir.grammar import Grammar
    from typedgen.outputs import Fragment

__all__ = ["DSL"]

_PARAMS_LOCK = threading.Lock()


class DSL:
    """Base class of grammar-defined output types that build typed objects.

    A subclass carries a Lark grammar, as text (``grammar``) or as a file (``grammar_file``: a
    name in typedgen's grammar library, or a path, relative to the class's module), and methods
    named after the grammar's rules and terminals, called bottom-up on the parse tree exactly
    like ``lark.Transformer``'s. ``typedgen.generate(MyDSL, prompt)`` constrains the model to the
    grammar and returns what the start rule's method builds::

        class Robot(typedgen.DSL):
            grammar = r'''
                start: command (";" command)*
                command: "move " INT -> move
                       | "turn " SIDE -> turn
                SIDE: "left" | "right"
                %import common.INT
            '''

            def start(self, commands): return commands
            def move(self, children): return Move(int(children[0]))
            def turn(self, children): return Turn(str(children[0]))

    Class attributes: ``grammar`` or ``grammar_file``; ``start_rule`` (``"start"``); ``lexer``
    (``"contextual"``, ``"basic"``, ``"dynamic"`` or ``"dynamic_complete"``, as lark's; by
    default a library grammar's own choice, else ``"contextual"``);
    ``embeds``, mapping rule or terminal names to other output types that fill them (a Pydantic
    model, a JSON Schema, ``typedgen.Sql(...)``, another DSL class, a list of strings...);
    ``examples``, texts of the language that ``generate`` shows the model together with the
    class's docstring (see docs/generation.md, "Instructions").
    Grammar errors, misspelt methods and unused embeds are reported when the class is created.
    """

    grammar: ClassVar[str | None] = None
    grammar_file: ClassVar[str | Path | None] = None
    start_rule: ClassVar[str] = "start"
    lexer: ClassVar[str | None] = None
    embeds: ClassVar[Mapping[str, object]] = {}
    examples: ClassVar[Sequence[str]] = ()

    __dsl_spec__: ClassVar[Spec]
    __dsl_params__: ClassVar[dict[object, type[DSL]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = build_spec(cls, DSL)
        if spec is not None:
            cls.__dsl_spec__ = spec
        elif "__dsl_spec__" in vars(cls):  # pragma: no cover - set by hand
            del cls.__dsl_spec__
        cls.__dsl_params__ = {}

    # -- the output-type protocols -----------------------------------------------------------------
    @classmethod
    def _spec(cls) -> Spec:
        spec = vars(cls).get("__dsl_spec__")
        if spec is None:
            raise GrammarError(
                f"{cls.__name__} has no grammar",
                code="dsl-grammar",
                hint="set grammar = '''...''' (Lark text) or grammar_file = 'name-or-path'",
            )
        assert isinstance(spec, Spec)
        return spec

    @classmethod
    def __typedgen_grammar__(cls) -> Grammar:
        """The IR: the class's grammar with every embedded type's grammar spliced in (cached)."""
        return cls._spec().ir()

    @classmethod
    def __typedgen_bind__(cls, text: str) -> Any:
        return cls.parse(text)

    @classmethod
    def __typedgen_fragment__(cls, module_prefix: str) -> Fragment:
        """The grammar as lark's parser sees it inside another DSL (its own embeds filled)."""
        return cls._spec().lark_source(module_prefix)

    @classmethod
    def __typedgen_examples__(cls) -> tuple[str, ...]:
        return cls._spec().examples

    @classmethod
    def __typedgen_instructions__(cls) -> str | None:
        """The class's docstring and ``examples``, for the prompt."""
        doc = _instructions.docstring(cls, DSL)
        return _instructions.described(
            f"Answer in the {cls.__name__.split('[')[0]} language.",
            doc,
            cls.__typedgen_examples__(),
        )

    # -- parsing ---------------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Any:
        """What the methods build from ``text`` (lark's Earley parser builds the tree).

        Raises :class:`~typedgen.dsl.DSLValueError` (a ``ValueError``) when lark rejects the text,
        an embedded value does not bind, or a method raises ``ValueError``, ``AssertionError`` or
        a Pydantic ``ValidationError`` (a verdict on the text); its message names the rule, its
        grammar line and the place in the text. Other exceptions from methods (``TypeError``,
        ``KeyError``, a typedgen error other than a ``BindingError``...) are bugs, not verdicts:
        they propagate with a note that names the same, and generation does not retry them.
        """
        return cls._spec().transform(cls(), text)

    @classmethod
    def parse_tree(cls, text: str) -> lark.Tree[Any]:
        """lark's parse tree for ``text``, embedded parts replaced by their bound values."""

        from typedgen.dsl.transform import Bound

        tree = cls._spec().tree(text)
        for node in tree.iter_subtrees():
            node.children = [
                child.value if isinstance(child, Bound) else child for child in node.children
            ]
        result: lark.Tree[Any] = tree
        return result

    @classmethod
    def lark_grammar(cls) -> str:
        """The grammar text lark's parser is built from (embeds filled), for debugging."""
        return cls._spec().lark_source().text

    # -- parameters ------------------------------------------------------------------------------
    @classmethod
    def with_params(cls, **params: object) -> type[Self]:
        """A subclass whose named rules or terminals are filled at call time (embeds added).

        ``Robot.with_params(OBJECT=["cup", "ball"])`` makes terminal ``OBJECT`` exactly one of
        those words; any output type works for a rule (``table=typedgen.Sql(...)``). The grammar
        text is not rewritten: the names are filled in the IR. Results are cached per values.
        """
        if not params:
            return cls
        key = _freeze(params)
        with _PARAMS_LOCK:
            found = cls.__dsl_params__.get(key) if key is not None else None
        if found is not None:
            return found  # type: ignore[return-value]
        shown = ", ".join(f"{name}={_short(value)}" for name, value in params.items())
        namespace = {
            "embeds": {**cls.embeds, **params},
            "__module__": cls.__module__,
            "__qualname__": f"{cls.__qualname__}[{shown}]",
            "__doc__": cls.__doc__,
        }
        meta: type[Any] = type(cls)
        made: type[Self] = meta(f"{cls.__name__}[{shown}]", (cls,), namespace)
        if key is not None:
            with _PARAMS_LOCK:
                cls.__dsl_params__[key] = made
        return made


def _freeze(params: Mapping[str, object]) -> object:
    """A hashable key for ``params`` (``None`` when some value is not hashable)."""
    items = []
    for name, value in sorted(params.items()):
        if isinstance(value, list | tuple):
            value = ("list", tuple(value))
        elif isinstance(value, set | frozenset):
            value = ("set", frozenset(value))
        try:
            hash(value)
        except TypeError:
            return None
        items.append((name, value))
    return tuple(items)


def _short(value: object) -> str:
    if isinstance(value, list | tuple | set | frozenset):
        return "[" + ", ".join(repr(v) for v in value) + "]"
    name = getattr(value, "__name__", None)
    text = name if isinstance(name, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
