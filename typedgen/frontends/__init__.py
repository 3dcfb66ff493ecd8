"""Frontends: declarations (grammar text, regexes, choices, ...) lowered to the IR.

Each frontend module registers its text format with :func:`typedgen.ir.register_format` when
imported, which makes ``Grammar.from_<format>`` available.
"""

from typedgen.frontends import choice, gbnf, jsonschema, lark, regex

__all__ = ["choice", "gbnf", "jsonschema", "lark", "regex"]
