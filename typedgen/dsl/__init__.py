"""DSL classes: a Lark grammar plus Transformer-style methods, as a typedgen output type.

``typedgen.DSL`` is the base class (see :class:`typedgen.dsl.base.DSL`); ``v_args`` and
``Discard`` mirror lark's; ``DSLValueError`` is what a rejected output raises at bind time.
See docs/dsl.md.
"""

from typedgen.dsl.base import DSL
from typedgen.dsl.transform import Discard, DSLValueError, v_args

__all__ = ["DSL", "DSLValueError", "Discard", "v_args"]
