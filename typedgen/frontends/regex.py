"""Python regular expressions lowered to the IR, exactly.

The language of :func:`regex_to_expr` is the set of strings that ``re.fullmatch(pattern, s)``
accepts. The pattern is read by Python's own parser (``re._parser``), so every syntax Python
accepts means what Python says it means. Character classes, ``\\d \\w \\s`` and ``IGNORECASE``
follow the rules of CPython's ``sre`` engine for ``str`` patterns; the Unicode tables they need are
computed once, on first use. Constructs that are not regular or that look around the match
(back-references, look-ahead/behind, conditionals, atomic groups, possessive quantifiers, ``\\b``,
anchors away from the ends of the pattern) are refused with :class:`UnsupportedFeatureError`,
naming the column, rather than approximated.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from typedgen.errors import ErrorCode, GrammarError, UnsupportedFeatureError
from typedgen.ir.grammar import Grammar, Lexing, Rule, register_format
from typedgen.ir.nodes import (
    MAX_CODEPOINT,
    SURROGATES,
    Alt,
    CharClass,
    Expr,
    Lit,
    Repeat,
    Seq,
)
from typedgen.ir.origin import Origin
from typedgen.ir.passes import simplify
from typedgen.ir.ranges import complement_ranges, contains, intersect_ranges, point_ranges
from typedgen.ir.ranges import normalize_ranges as _norm
from typedgen.ir.ranges import subtract_ranges as _difference

__all__ = ["Flavor", "regex_grammar", "regex_to_expr"]

Flavor = Literal["python", "ecma"]
"""Which meaning ``\\d \\w \\s`` and ``.`` take: Python's, or ECMA-262's (JSON Schema)."""


def _load_sre() -> tuple[Any, Any]:
    try:
        return importlib.import_module("re._parser"), importlib.import_module("re._constants")
    except ImportError:  # pragma: no cover - Python < 3.11
        return importlib.import_module("sre_parse"), importlib.import_module("sre_constants")


_P, _C = _load_sre()
_SRE: Any = importlib.import_module("_sre")

_Ranges = tuple[tuple[int, int], ...]
_ALL: _Ranges = ((0, MAX_CODEPOINT),)
_SURROGATE_RANGE: _Ranges = (SURROGATES,)
_BMP_END = 0xFFFF
_ALLOWED_FLAGS = re.I | re.S | re.M | re.X | re.A | re.U
_DEFAULT_ORIGIN = Origin("<regex>")

# -- code point sets as sorted, merged range tuples -----------------------------------------


def _ranges_where(pred: Callable[[str], bool]) -> _Ranges:
    out: list[tuple[int, int]] = []
    start = -1
    for cp in range(MAX_CODEPOINT + 1):
        if pred(chr(cp)):
            if start < 0:
                start = cp
        elif start >= 0:
            out.append((start, cp - 1))
            start = -1
    if start >= 0:
        out.append((start, MAX_CODEPOINT))
    return tuple(out)


# -- the tables sre consults, computed once on first use ------------------------------------


@dataclass(frozen=True)
class _CaseRules:
    """One of sre's two case-insensitive regimes (Unicode, or ASCII under ``re.ASCII``)."""

    lower: dict[int, int]
    """The entries of the (simple) lower-casing map that change the code point."""
    inverse: dict[int, tuple[int, ...]]
    """``lower`` inverted: code point -> the other code points that lower-case to it."""
    keys: tuple[int, ...]
    keys_set: _Ranges
    cased: _Ranges
    fixes: dict[int, tuple[int, ...]]
    """sre's extra equivalences (``i``/``ı``, ``s``/``ſ``, ...), keyed by lower case."""
    iscased: Callable[[int], bool]
    literal_cache: dict[int, _Ranges] = field(default_factory=dict, compare=False)


def _case_rules(
    lower_fn: Callable[[int], int], iscased: Callable[[int], bool], top: int
) -> _CaseRules:
    lower = {cp: low for cp in range(top + 1) if (low := lower_fn(cp)) != cp}
    inverse: dict[int, list[int]] = {}
    for cp, low in lower.items():
        inverse.setdefault(low, []).append(cp)
    keys = tuple(sorted(lower))
    cased = tuple(cp for cp in range(top + 1) if iscased(cp))
    fixes: dict[int, tuple[int, ...]] = {}
    if top == MAX_CODEPOINT:
        fixes = dict(importlib.import_module("re._casefix")._EXTRA_CASES)
    return _CaseRules(
        lower=lower,
        inverse={k: tuple(v) for k, v in inverse.items()},
        keys=keys,
        keys_set=point_ranges(keys),
        cased=point_ranges(cased),
        fixes=fixes,
        iscased=iscased,
    )


