"""Generated parts of the grammar library, kept in step with the ``.lark`` files by a test.

* ``toolcall.lark``'s ``NAME``: an ASCII identifier that is not a Python keyword, written out as
  one regexp (a trie over the keywords). A look-ahead such as ``(?!(?:if|for)(?!\\w))`` would
  be shorter, but typedgen reads a look-around nested in a look-around as if the inner one
  were absent (see docs/grammar-library.md).
* ``yaml.lark``'s per-level rules: a CFG has no indentation, so each nesting level has its
  own rules and line-break terminals; and ``yaml.check.lark``, which overrides those
  line-break terminals with unbounded runs of comment and blank lines (checking mode).

``python -m tests.grammars_lib._generate`` rewrites these files.
"""

from __future__ import annotations

import keyword
import re
import string
from pathlib import Path

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"
_WORD = string.ascii_letters + string.digits + "_"
_FIRST = string.ascii_letters + "_"
RESERVED = sorted([*keyword.kwlist, "__debug__"])


def _char_class(chars: list[str]) -> str:
    ordered = sorted(set(chars), key=ord)
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ord(ordered[j + 1]) == ord(ordered[j]) + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{ordered[i]}-{ordered[j]}")
        else:
            parts.extend(ordered[i : j + 1])
        i = j + 1
    return "[" + "".join(parts) + "]"


def identifier_regex(reserved: list[str] = RESERVED) -> str:
    """A regexp for ASCII identifiers other than ``reserved`` (a trie walk)."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in reserved:
        node = trie
        for c in word:
            node = node.setdefault(c, {})
        node["$"] = {}

    def at(node: dict, prefix: str) -> str:  # type: ignore[type-arg]
        kids = sorted(k for k in node if k != "$")
        leave = [c for c in (_WORD if prefix else _FIRST) if c not in kids]
        alts = [_char_class(leave) + "[A-Za-z0-9_]*"]
        alts += [k + at(node[k], prefix + k) for k in kids]
        body = "|".join(alts)
        if prefix and "$" not in node:  # the prefix itself is an identifier
            return f"(?:{body})?"
        return f"(?:{body})" if len(alts) > 1 else body

    return at(trie, "")


# -- YAML ------------------------------------------------------------------------------------
YAML_DEPTH = 9  # nesting levels 0..YAML_DEPTH, two spaces each

YAML_HEADER = r"""// YAML, a block-style subset: every document it accepts loads with PyYAML's
// safe_load.
//
// Covered: block mappings (`key: value`), block sequences (`- item`, also "compact" under a
// key at the key's own indentation), sequence items that are mappings (`- name: x`), plain,
// "double-quoted" and 'single-quoted' scalars, numbers, null values (`key:` or `-` alone),
// literal and folded block scalars (`|`, `|-`, `|+`, `>`, `>-`, `>+`), flow collections on
// one line (`[a, b]`, `{k: v, n: [1, 2]}`, nested, as values or as the whole document),
// comments on their own line or after a value, blank lines, a leading `---`.
//
// Generation mode (this file): between two lines of content at most 8 comment lines and at
// most two blank lines in a row, so a model cannot stall on them. yaml.check.lark lifts these
// bounds for checking files.
//
// Bounded or left out:
// - indentation is two spaces per level, at most 9 levels deep (a CFG has no indentation:
//   each level has its own rules, map_K/seq_K, and line-break terminal, NL_K, which carries
//   the next line's indentation; tests/grammars_lib/_generate.py writes them);
// - no anchors, aliases, tags, directives, several documents, multi-line plain or quoted
//   scalars or flow collections, complex keys (`? key`), `- - x`;
// - in flow collections: items are scalars (as below, without `, ? [ ] { }` in plain ones) or
//   flow collections; mapping entries are `key: value` with a space after the colon; no
//   trailing comma, no `[a: 1]` single-pair mappings; up to 4 spaces around `[ ] { } ,`;
// - keys are plain (a letter or `_`, then letters, digits, `_ . / -`, up to 64, and up to
//   three more such words after single spaces: `API reference`) or "double-quoted" without
//   escapes; one space after `key:` and `-`;
// - a plain scalar never contains `: ` or ` #` nor ends with `:`; it starts with a letter,
//   `_`, `.`, `/`, `$`, `(`, `~`, `^` or a non-ASCII character (after up to two `-`: `--fix`,
//   `-v`), or it is a number (`-12`, `3.25`), or it starts with a digit and its first word
//   has two dots (`1.2.3`, `0.0.0.0`) or a character no number or date has (`500m`,
//   `256Mi`, `10s`). Quote anything else:
//   dates, `3 replicas`, `-1x`. (PyYAML would refuse an impossible date such as 2024-02-30.)
// - a block scalar's first line is not more indented than its block (two spaces below the
//   key or dash); its blank lines are empty; a comment line right after it is indented no
//   deeper than the line that follows it (column 0 at the end of the document).
"""

# Character classes. P: printable non-space; C: comment text; T: block-scalar text.
_P = r"[^\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\ufffe\uffff]"
_P_NO_COLON = (
    r"[^\x00-\x20:\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\ufffe\uffff]"
)
_P_NO_HASH_COLON = (
    r"[^\x00-\x20#:\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\ufffe\uffff]"
)
# Characters that no PyYAML resolver for a scalar starting with a digit (int, float,
# timestamp) allows: one of them makes the scalar a string.
_NOT_NUMERIC = (
    r"[^\x00-\x20\-+.0-9:TZ_btxz\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
    r"\ufeff\ufffe\uffff]"
)
_FIRST_CHAR = (
    r"[A-Za-z_.\/$(~^\xa1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e\u2030-\u205e"
    r"\u2060-\u2fff\u3001-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_C = r"[^\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]"
_T = _C
_QUOTED = r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff"
_COMMENT = rf"( {{1,16}}#{_C}*)?"
# In flow collections plain scalars also stop at `, ? [ ] { }` (PyYAML's scanner).
_FLOW = r",?\[\]{}"


def _flow(cls: str) -> str:
    """Character class ``cls`` (a negated one) without the flow indicators."""
    assert cls.startswith("[^\\x00-\\x20")
    return cls.replace("[^\\x00-\\x20", "[^\\x00-\\x20" + _FLOW, 1)


def _words(p: str, p_no_colon: str, p_no_hash_colon: str, not_numeric: str) -> str:
    """A plain scalar's words: the rules for its first word (see the header), then more words."""
    first_word = (
        f"(?:-{{0,2}}{_FIRST_CHAR}({p}*{p_no_colon})?"
        f"|[0-9]{p}*{not_numeric}({p}*{p_no_colon})?"
        f"|[0-9]{p}*\\.{p}*\\.({p}*{p_no_colon})?)"
    )
    next_word = f"({p_no_hash_colon}({p}*{p_no_colon})?|:{p}*{p_no_colon})"
    return f"{first_word}( {{1,3}}{next_word})*"


