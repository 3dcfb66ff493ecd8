"""Conformance against the grammar sets of ../shared/evaldata (see tests.conformance.runner).

Every case must pass, except those listed here with the reason. The lists are strict both ways:
a listed case that starts passing fails the test too, so the lists stay true. Refusals count as
refused, never as passed. ``python -m tests.conformance.runner`` prints the full report.
"""

from __future__ import annotations

import pytest

from tests.conformance.runner import SETS, cases, run

LLGUIDANCE_EXTENSIONS = (
    "llguidance-json",
    "llguidance-regex",
    "llguidance-lark",
    "llguidance-attributes",
    "llguidance-parametric",
    "llguidance-token-ids",
)

# (set, case-name prefix) -> (status, reason). Prefixes are matched against case names.
KNOWN: dict[tuple[str, str], tuple[str, str]] = {
    ("llamacpp_grammar_integration", "test_schema|min 0"): (
        "fail",
        "llama.cpp caps integers at 16 digits; JSON Schema has no such cap (jsonschema accepts"
        " 10**32 for minimum 0), so typedgen accepts it",
    ),
    ("llamacpp_grammar_integration", "test_schema|empty schema (object)"): (
        "fail",
        "llama.cpp reads {} as 'any object'; in JSON Schema {} accepts every value ('[]',"
        " 'null', '\"\"', 'true' are valid per jsonschema)",
    ),
    ("llamacpp_grammar_integration", "test_schema|object properties"): (
        "fail",
        "llama.cpp forbids unnamed properties by default; JSON Schema allows them unless"
        " additionalProperties is false (jsonschema accepts the extra 'direction')",
    ),
    ("llamacpp_grammar_llguidance", "test_grammar|simple max repetition"): (
        "fail",
        "lark refuses zero-width terminals (/[ab]{0,4}/); typedgen's Lark frontend mirrors lark,"
        " llguidance accepts them",
    ),
    ("lark_grammars", "file:lark/grammars/lark.lark"): (
        "fail",
        'contextual lexing does not backtrack: COMMENT /\\s*/ "//" keeps a leading space it '
        "cannot complete (' /a/'); lark falls back to a shorter match. 25/25 samples pass with "
        "lexer='dynamic'",
    ),
    ("lark_grammars", "file:lark/grammars/python.lark"): (
        "refused",
        "a look-behind after a look-ahead in one string regex has no exact regular rewrite",
    ),
    ("lark_grammars", "file:examples/grammars/verilog.lark"): (
        "refused",
        "look-ahead inside a repetition (block comments) is refused",
    ),
    ("lark_grammars", "embedded:examples/indented_tree.py"): (
        "refused",
        "%declare'd _INDENT/_DEDENT come from a postlexer: no pattern to compile",
    ),
    ("lark_parser_tests", "test_backwards_custom_lexer"): ("refused", "%declare"),
    ("lark_parser_tests", "test_postlex_declare"): ("refused", "%declare"),
    ("lark_parser_tests", "test_postlex_indenter"): ("refused", "%declare (Indenter postlexer)"),
    ("llguidance_lark_tests", "many|start: \"'foo'\" /a+/ | STRING"): (
        "fail",
        "equal-length matches of a literal and a pattern: the literal wins (as in lark);"
        " llguidance keeps both readings",
    ),
}


def _known(set_name: str, name: str) -> tuple[str, str] | None:
    for (s, prefix), value in KNOWN.items():
        if s == set_name and name.startswith(prefix):
            return value
    return None


@pytest.mark.parametrize("set_name", list(SETS))
def test_conformance_set(set_name: str) -> None:
    items = cases(set_name)
    if not items:
        pytest.skip(f"evaldata set {set_name!r} is absent (../shared/evaldata)")
    unexpected: list[str] = []
    for case in items:
        outcome = run(case)
        known = _known(set_name, case.name)
        if outcome.status == "refused" and outcome.detail.startswith(LLGUIDANCE_EXTENSIONS):
            continue  # llguidance-only syntax: refused by design, reported as refused
        if known is not None:
            if outcome.status != known[0]:
                unexpected.append(
                    f"{case.name[:70]!r}: expected {known[0]} ({known[1][:60]}), got "
                    f"{outcome.status} {outcome.detail[:100]}"
                )
        elif outcome.status not in {"pass", "skipped"}:
            unexpected.append(f"{case.name[:70]!r}: {outcome.status}: {outcome.detail[:200]}")
    assert not unexpected, "\n".join(unexpected)
