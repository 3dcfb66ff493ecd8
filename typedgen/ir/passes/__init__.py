"""Passes over the IR: validation, simplification, renaming, pruning."""

from typedgen.ir.passes.rewrite import prune_unreachable, rename_rules, simplify, transform
from typedgen.ir.passes.validate import (
    productive_rules,
    reachable_rules,
    referenced_names,
    validate_grammar,
)

__all__ = [
    "productive_rules",
    "prune_unreachable",
    "reachable_rules",
    "referenced_names",
    "rename_rules",
    "simplify",
    "transform",
    "validate_grammar",
]