@functools.cache
def _unicode_case() -> _CaseRules:
    return _case_rules(_SRE.unicode_tolower, _SRE.unicode_iscased, MAX_CODEPOINT)


@functools.cache
def _ascii_case() -> _CaseRules:
    return _case_rules(_SRE.ascii_tolower, _SRE.ascii_iscased, 0x7F)


@functools.cache
def _upper_map() -> dict[int, int]:
    # sre upper-cases with CPython's _PyUnicode_ToUppercase, which gives the first character of
    # the full mapping where one exists (``ŉ`` -> ``ʼ`` of ``ʼN``): that is str.upper()[0].
    return {cp: up for cp in range(MAX_CODEPOINT + 1) if (up := ord(chr(cp).upper()[0])) != cp}


@functools.cache
def _unicode_category(name: str) -> _Ranges:
    if name == "digit":
        return _ranges_where(str.isdecimal)
    if name == "word":
        return _ranges_where(lambda ch: ch.isalnum() or ch == "_")
    return _ranges_where(str.isspace)


@functools.cache
def _ecma_space() -> _Ranges:
    zs = [cp for cp in range(MAX_CODEPOINT + 1) if unicodedata.category(chr(cp)) == "Zs"]
    return point_ranges([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x2028, 0x2029, 0xFEFF, *zs])