def _separators(bounded: bool) -> tuple[str, str, list[str]]:
    """(_LEAD, the blank and comment lines of NL_K, NLB_K's after-block part per level):
    bounded runs in generation mode, unbounded ones in checking mode."""
    if bounded:
        blank, comment_line = " {0,32}\\n", f" {{0,32}}#{_C}*\\n"
        lines = f"(({blank}){{0,2}}{comment_line}){{0,8}}({blank}){{0,2}}"
        leading = f"(({blank}){{0,2}}{comment_line}){{1,8}}({blank}){{0,2}}|({blank}){{1,2}}"
        empty, comments = "\\n{0,2}", "{0,8}"
    else:
        blank, comment_line = " *\\n", f" *#{_C}*\\n"
        lines = f"(({blank})*{comment_line})*({blank})*"
        leading = f"(({blank})*{comment_line})+({blank})*|({blank})+"
        empty, comments = "\\n*", "*"
    lead = f"{lines}---{_COMMENT}\\n{lines}|{leading}"
    # After a block scalar: empty blank lines, and comment lines indented no deeper than the
    # next line (deeper ones would be the block's text).
    after_block = [
        f"({empty} {{0,{2 * k}}}#{_C}*\\n){comments}{empty}" for k in range(YAML_DEPTH + 1)
    ]
    return lead, lines, after_block


def _line_breaks(lines: str, after_block: list[str]) -> list[str]:
    """NL_K and NLB_K for every level K."""
    out = [f"NL_{k}: /\\n{lines}{' ' * (2 * k)}/" for k in range(YAML_DEPTH + 1)]
    out += [f"NLB_{k}: /\\n{after_block[k]}{' ' * (2 * k)}/" for k in range(YAML_DEPTH + 1)]
    return out


