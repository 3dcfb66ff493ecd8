"""The old import place of :func:`typedgen.frontends.lark.syntax.eval_escaping` (tests use it)."""

from typedgen.frontends.lark.syntax import eval_escaping

__all__ = ["eval_escaping"]