_ASCII_SETS: dict[str, _Ranges] = {
    "digit": ((0x30, 0x39),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
}


def _preimage(targets: _Ranges, rules: _CaseRules) -> _Ranges:
    """The code points whose lower case lies in ``targets``."""
    base = _difference(targets, rules.keys_set)
    extra = [cp for cp, low in rules.lower.items() if contains(targets, low)]
    return _norm((*base, *((cp, cp) for cp in extra)))


def _lower_image(lo: int, hi: int, rules: _CaseRules) -> list[tuple[int, int]]:
    """The lower cases of the code points ``lo..hi``."""
    out = list(_difference(((lo, hi),), rules.keys_set))
    start = bisect.bisect_left(rules.keys, lo)
    stop = bisect.bisect_right(rules.keys, hi)
    out.extend((rules.lower[k], rules.lower[k]) for k in rules.keys[start:stop])
    return out


def _literal_set(cp: int, rules: _CaseRules) -> _Ranges:
    """What a literal matches case-insensitively (sre's ``LITERAL_UNI_IGNORE`` & co.)."""
    cached = rules.literal_cache.get(cp)
    if cached is not None:
        return cached
    if not rules.iscased(cp):
        result: _Ranges = ((cp, cp),)
    else:
        low = rules.lower.get(cp, cp)
        found: set[int] = set()
        for target in (low, *rules.fixes.get(low, ())):
            if target not in rules.lower:
                found.add(target)
            found.update(rules.inverse.get(target, ()))
        result = point_ranges(found)
    rules.literal_cache[cp] = result
    return result


# -- column finding: a walk over the pattern text that mirrors sre's tokenizer ---------------

_WHITESPACE = frozenset(" \t\n\r\v\f")
_DIGITS = frozenset("0123456789")
_OCTDIGITS = frozenset("01234567")
_BRACE_QUANTIFIER = re.compile(r"\{([0-9]*)(,([0-9]*))?\}")


@dataclass
class _Node:
    """A pattern element with its position: just enough structure to place the anchors."""

    kind: Literal["atom", "zero", "anchor", "group", "repeat"]
    pos: int
    text: str = ""
    alts: list[list[_Node]] = field(default_factory=list)
    item: _Node | None = None
    hi: int | None = None
    checked: bool = True


def _flanks(zero: list[bool]) -> list[tuple[bool, bool]]:
    """For each item: whether everything before it, and everything after it, is zero-width."""
    before = [True]
    for z in zero:
        before.append(before[-1] and z)
    after = [True]
    for z in reversed(zero):
        after.append(after[-1] and z)
    return [(before[i], after[len(zero) - 1 - i]) for i in range(len(zero))]


def _scan_zero(node: _Node) -> bool:
    if node.kind in ("zero", "anchor"):
        return True
    if node.kind == "group":
        return all(all(_scan_zero(x) for x in alt) for alt in node.alts)
    if node.kind == "repeat" and node.item is not None:
        return node.hi == 0 or _scan_zero(node.item)
    return False


class _Scanner:
    """Finds where the refused constructs sit in the pattern text, in source order.

    sre's parse tree has no positions, so this walks the (already validated) text once more
    and records ``(offset, code)`` for every construct the lowering refuses.
    """

    def __init__(self, text: str, verbose: bool) -> None:
        self.text = text
        self.i = 0
        self.events: list[tuple[int, str]] = []
        tree = self._alternation(verbose)
        for alt in tree:
            self._place_anchors(alt, True, True)
        self.events.sort()

    def _alternation(self, verbose: bool) -> list[list[_Node]]:
        alts = [self._sequence(verbose)]
        while self.i < len(self.text) and self.text[self.i] == "|":
            self.i += 1
            alts.append(self._sequence(verbose))
        return alts

    def _sequence(self, verbose: bool) -> list[_Node]:
        text = self.text
        items: list[_Node] = []
        while self.i < len(text):
            c = text[self.i]
            if verbose and c in _WHITESPACE:
                self.i += 1
                continue
            if verbose and c == "#":
                self.i = self._skip_tokens_until(self.i + 1, "\n")
                continue
            if c in "|)":
                break
            start = self.i
            brace = _BRACE_QUANTIFIER.match(text, start) if c == "{" else None
            if c == "\\":
                items.append(self._escape())
            elif c == "[":
                self._skip_class()
                items.append(_Node("atom", start))
            elif c == "(":
                node = self._group(verbose)
                if node is not None:
                    items.append(node)
            elif c in "*+?" or (brace is not None and brace.group() != "{}"):
                hi: int | None = 1 if c == "?" else None
                self.i += 1
                if brace is not None:
                    self.i = brace.end()
                    hi_text = brace.group(1) if brace.group(2) is None else brace.group(3)
                    hi = int(hi_text) if hi_text else None
                if self.i < len(text) and text[self.i] == "?":
                    self.i += 1
                elif self.i < len(text) and text[self.i] == "+":
                    self.events.append((start, "regex-possessive"))
                    self.i += 1
                if items:
                    items.append(_Node("repeat", start, item=items.pop(), hi=hi))
            elif c in "^$":
                items.append(_Node("anchor", start, text=c))
                self.i += 1
            else:
                items.append(_Node("atom", start))
                self.i += 1
        return items

    def _escape(self) -> _Node:
        text, start = self.text, self.i
        c = text[start + 1] if start + 1 < len(text) else ""
        self.i = start + 2
        if c in ("b", "B"):
            self.events.append((start, "regex-word-boundary"))
            return _Node("zero", start)
        if c in ("A", "Z"):
            return _Node("anchor", start, text="\\" + c)
        if c in ("x", "u", "U"):
            self.i += {"x": 2, "u": 4, "U": 8}[c]
        elif c == "N":
            self.i = text.find("}", self.i) + 1 or len(text)
        elif c == "0":
            while self.i < min(start + 4, len(text)) and text[self.i] in _OCTDIGITS:
                self.i += 1
        elif c in _DIGITS:
            nxt = text[start + 2 : start + 4]
            if nxt[:1] in _DIGITS and nxt[:1]:
                if c in _OCTDIGITS and len(nxt) == 2 and set(nxt) <= _OCTDIGITS:
                    self.i = start + 4
                    return _Node("atom", start)
                self.i = start + 3
            self.events.append((start, "regex-backreference"))
        return _Node("atom", start)

    def _skip_tokens_until(self, i: int, stop: str) -> int:
        # sre reads ``\\x`` as one token, so an escaped terminator does not end the run.
        text = self.text
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            i += 1
            if text[i - 1] == stop:
                break
        return i

    def _skip_class(self) -> None:
        text = self.text
        i = self.i + 1
        if i < len(text) and text[i] == "^":
            i += 1
        first = True
        while i < len(text):
            c = text[i]
            if c == "]" and not first:
                i += 1
                break
            i += 2 if c == "\\" else 1
            first = False
        self.i = i

    def _group(self, verbose: bool) -> _Node | None:
        text, start = self.text, self.i
        checked = True
        kind: Literal["group", "zero"] = "group"
        if not text.startswith("(?", start):
            self.i = start + 1
        else:
            c = text[start + 2 : start + 3]
            if c == "P" and text[start + 3 : start + 4] == "<":
                self.i = text.index(">", start) + 1
            elif c == "P":
                self.events.append((start, "regex-backreference"))
                self.i = text.index(")", start) + 1
                return _Node("atom", start)
            elif c == ":":
                self.i = start + 3
            elif c == "#":
                self.i = self._skip_tokens_until(start + 3, ")")
                return None
            elif c in ("=", "!", "<"):
                self.events.append((start, "regex-lookaround"))
                self.i = start + (4 if c == "<" else 3)
                kind, checked = "zero", False
            elif c == ">":
                self.events.append((start, "regex-atomic"))
                self.i = start + 3
                checked = False
            elif c == "(":
                self.events.append((start, "regex-conditional"))
                self.i = text.index(")", start + 3) + 1
                checked = False
            else:
                end = start + 2
                while text[end] not in ":)":
                    end += 1
                on, _, off = text[start + 2 : end].partition("-")
                self.i = end + 1
                if text[end] == ")":
                    return None
                verbose = (verbose or "x" in on) and "x" not in off
        alts = self._alternation(verbose)
        self.i += 1
        return _Node(kind, start, alts=alts, checked=checked)

    def _place_anchors(self, seq: list[_Node], start: bool, end: bool) -> None:
        flanks = _flanks([_scan_zero(node) for node in seq])
        for node, (before, after) in zip(seq, flanks, strict=True):
            self._place_anchor(node, start and before, end and after)

    def _place_anchor(self, node: _Node, start: bool, end: bool) -> None:
        if node.kind == "anchor":
            at_start = node.text in ("^", "\\A")
            if (at_start and not start) or (not at_start and not end):
                self.events.append((node.pos, "regex-anchor"))
        elif node.kind == "group" and node.checked:
            for alt in node.alts:
                self._place_anchors(alt, start, end)
        elif node.kind == "repeat" and node.item is not None:
            once = node.hi is not None and node.hi <= 1
            self._place_anchor(node.item, start and once, end and once)


# -- the lowering -----------------------------------------------------------------------------

_REFUSALS: dict[ErrorCode, tuple[str, str]] = {  # code -> (what is refused, what to do instead)
    "regex-backreference": (
        "back-references are not supported",
        "a back-reference is not regular; spell out the alternatives it may repeat",
    ),
    "regex-lookaround": (
        "look-ahead and look-behind assertions are not supported",
        "rewrite the pattern without the assertion (character classes often do it)",
    ),
    "regex-conditional": ("conditional groups are not supported", "write an alternation"),
    "regex-atomic": ("atomic groups (?>...) are not supported", "use a plain group (?:...)"),
    "regex-possessive": ("possessive quantifiers are not supported", "drop the trailing '+'"),
    "regex-word-boundary": (
        r"word boundaries \b and \B are not supported",
        "spell out the characters allowed on each side",
    ),
    "regex-anchor": (
        "an anchor (^, $, \\A, \\Z) is only supported at the very start or end of the pattern",
        "the whole string is matched anyway: drop the anchor or move it to the end it belongs to",
    ),
}


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _shown(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 80 else repr(pattern[:77] + "...")


class _Lowering:
    """Turns one parsed pattern (sre's tree) into an IR expression."""

    def __init__(self, pattern: str, flavor: Flavor, origin: Origin | None) -> None:
        self.pattern = pattern
        self.flavor = flavor
        self.user_origin = origin
        self.origin = origin or _DEFAULT_ORIGIN
        self.scanner: _Scanner | None = None
        self.char_exprs: dict[_Ranges, Expr] = {}

    # errors ----------------------------------------------------------------------------------
    def _where(self, offset: int | None) -> Origin:
        if self.user_origin is not None or offset is None:
            return self.origin
        line, col = _line_col(self.pattern, offset)
        return Origin(self.origin.source, line, col)

    def refuse(self, code: ErrorCode) -> UnsupportedFeatureError:
        # The scanner's first event is the construct met first; fall back to the first one of
        # the same kind should the two walks ever disagree.
        events = self.scanner.events if self.scanner else []
        matching = [pos for pos, c in events if c == code]
        offset = events[0][0] if events and events[0][1] == code else next(iter(matching), None)
        what, hint = _REFUSALS.get(code, ("this construct is not supported", "rewrite it"))
        at = f" (column {_line_col(self.pattern, offset)[1]})" if offset is not None else ""
        return UnsupportedFeatureError(
            f"{what}: pattern {_shown(self.pattern)}{at}",
            code=code,
            origin=self._where(offset),
            hint=hint,
        )

    # character sets --------------------------------------------------------------------------
    def _case(self, flags: int) -> _CaseRules:
        return _unicode_case() if flags & re.UNICODE else _ascii_case()

    def category(self, code: Any, flags: int) -> _Ranges:
        name = str(code).removeprefix("CATEGORY_").lower()
        negated = name.startswith("not_")
        base = name.removeprefix("not_")
        if base not in ("digit", "word", "space"):
            raise self.refuse("regex-category")
        if self.flavor == "ecma":
            ranges = _ecma_space() if base == "space" else _ASCII_SETS[base]
        elif flags & re.UNICODE:
            ranges = _unicode_category(base)
        else:
            ranges = _ASCII_SETS[base]
        return complement_ranges(ranges) if negated else ranges

    def literal(self, cp: int, flags: int) -> _Ranges:
        if not flags & re.IGNORECASE:
            return ((cp, cp),)
        return _literal_set(cp, self._case(flags))

    def any_char(self, flags: int) -> _Ranges:
        if flags & re.DOTALL:
            return _ALL
        excluded = (0x0A, 0x0D, 0x2028, 0x2029) if self.flavor == "ecma" else (0x0A,)
        return complement_ranges(point_ranges(excluded))

    def char_set(self, items: Sequence[tuple[Any, Any]], flags: int) -> _Ranges:
        negate = False
        literals: list[int] = []
        spans: list[tuple[int, int]] = []
        categories: list[tuple[int, int]] = []
        for op, av in items:
            if op is _C.NEGATE:
                negate = True
            elif op is _C.LITERAL:
                literals.append(av)
            elif op is _C.RANGE:
                spans.append((av[0], av[1]))
            elif op is _C.CATEGORY:
                categories.extend(self.category(av, flags))
            else:  # pragma: no cover - sre's parser emits nothing else inside [...]
                raise self.refuse("regex-class-item")
        if flags & re.IGNORECASE:
            result = self._folded_set(literals, spans, categories, self._case(flags))
        else:
            result = _norm([*((c, c) for c in literals), *spans, *categories])
        return complement_ranges(result) if negate else result

    def _folded_set(
        self,
        literals: list[int],
        spans: list[tuple[int, int]],
        categories: list[tuple[int, int]],
        rules: _CaseRules,
    ) -> _Ranges:
        # Mirrors re._compiler._optimize_charset: BMP items go into a case-folded charmap, the
        # rest into a tail matched as written; the engine then tests the lower-cased input
        # character against the set (IN_UNI_IGNORE), or the raw character if nothing is cased.
        charmap: list[tuple[int, int]] = []
        tail: list[tuple[int, int]] = []
        tail_spans: list[tuple[int, int]] = []
        hascased = False
        for cp in literals:
            low = rules.lower.get(cp, cp)
            if low <= _BMP_END:
                charmap.append((low, low))
                charmap.extend((k, k) for k in rules.fixes.get(low, ()))
                hascased = hascased or rules.iscased(cp)
            else:
                tail.append((cp, cp))
                hascased = True
        for lo, hi in spans:
            if lo <= _BMP_END:
                image = _norm(_lower_image(lo, min(hi, _BMP_END), rules))
                charmap.extend(image)
                for fix_key, fixed in rules.fixes.items():
                    if contains(image, fix_key):
                        charmap.extend((k, k) for k in fixed)
                if hi <= _BMP_END and intersect_ranges(((lo, hi),), rules.cased):
                    hascased = True
            if hi > _BMP_END:
                tail_spans.append((lo, hi))
                hascased = True
        accepted = _norm([*charmap, *tail, *tail_spans, *categories])
        if tail_spans:
            spans_set = _norm(tail_spans)
            ups = [cp for cp, up in _upper_map().items() if contains(spans_set, up)]
            accepted = _norm([*accepted, *((cp, cp) for cp in ups)])
        if not hascased:
            return accepted
        return _preimage(accepted, rules)

    def char_expr(self, ranges: _Ranges) -> Expr:
        """The shortest class (or literal) for a code point set; surrogates never match."""
        found = self.char_exprs.get(ranges)
        if found is None:
            found = self.char_exprs[ranges] = self._char_expr(ranges)
        return found

    def _char_expr(self, ranges: _Ranges) -> Expr:
        if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
            ranges = _difference(ranges, _SURROGATE_RANGE)
            if ranges:
                return Lit(chr(ranges[0][0]).encode("utf-8"), origin=self.origin)
        wanted = _difference(ranges, _SURROGATE_RANGE)
        if not wanted:
            return Alt((), origin=self.origin)
        if len(wanted) == 1 and wanted[0][0] == wanted[0][1]:
            return Lit(chr(wanted[0][0]).encode("utf-8"), origin=self.origin)
        with_sur = _norm((*wanted, SURROGATES))
        positive = min((wanted, with_sur), key=len)
        excluded = _difference(complement_ranges(wanted), _SURROGATE_RANGE)
        excluded_sur = _norm((*excluded, SURROGATES))
        negative = min((excluded, excluded_sur), key=len)
        if len(negative) < len(positive):
            return CharClass(negative, negated=True, origin=self.origin)
        return CharClass(positive, origin=self.origin)

    # structure -------------------------------------------------------------------------------
    def zero_width(self, op: Any, av: Any) -> bool:
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            return True
        if op is _C.SUBPATTERN:
            return all(self.zero_width(o, a) for o, a in av[3])
        if op is _C.ATOMIC_GROUP:
            return all(self.zero_width(o, a) for o, a in av)
        if op is _C.BRANCH:
            return all(all(self.zero_width(o, a) for o, a in alt) for alt in av[1])
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            return bool(av[1] == 0 or all(self.zero_width(o, a) for o, a in av[2]))
        return False

    def sequence(self, items: Any, flags: int, start: bool, end: bool) -> Expr:
        items = list(items)
        flanks = _flanks([self.zero_width(op, av) for op, av in items])
        parts = tuple(
            self.node(op, av, flags, start and before, end and after)
            for (op, av), (before, after) in zip(items, flanks, strict=True)
        )
        return Seq(parts, origin=self.origin)

    def node(self, op: Any, av: Any, flags: int, start: bool, end: bool) -> Expr:
        if op is _C.LITERAL:
            if not flags & re.IGNORECASE and not SURROGATES[0] <= av <= SURROGATES[1]:
                return Lit(chr(av).encode("utf-8"), origin=self.origin)
            return self.char_expr(self.literal(av, flags))
        if op is _C.NOT_LITERAL:
            return self.char_expr(complement_ranges(self.literal(av, flags)))
        if op is _C.ANY:
            return self.char_expr(self.any_char(flags))
        if op is _C.IN:
            return self.char_expr(self.char_set(av, flags))
        if op is _C.BRANCH:
            alts = tuple(self.sequence(alt, flags, start, end) for alt in av[1])
            return Alt(alts, origin=self.origin)
        if op is _C.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if add_flags & _P.TYPE_FLAGS:
                flags &= ~_P.TYPE_FLAGS
            return self.sequence(sub, (flags | add_flags) & ~del_flags, start, end)
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
            lo, hi, sub = av
            once = hi <= 1
            item = self.sequence(sub, flags, start and once, end and once)
            return self.repeat(item, lo, None if hi == _C.MAXREPEAT else hi)
        if op is _C.AT:
            if av in (_C.AT_BEGINNING, _C.AT_BEGINNING_STRING) and start:
                return Lit(b"", origin=self.origin)
            if av in (_C.AT_END, _C.AT_END_STRING) and end:
                return Lit(b"", origin=self.origin)
            if av in (_C.AT_BOUNDARY, _C.AT_NON_BOUNDARY):
                raise self.refuse("regex-word-boundary")
            raise self.refuse("regex-anchor")
        codes: dict[object, ErrorCode] = {
            _C.GROUPREF: "regex-backreference",
            _C.GROUPREF_EXISTS: "regex-conditional",
            _C.ASSERT: "regex-lookaround",
            _C.ASSERT_NOT: "regex-lookaround",
            _C.ATOMIC_GROUP: "regex-atomic",
            _C.POSSESSIVE_REPEAT: "regex-possessive",
        }
        raise self.refuse(codes.get(op, "regex-unsupported"))

    def repeat(self, item: Expr, lo: int, hi: int | None) -> Expr:
        if isinstance(item, Alt) and not item.items:  # a void item: only zero repetitions
            return Lit(b"", origin=self.origin) if lo == 0 else item
        return Repeat(item, lo, hi, origin=self.origin)


def _parse(pattern: str, flags: int, origin: Origin | None) -> Any:
    try:
        return _P.parse(pattern, flags)
    except (re.error, OverflowError, ValueError) as exc:
        pos = exc.pos if isinstance(exc, re.error) else None
        message = exc.msg if isinstance(exc, re.error) else str(exc)
        where = origin or _DEFAULT_ORIGIN
        if pos is not None:
            line, col = _line_col(pattern, pos)
            message += f" (column {col})"
            where = origin or Origin(_DEFAULT_ORIGIN.source, line, col)
        raise GrammarError(
            f"invalid regular expression: {message}: pattern {_shown(pattern)}",
            code="regex-syntax",
            origin=where,
            hint="the pattern must be valid for Python's re module",
        ) from None


def _checked(pattern: object, flags: int, flavor: str, origin: Origin | None) -> str:
    where = origin or _DEFAULT_ORIGIN
    if not isinstance(pattern, str):
        message = f"a regex pattern must be str, not {type(pattern).__name__}"
        hint = "decode bytes patterns first; the IR is over UTF-8 text"
        raise GrammarError(message, code="regex-type", origin=where, hint=hint)
    if flavor not in ("python", "ecma"):
        message = f"unknown regex flavor {flavor!r}"
        raise GrammarError(message, code="regex-flavor", origin=where, hint="'python' or 'ecma'")
    if flags & re.LOCALE:
        message = "re.LOCALE depends on the process locale at match time"
        hint = "drop re.LOCALE; str patterns are Unicode-aware by default"
        raise UnsupportedFeatureError(message, code="regex-locale", origin=where, hint=hint)
    if flags & ~_ALLOWED_FLAGS:
        message = f"unsupported regex flags {flags & ~_ALLOWED_FLAGS:#x}"
        hint = "allowed: re.IGNORECASE, DOTALL, MULTILINE, VERBOSE, ASCII, UNICODE"
        raise GrammarError(message, code="regex-flags", origin=where, hint=hint)
    return pattern


def regex_to_expr(
    pattern: str | re.Pattern[str],
    *,
    flags: int = 0,
    flavor: Flavor = "python",
    origin: Origin | None = None,
) -> Expr:
    """The IR expression for exactly the strings that ``re.fullmatch(pattern, s, flags)`` accepts.

    ``flavor="ecma"`` reads ``\\d \\w \\s`` and ``.`` as ECMA-262 does (for JSON Schema
    ``pattern``); everything else keeps Python's syntax. ``origin`` names where the pattern came
    from; errors carry it (the column is then given in the message).
    """
    if isinstance(pattern, re.Pattern):
        flags |= pattern.flags
        pattern = pattern.pattern
    text = _checked(pattern, int(flags), flavor, origin)
    tree = _parse(text, int(flags), origin)
    lowering = _Lowering(text, flavor, origin)
    try:
        lowering.scanner = _Scanner(text, bool(tree.state.flags & re.VERBOSE))
    except (IndexError, ValueError):  # pragma: no cover - positions are a courtesy
        lowering.scanner = None
    expr = lowering.sequence(tree, int(tree.state.flags), True, True)
    return simplify(expr)


def regex_grammar(
    pattern: str | re.Pattern[str],
    *,
    flags: int = 0,
    flavor: Flavor = "python",
    name: str = "start",
) -> Grammar:
    """A one-terminal grammar for the pattern (freely lexed), for ``Grammar.from_regex``."""
    expr = regex_to_expr(pattern, flags=flags, flavor=flavor)
    rule = Rule(name, expr, lexical=True, lexing=Lexing.FREE, origin=_DEFAULT_ORIGIN)
    return Grammar([rule], name, origin=_DEFAULT_ORIGIN)


register_format("regex", regex_grammar)