def _yaml_terminals() -> str:
    key = (
        rf"(?:[A-Za-z_][A-Za-z0-9_.\/-]{{0,63}}( [A-Za-z0-9_.\/-]{{1,32}}){{0,3}}"
        rf'|"{_QUOTED}"\\]{{0,64}}")'
    )
    escape = r'\\(["\\\/0abtnvfre]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})'
    lead, lines, after_block = _separators(bounded=True)
    plain = _words(_P, _P_NO_COLON, _P_NO_HASH_COLON, _NOT_NUMERIC)
    flow_plain = _words(_flow(_P), _flow(_P_NO_COLON), _flow(_P_NO_HASH_COLON), _flow(_NOT_NUMERIC))
    out = [
        "// Scalars, each with an optional comment after it.",
        f"PLAIN: /{plain}{_COMMENT}/",
        f"NUMBER: /-?(0|[1-9][0-9]{{0,17}})(\\.[0-9]{{1,17}})?{_COMMENT}/",
        f'DQ: /"({_QUOTED}"\\\\]|{escape})*"{_COMMENT}/',
        f"SQ: /'({_QUOTED}']|''){{0,}}'{_COMMENT}/",
        f"BLOCK: /[|>][-+]?{_COMMENT}/",
        "",
        "// `key: ` before a value on the same line; `key:` (and a comment) before a line break.",
        f"KEY_SP: /{key}: /",
        f"KEY_NL: /{key}:{_COMMENT}/",
        'DASH_SP: "- "',
        f"DASH_NL: /-{_COMMENT}/",
        "",
        "// Flow collections: scalars without a comment (a plain one may end in spaces, which",
        "// PyYAML drops), brackets, braces and commas with the spaces around them; a comment",
        "// after the whole collection.",
        f"FLOW_PLAIN: /{flow_plain}( {{1,3}})?/",
        "FLOW_NUMBER: /-?(0|[1-9][0-9]{0,17})(\\.[0-9]{1,17})?/",
        f'FLOW_DQ: /"({_QUOTED}"\\\\]|{escape})*"/',
        f"FLOW_SQ: /'({_QUOTED}']|'')*'/",
        f"FLOW_KEY: /{key}: {{1,4}}/",
        "_LBRACKET: /\\[ {0,4}/",
        "_RBRACKET: / {0,4}\\]/",
        "_LBRACE: /\\{ {0,4}/",
        "_RBRACE: / {0,4}\\}/",
        "_COMMA: / {0,4}, {0,4}/",
        f"_FLOW_COMMENT: / {{1,16}}#{_C}*/",
        "",
        "// Line breaks: then blank lines (at most two in a row) and comment lines (at most 8),",
        "// then",
        "// exactly the indentation of level K (NL_K; NLB_K after a block scalar). Block-scalar",
        "// lines: BFIRST_K / BLINE_K carry their line break, up to two empty lines before them,",
        "// the indentation of level K and the text.",
        f"_LEAD: /{lead}/",
    ]
    out += _line_breaks(lines, after_block)
    for k in range(1, YAML_DEPTH + 2):
        indent = " " * (2 * k)
        out.append(f"BFIRST_{k}: /\\n{{1,3}}{indent}{_P}{_T}*/")
        out.append(f"BLINE_{k}: /\\n{{1,3}}{indent}{_T}+/")
    return "\n".join(out)


def _alternatives(head: str, alts: list[str]) -> str:
    return f"{head}: " + f"\n{' ' * (len(head) + 0)}| ".join(alts)


