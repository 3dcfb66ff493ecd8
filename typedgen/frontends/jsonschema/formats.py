"""JSON Schema ``format`` values as IR expressions of the decoded string.

Each expression describes the string's *characters* (JSON escaping and the quotes are the
caller's). It is written as a Python regular expression and lowered exactly by
:func:`~typedgen.frontends.regex.regex_to_expr`; the e-mail local part adds one length bound
with :class:`~typedgen.ir.nodes.Intersect`.

Soundness comes first: every accepted string is valid per the format's RFC *and* per
``jsonschema``'s draft 2020-12 ``FormatChecker`` with its optional checker libraries installed
(rfc3339-validator, rfc3986-validator, fqdn, idna, isoduration, jsonpointer, uri-template). Where
the two disagree, or where the exact language would make a large automaton, a valid value is
left out instead; the deviations are listed below, per format.

* ``date-time``, ``date``, ``time`` (RFC 3339): exact calendar (month lengths, Feb 29 in leap
  years only). Left out: leap seconds (``:60``, which the checker refuses), year ``0000`` (which
  it refuses too), and the space separator RFC 3339 merely permits; canonically, fractions of a
  second beyond 9 digits (nanoseconds).
* ``duration`` (RFC 3339 appendix A): the ABNF exactly, upper-case designators only.
* ``email``, ``idn-email`` (RFC 5321 mailbox): a dot-atom local part of at most 64 characters,
  ``@``, and a ``hostname`` (below) of at most 189 characters, so the whole stays within the
  254-character path limit. Left out: quoted local parts, address literals, non-ASCII.
* ``hostname``, ``idn-hostname`` (RFC 1123, RFC 5890): ASCII letter-digit-hyphen labels of at
  most 63 characters, no trailing dot, and no ``--`` in the 3rd and 4th places (that prefix
  is reserved for A-labels, which ``xn--`` labels must be and which are left out). The 253
  character cap is met by shape, not by counting both lengths (that automaton has about 24,000
  states): a name is accepted when *one* of these holds: all labels have at most 63 characters
  and there are at most 3 of them plus a final one of at most 61; or at most 24 and 10 plus a
  final one of at most 3; or at most 10 and 23. Longer valid names are rejected.
* ``ipv4``: dotted quad, no leading zeros. ``ipv6`` (RFC 4291 text forms): all of them,
  including ``::`` and a trailing dotted quad; no zone ids.
* ``uuid``: 8-4-4-4-12 hexadecimal digits, either case.
* ``uri``, ``uri-reference`` (RFC 3986): the ABNF exactly, except that IPvFuture literals take
  a lower-case ``v`` only (as the checker does).
* ``iri``, ``iri-reference`` (RFC 3987): the same grammar with ``ucschar`` and ``iprivate``,
  cut to what jsonschema's checker built on rfc3987-syntax accepts: non-ASCII characters from
  the BMP only, and IPv6 literals whose ``::`` stands for exactly one group (or is absent), so
  ``http://[2001:db8::1]`` is rejected.
* ``json-pointer`` (RFC 6901): exact. ``relative-json-pointer``: the leading integer is ``0``
  or a number whose only zero is a last digit (``10``, ``120``), because the checker refuses any
  digit that follows a ``0`` (``100``); no index manipulation (``0+1``), which it refuses too.
* ``uri-template`` (RFC 6570): literals per the ABNF (so no ``'``), expressions with the level
  2-4 operators; variable names without percent escapes and prefix lengths of at most 999
  (the checker's limits).
* ``regex`` (ECMA-262, also compiled by Python ``re``): a common subset that both engines accept:
  literals, ``.``, simple escapes, classes with single characters, escapes and the ranges
  ``0-9 a-z A-Z a-f A-F``, anchors, quantifiers (``{n,m}`` with single digits), alternation, and
  groups ``( )``/``(?: )`` nested at most three deep.

Results are cached per name and built with no origin: expressions compare without origins,
and ``origin`` only locates the error for an unsupported name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from typedgen.errors import UnsupportedFeatureError
from typedgen.frontends.regex import regex_to_expr
from typedgen.ir.nodes import CharClass, Complement, Expr, Intersect, Lit, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = ["FORMATS", "format_expr"]

# -- dates and times (RFC 3339) ----------------------------------------------------------------

_YEAR = "(?:[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"  # 0000 is refused by the checker
_QUAD = "(?:0[48]|[2468][048]|[13579][26])"  # two digits, a multiple of 4 but not 00
_LEAP_YEAR = f"(?:[0-9]{{2}}{_QUAD}|{_QUAD}00)"
_MONTH_DAY = (
    "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    "|(?:0[13-9]|1[0-2])-(?:29|30)"
    "|(?:0[13578]|1[02])-31)"
)
_DATE = f"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_OFFSET = "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_CLOCK = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
# Canonical: a fraction of at most 9 digits (nanoseconds, the finest resolution of common
# timestamp types; a small model otherwise writes "00:00:00.0000000000000000..."); any with "all".
_TIME = f"{_CLOCK}(?:\\.[0-9]{{1,9}})?{_OFFSET}"
_TIME_EXACT = f"{_CLOCK}(?:\\.[0-9]+)?{_OFFSET}"
_DATE_TIME = f"{_DATE}[Tt]{_TIME}"


def _leap_time(fraction: str) -> str:
    """Times with second 60 that are 23:59:60 UTC once the offset is taken off.

    Offsets are those whose minutes are 00, 15, 30 or 45 (every offset in use since leap
    seconds began in 1972): the automaton must carry the local hour and minute to the offset,
    and all 60 offset minutes would take 11,000 states instead of 870.
    """
    alts = []
    for local in range(24 * 60):
        plus = (local - (23 * 60 + 59)) % (24 * 60)
        minus = (23 * 60 + 59 - local) % (24 * 60)
        offsets = [
            f"{sign}{off // 60:02d}:{off % 60:02d}"
            for sign, off in (("\\+", plus), ("-", minus))
            if off % 15 == 0
        ]
        if local == 23 * 60 + 59:
            offsets.append("[Zz]")
        if offsets:
            alts.append(f"{local // 60:02d}:{local % 60:02d}:60{fraction}(?:{'|'.join(offsets)})")
    return f"(?:{'|'.join(alts)})"


_LEAP_TIME = _leap_time("(?:\\.[0-9]+)?")
_TIME_ALL = f"(?:{_TIME_EXACT}|{_LEAP_TIME})"
_DATE_TIME_ALL = f"{_DATE}[Tt]{_TIME_ALL}"


def _duration(n: str) -> str:
    """RFC 3339 appendix A with ``n`` as the digits of one component."""
    dur_time = f"T(?:{n}H(?:{n}M(?:{n}S)?)?|{n}M(?:{n}S)?|{n}S)"
    dur_date = f"(?:{n}D|{n}M(?:{n}D)?|{n}Y(?:{n}M(?:{n}D)?)?)(?:{dur_time})?"
    return f"P(?:{dur_date}|{dur_time}|{n}W)"


# At most 6 digits a component: larger durations overflow Python's timedelta (Pydantic).
_DURATION = _duration("[0-9]{1,6}")
_DURATION_ALL = _duration("[0-9]+")

# -- host names and addresses ------------------------------------------------------------------

_LD = "[A-Za-z0-9]"
_LDH = "[A-Za-z0-9-]"


def _label(most: int) -> str:
    """An LDH label of 1..``most`` characters without ``--`` in the 3rd and 4th places."""
    if most == 1:
        return _LD
    longer = [f"{_LDH}?{_LD}" if most >= 3 else _LD]
    if most >= 4:
        longer.append(f"{_LDH}{_LDH}{_LD}")
    if most >= 5:
        longer.append(f"{_LDH}(?:{_LD}{_LDH}|-{_LD}){_LDH}{{0,{most - 5}}}{_LD}")
    return f"{_LD}(?:{'|'.join(longer)})?"


_HOST_TIERS = (63, 24, 10)


def _hostname(total: int) -> str:
    """Host names of at most ``total`` characters, bounded by label size and count (see above)."""
    tiers = []
    for most in _HOST_TIERS:
        count, rest = divmod(total + 1, most + 1)
        tier = f"{_label(most)}(?:\\.{_label(most)}){{0,{count - 1}}}"
        if rest > 1:
            tier += f"(?:\\.{_label(rest - 1)})?"
        tiers.append(f"(?:{tier})")
    return f"(?:{'|'.join(tiers)})"


_HOSTNAME = _hostname(253)
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"
_H16 = "[0-9A-Fa-f]{1,4}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"
_IPV6 = (
    "(?:"
    + "|".join(
        [
            f"(?:{_H16}:){{6}}{_LS32}",
            f"::(?:{_H16}:){{5}}{_LS32}",
            f"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
            f"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
            f"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
            f"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
            f"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
            f"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
            f"(?:(?:{_H16}:){{0,6}}{_H16})?::",
        ]
    )
    + ")"
)
_HEX = "[0-9A-Fa-f]"
_UUID = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

# RFC 5322 atext; the length bounds are added in _email().
_DOT_ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_MAIL_DOMAIN = _hostname(189)  # 64 + 1 + 189 = 254, the longest mailbox a path allows

# -- URIs and IRIs (RFC 3986, RFC 3987) --------------------------------------------------------

_UCSCHAR_BMP = "\\u00a0-\\ud7ff\\uf900-\\ufdcf\\ufdf0-\\uffef"
_IPRIVATE_BMP = "\\ue000-\\uf8ff"
_UCSCHAR = (
    _UCSCHAR_BMP
    + "".join(f"\\U{p:04x}0000-\\U{p:04x}fffd" for p in range(1, 14))
    + "\\U000e1000-\\U000efffd"
)
_IPRIVATE = _IPRIVATE_BMP + "\\U000f0000-\\U000ffffd\\U00100000-\\U0010fffd"


def _ipv6_one_gap() -> str:
    """IPv6 literals whose ``::`` stands for one group or is absent (rfc3987-syntax's reading)."""
    forms = [f"(?:{_H16}:){{6}}{_LS32}"]
    for before in range(8):
        head = f"(?:{_H16}:){{{before - 1}}}{_H16}" if before else ""
        after = 7 - before
        tail = f"(?:{_H16}:){{{after - 2}}}{_LS32}" if after >= 2 else _H16 * after
        forms.append(f"{head}::{tail}")
    return f"(?:{'|'.join(forms)})"


def _uri(iri: bool, exact: bool = False) -> tuple[str, str]:
    """The absolute form and the reference form of RFC 3986 (or, with ``iri``, RFC 3987).

    ``exact``: the RFCs' grammars as written; otherwise cut to what jsonschema's checkers
    accept (see the module's notes).
    """
    ucschar, iprivate = (_UCSCHAR, _IPRIVATE) if exact else (_UCSCHAR_BMP, _IPRIVATE_BMP)
    unreserved = "A-Za-z0-9\\-._~" + (ucschar if iri else "")
    sub_delims = "!$&'()*+,;="
    pct = "%[0-9A-Fa-f]{2}"
    pchar = f"(?:[{unreserved}{sub_delims}:@]|{pct})"
    userinfo = f"(?:[{unreserved}{sub_delims}:]|{pct})*"
    reg_name = f"(?:[{unreserved}{sub_delims}]|{pct})*"
    ip_future = f"{'[vV]' if exact else 'v'}[0-9A-Fa-f]+\\.[A-Za-z0-9\\-._~{sub_delims}:]+"
    ipv6 = _ipv6_one_gap() if iri and not exact else _IPV6
    host = f"(?:\\[(?:{ipv6}|{ip_future})\\]|{reg_name})"
    authority = f"(?:{userinfo}@)?{host}(?::[0-9]*)?"
    segments = f"(?:/{pchar}*)*"
    absolute = f"/(?:{pchar}+{segments})?"
    query = f"(?:{pchar}|[/?{iprivate if iri else ''}])*"
    fragment = f"(?:{pchar}|[/?])*"
    tail = f"(?:\\?{query})?(?:#{fragment})?"
    scheme = "[A-Za-z][A-Za-z0-9+\\-.]*"
    full = f"{scheme}:(?://{authority}{segments}|{absolute}|{pchar}+{segments}|){tail}"
    noscheme = f"(?:[{unreserved}{sub_delims}@]|{pct})+{segments}"
    relative = f"(?://{authority}{segments}|{absolute}|{noscheme}|){tail}"
    return full, f"(?:{full}|{relative})"


_URI, _URI_REFERENCE = _uri(iri=False)
_IRI, _IRI_REFERENCE = _uri(iri=True)
_URI_EXACT, _URI_REFERENCE_EXACT = _uri(iri=False, exact=True)
_IRI_EXACT, _IRI_REFERENCE_EXACT = _uri(iri=True, exact=True)

# -- pointers, templates, regular expressions ----------------------------------------------------

_JSON_POINTER = "(?:/(?:[^/~]|~[01])*)*"
_RELATIVE_JSON_POINTER = f"(?:0|[1-9]+0?)(?:#|{_JSON_POINTER})"
_RELATIVE_JSON_POINTER_ALL = f"(?:0|[1-9][0-9]*)(?:#|{_JSON_POINTER})"

_TEMPLATE_LITERAL = (
    f"(?:[!#$&(-;=?-\\[\\]_a-z~{_UCSCHAR}{_IPRIVATE}]|%[0-9A-Fa-f]{{2}})"  # RFC 6570 literals
)
_VARSPEC = "[A-Za-z0-9_](?:\\.?[A-Za-z0-9_])*(?::[1-9][0-9]{0,2}|\\*)?"
_URI_TEMPLATE = f"(?:{_TEMPLATE_LITERAL}|\\{{[+#./;?&]?{_VARSPEC}(?:,{_VARSPEC})*\\}})*"
# RFC 6570 as written (with erratum 6937's apostrophe): percent escapes in variable names,
# prefix lengths up to 9999.
_VARCHAR = "(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC_ALL = f"{_VARCHAR}(?:\\.?{_VARCHAR})*(?::[1-9][0-9]{{0,3}}|\\*)?"
_URI_TEMPLATE_ALL = (
    f"(?:{_TEMPLATE_LITERAL}|'|\\{{[+#./;?&]?{_VARSPEC_ALL}(?:,{_VARSPEC_ALL})*\\}})*"
)


def _regex_syntax(depth: int) -> str:
    """Regular expressions both ECMA-262 and Python accept, groups nested ``depth`` deep."""
    literal = "[^\\x00-\\x1f\\x7f\\\\^$.|?*+()\\[\\]{}]"
    escape = "\\\\[dDwWsStnrfv\\\\^$.|?*+()\\[\\]{}/]"
    member = (
        "(?:[^\\x00-\\x1f\\x7f\\\\\\[\\]^&|~-]|\\\\[dDwWsStnrfv\\\\\\[\\]^-]|0-9|a-z|A-Z|a-f|A-F)"
    )
    klass = f"\\[\\^?{member}+\\]"
    counts = "(?:0,[0-9]|1,[1-9]|2,[2-9]|3,[3-9]|4,[4-9]|5,[5-9]|6,[6-9]|7,[7-9]|8,[89]|9,9)"
    quantifier = f"(?:(?:[*+?]|\\{{(?:[0-9]{{1,3}},?|{counts})\\}})\\??)"
    atom = f"(?:{literal}|{escape}|\\.|{klass})"
    body = f"(?:{atom}{quantifier}?|[\\^$|])*"
    for _ in range(depth):
        atom = f"(?:{literal}|{escape}|\\.|{klass}|\\((?:\\?:)?{body}\\))"
        body = f"(?:{atom}{quantifier}?|[\\^$|])*"
    return body


_REGEX = _regex_syntax(3)

_PATTERNS: dict[str, str] = {
    "date-time": _DATE_TIME,
    "date": _DATE,
    "time": _TIME,
    "duration": _DURATION,
    "email": f"{_DOT_ATOM}@{_MAIL_DOMAIN}",
    "idn-email": f"{_DOT_ATOM}@{_MAIL_DOMAIN}",
    "hostname": _HOSTNAME,
    "idn-hostname": _HOSTNAME,
    "ipv4": _IPV4,
    "ipv6": _IPV6,
    "uuid": _UUID,
    "uri": _URI,
    "uri-reference": _URI_REFERENCE,
    "iri": _IRI,
    "iri-reference": _IRI_REFERENCE,
    "json-pointer": _JSON_POINTER,
    "relative-json-pointer": _RELATIVE_JSON_POINTER,
    "uri-template": _URI_TEMPLATE,
    "regex": _REGEX,
}
"""The regular expression of each format (for ``email``, before the local part's length cap)."""


# Domains that email-validator (behind Pydantic's EmailStr) refuses although RFC 5321 allows
# them: no dot, a TLD that is not letters, or a special-use name (RFC 6761 and kin).
_SPECIAL_USE = ("arpa", "invalid", "local", "localhost", "onion", "test")


def _email() -> Expr:
    """RFC 5321 caps the local part at 64 characters: counted by intersection, not by regex.

    The domain must also look globally deliverable (a dot, an alphabetic TLD that is not a
    special-use name), so that every generated address passes email-validator too.
    """
    local = Intersect((regex_to_expr(_DOT_ATOM), Repeat(CharClass(((0x21, 0x7E),)), 1, 64)))
    special = "|".join(_SPECIAL_USE)
    domain = Intersect(
        (
            regex_to_expr(_MAIL_DOMAIN),
            regex_to_expr(r"(?:[^@.]+\.)+[A-Za-z]{2,63}"),
            Complement(regex_to_expr(rf"(?:[^@]*\.)?(?i:{special})")),
        )
    )
    return Seq((local, Lit(b"@"), domain))


# RFC 5321: a quoted local part, and address literals for the domain.
_QUOTED_LOCAL = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"'
_ADDRESS_LITERAL = f"\\[(?:{_IPV4}|(?i:IPv6):{_IPV6})\\]"


def _email_all() -> Expr:
    """RFC 5321 mailboxes: a dot-atom or quoted local part of at most 64 characters, ``@``,
    and a host name (as for ``hostname``, at most 189 characters) or an address literal."""
    local = Intersect(
        (
            regex_to_expr(f"(?:{_DOT_ATOM}|{_QUOTED_LOCAL})"),
            Repeat(CharClass(((0x20, 0x7E),)), 1, 64),
        )
    )
    domain = regex_to_expr(f"(?:{_MAIL_DOMAIN}|{_ADDRESS_LITERAL})")
    return Seq((local, Lit(b"@"), domain))


_SPECIAL: dict[str, Callable[[], Expr]] = {"email": _email, "idn-email": _email}

FORMATS: frozenset[str] = frozenset(_PATTERNS)
"""The ``format`` names :func:`format_expr` supports."""

_PATTERNS_ALL: dict[str, str] = {
    **_PATTERNS,
    "date-time": _DATE_TIME_ALL,
    "time": _TIME_ALL,
    "duration": _DURATION_ALL,
    "uri": _URI_EXACT,
    "uri-reference": _URI_REFERENCE_EXACT,
    "iri": _IRI_EXACT,
    "iri-reference": _IRI_REFERENCE_EXACT,
    "relative-json-pointer": _RELATIVE_JSON_POINTER_ALL,
    "uri-template": _URI_TEMPLATE_ALL,
}
"""With ``spellings="all"``: every value the format's RFC allows (leap seconds, long durations,
quoted local parts...), where the language is regular and small enough to be exact."""

_SPECIAL_ALL: dict[str, Callable[[], Expr]] = {"email": _email_all}

_REFUSED_ALL: dict[str, str] = {
    "idn-hostname": "IDNA 2008 validity (code point tables, contextual and bidi rules, the"
    " Punycode length of each label) cannot be decided exactly by a grammar",
    "idn-email": "its domain is an internationalised host name, whose IDNA 2008 validity cannot"
    " be decided exactly by a grammar",
    "regex": "ECMA-262 patterns nest without bound, so the language is not regular",
}
"""Formats whose every valid value a grammar cannot accept: refused with ``spellings="all"``."""


@functools.cache
def _build(name: str, spellings: str = "canonical") -> Expr:
    if spellings == "all":
        special = _SPECIAL_ALL.get(name)
        return special() if special is not None else regex_to_expr(_PATTERNS_ALL[name])
    special = _SPECIAL.get(name)
    return special() if special is not None else regex_to_expr(_PATTERNS[name])


def format_expr(name: str, *, origin: Origin | None = None, spellings: str = "canonical") -> Expr:
    """The expression of the decoded strings valid for ``format: name`` (cached, origin-free).

    The expression is regular and may hold an ``Intersect`` (``email``), so it belongs inside a
    terminal. An unknown name is refused rather than ignored: an unenforced format would let
    invalid values through. ``origin`` locates that error. ``spellings="canonical"`` gives the
    values both the RFC and jsonschema's checkers accept; ``"all"`` every value the RFC allows,
    or :class:`UnsupportedFeatureError` for the formats in ``_REFUSED_ALL``.
    """
    if spellings == "all" and name in _REFUSED_ALL:
        raise UnsupportedFeatureError(
            f"string format {name!r}: {_REFUSED_ALL[name]}",
            code="schema-format",
            origin=origin,
            hint="pass spellings='canonical' (ASCII values only), formats='annotate' to leave"
            " formats unchecked, or strict=False to check it after decoding",
        )
    if name not in FORMATS:
        raise UnsupportedFeatureError(
            f"string format {name!r} is not supported",
            code="schema-format",
            origin=origin,
            hint=f"supported formats: {', '.join(sorted(FORMATS))}; "
            "drop the format or describe the string with a pattern",
        )
    return _build(name, spellings)