def _yaml_rules() -> str:
    """Per level K: map_K/seq_K end in a plain line, mapb_K/seqb_K in a block scalar (which
    the next line break must not take for a comment: NLB_K instead of NL_K)."""
    out = [
        "start: _LEAD? (map_0 | seq_0) NL_0?",
        "     | _LEAD? (mapb_0 | seqb_0) NLB_0?",
        "     | _LEAD? _flow _FLOW_COMMENT? NL_0?",
        "",
        "_scalar: PLAIN | NUMBER | DQ | SQ | _flow _FLOW_COMMENT?",
        "",
        "_flow: flow_seq | flow_map",
        "flow_seq: _LBRACKET [_flow_item (_COMMA _flow_item)*] _RBRACKET",
        "flow_map: _LBRACE [flow_pair (_COMMA flow_pair)*] _RBRACE",
        "flow_pair: FLOW_KEY _flow_item",
        "_flow_item: FLOW_PLAIN | FLOW_NUMBER | FLOW_DQ | FLOW_SQ | _flow",
    ]
    for k in range(YAML_DEPTH + 1):
        deeper = k < YAML_DEPTH
        m = k + 1
        block = f"_block_{m}"
        plain = ["KEY_SP _scalar", "KEY_NL"]
        ending = [f"KEY_SP {block}"]
        if deeper:
            plain += [f"KEY_NL NL_{m} map_{m}", f"KEY_NL NL_{m} seq_{m}"]
            ending += [f"KEY_NL NL_{m} mapb_{m}", f"KEY_NL NL_{m} seqb_{m}"]
        plain.append(f"KEY_NL NL_{k} seq_{k}")
        ending.append(f"KEY_NL NL_{k} seqb_{k}")
        dash_plain = ["DASH_SP _scalar", "DASH_NL"]
        dash_ending = [f"DASH_SP {block}"]
        if deeper:
            dash_plain += [f"DASH_SP map_{m}", f"DASH_NL NL_{m} map_{m}", f"DASH_NL NL_{m} seq_{m}"]
            dash_ending += [
                f"DASH_SP mapb_{m}",
                f"DASH_NL NL_{m} mapb_{m}",
                f"DASH_NL NL_{m} seqb_{m}",
            ]
        out += [
            "",
            f"map_{k}: _mrun_{k}",
            f"mapb_{k}: _mrunb_{k} -> map_{k}",
            f"_mrun_{k}: _me_{k} | _me_{k} NL_{k} _mrun_{k} | _meb_{k} NLB_{k} _mrun_{k}",
            f"_mrunb_{k}: _meb_{k} | _me_{k} NL_{k} _mrunb_{k} | _meb_{k} NLB_{k} _mrunb_{k}",
            _alternatives(f"_me_{k}", plain),
            _alternatives(f"_meb_{k}", ending),
            f"seq_{k}: _srun_{k}",
            f"seqb_{k}: _srunb_{k} -> seq_{k}",
            f"_srun_{k}: _se_{k} | _se_{k} NL_{k} _srun_{k} | _seb_{k} NLB_{k} _srun_{k}",
            f"_srunb_{k}: _seb_{k} | _se_{k} NL_{k} _srunb_{k} | _seb_{k} NLB_{k} _srunb_{k}",
            _alternatives(f"_se_{k}", dash_plain),
            _alternatives(f"_seb_{k}", dash_ending),
            f"_block_{m}: BLOCK BFIRST_{m} BLINE_{m}*",
        ]
    return "\n".join(out)


def yaml_grammar() -> str:
    return f"{YAML_HEADER}{_yaml_rules()}\n\n{_yaml_terminals()}\n"


def yaml_check_grammar() -> str:
    """``yaml.check.lark``: yaml.lark with unbounded runs of comment and blank lines."""
    lead, lines, after_block = _separators(bounded=False)
    levels = range(YAML_DEPTH + 1)
    rules = [f"map_{k}, seq_{k}" for k in levels]
    breaks = [f"NL_{k}, NLB_{k}" for k in levels]
    out = [
        '// yaml.lark in checking mode (typedgen.grammars.load("yaml", mode="check")): what a',
        "// file may hold rather than what a model should write. Any number of comment lines",
        "// and blank lines between two lines of content; everything else is yaml.lark's.",
        "// (Generated by tests/grammars_lib/_generate.py.)",
        "%import yaml (start, flow_seq, flow_map, flow_pair, _LEAD)",
        f"%import yaml ({', '.join(rules[:5])})",
        f"%import yaml ({', '.join(rules[5:])})",
        f"%import yaml ({', '.join(breaks[:5])})",
        f"%import yaml ({', '.join(breaks[5:])})",
        "%import yaml (PLAIN, NUMBER, DQ, SQ, BLOCK, KEY_SP, KEY_NL, DASH_SP, DASH_NL)",
        "%import yaml (FLOW_PLAIN, FLOW_NUMBER, FLOW_DQ, FLOW_SQ, FLOW_KEY)",
        "",
        f"%override _LEAD: /{lead}/",
    ]
    out += [f"%override {line}" for line in _line_breaks(lines, after_block)]
    return "\n".join(out) + "\n"


def toolcall_name(text: str) -> str:
    """The ``NAME`` regexp written in ``toolcall.lark``."""
    m = re.search(r"^NAME: /(.*)/$", text, re.M)
    assert m is not None, "toolcall.lark has no NAME terminal"
    return m.group(1)


def toolcall_grammar(current: str) -> str:
    """``current`` with its ``NAME`` regexp regenerated."""
    return current.replace(toolcall_name(current), identifier_regex())


def main() -> None:
    (GRAMMARS / "yaml.lark").write_text(yaml_grammar(), encoding="utf-8")
    (GRAMMARS / "yaml.check.lark").write_text(yaml_check_grammar(), encoding="utf-8")
    path = GRAMMARS / "toolcall.lark"
    path.write_text(toolcall_grammar(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
