"""JSON Schema ``format`` expressions: sound against jsonschema's checkers and the RFCs.

Soundness is checked three ways: the JSON-Schema-Test-Suite's format items (no invalid value
may be accepted), strings drawn from each format's own regular expression (every one must pass
jsonschema's draft 2020-12 checker *and* an independent parser), and near misses, random
mutations of valid values (accepted implies valid). Membership is decided by the independent
oracle in ``tests/frontends/_ir_match.py``.
"""

from __future__ import annotations

import calendar
import importlib.util
import ipaddress
import json
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable
from datetime import date, datetime, time
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._support import evaldata_items
from typedgen.compiler.automata import expr_to_dfa
from typedgen.errors import UnsupportedFeatureError
from typedgen.frontends.jsonschema import formats
from typedgen.frontends.jsonschema.formats import FORMATS, format_expr
from typedgen.ir import Origin
from typedgen.ir.nodes import walk

from .._ir_match import matches

jsonschema = pytest.importorskip("jsonschema")
CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER

EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
REQUIRED = {
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
    "uri",
}
# jsonschema checks these only with optional libraries installed (its "format" extra).
CHECKER_LIBRARIES = {
    "date-time": "rfc3339_validator",
    "time": "rfc3339_validator",
    "duration": "isoduration",
    "hostname": "fqdn",
    "idn-hostname": "idna",
    "uri": "rfc3986_validator",
    "uri-reference": "rfc3986_validator",
    "json-pointer": "jsonpointer",
    "relative-json-pointer": "jsonpointer",
    "uri-template": "uri_template",
}


def accepts(name: str, text: str) -> bool:
    return matches(format_expr(name), text)


# -- independent judges: each says whether a string is valid for the format -------------------

_LDH_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?", re.ASCII)
_PCT_OK = re.compile(r"%(?![0-9A-Fa-f]{2})")
_URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")


def _raises_not(fn: Callable[[], object]) -> bool:
    try:
        fn()
    except (ValueError, TypeError):
        return False
    return True


def _date_time_ok(s: str) -> bool:
    try:
        parsed = datetime.fromisoformat(s.upper())
    except ValueError:
        return False
    return "T" in s.upper() and parsed.tzinfo is not None and s.count(":") in (2, 3)


def _date_ok(s: str) -> bool:
    return len(s) == 10 and _raises_not(lambda: date.fromisoformat(s))


def _time_ok(s: str) -> bool:
    try:
        parsed = time.fromisoformat(s.upper())
    except ValueError:
        return False
    return parsed.tzinfo is not None and s.count(":") in (2, 3)


def _duration_ok(s: str) -> bool:
    """RFC 3339 appendix A, read as: designators form a gap-free run of Y M D (or H M S)."""
    m = re.fullmatch(r"P((?:[0-9]+[A-Z])*)(?:T((?:[0-9]+[A-Z])+))?", s, re.ASCII)
    if m is None:
        return False
    day = "".join(re.findall("[A-Z]", m[1]))
    clock = "".join(re.findall("[A-Z]", m[2] or ""))
    if day == "W":
        return m[2] is None
    if (day and day not in "YMD") or (m[2] is not None and clock not in "HMS"):
        return False
    return bool(day or clock)


def _hostname_ok(s: str, limit: int = 253) -> bool:
    labels = s.split(".")
    if len(s) > limit or not all(_LDH_LABEL.fullmatch(x) and len(x) <= 63 for x in labels):
        return False
    if any(x[2:4] == "--" for x in labels):  # R-LDH labels: reserved for IDNA (RFC 5890)
        return False
    if not _has("idna"):
        return True
    import idna

    return _raises_not(lambda: idna.encode(s))


def _email_ok(s: str) -> bool:
    local, _, domain = s.rpartition("@")
    if not 1 <= len(local) <= 64 or len(s) > 254 or not _hostname_ok(domain):
        return False
    if not _has("email_validator"):
        return True
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(s, check_deliverability=False, globally_deliverable=False)
    except EmailNotValidError as exc:  # reserved names (.test, .local) are syntactically fine
        return "special-use" in str(exc)
    return True


def _ipv4_ok(s: str) -> bool:
    try:
        return str(ipaddress.IPv4Address(s)) == s  # the canonical form: no leading zeros
    except ValueError:
        return False


def _ipv6_ok(s: str) -> bool:
    return "%" not in s and _raises_not(lambda: ipaddress.IPv6Address(s))


def _uuid_ok(s: str) -> bool:
    try:
        return str(uuid.UUID(s)) == s.lower()
    except ValueError:
        return False


def _uri_ref_ok(s: str) -> bool:
    if not _URI_CHARS.fullmatch(s) or _PCT_OK.search(s):
        return False
    return _raises_not(lambda: urlsplit(s))


def _uri_ok(s: str) -> bool:
    scheme = s.split(":", 1)[0]
    return ":" in s and _uri_ref_ok(s) and urlsplit(s).scheme == scheme.lower()


def _iri_as_uri(s: str) -> str:
    """RFC 3987 section 3.1: non-ASCII characters become percent-encoded UTF-8."""
    return "".join(c if c.isascii() else quote(c, safe="") for c in s)


def _iri_ok(s: str) -> bool:
    return _uri_ok(_iri_as_uri(s)) and _checker_ok(_iri_as_uri(s), "uri")


def _iri_ref_ok(s: str) -> bool:
    return _uri_ref_ok(_iri_as_uri(s)) and _checker_ok(_iri_as_uri(s), "uri-reference")


def _json_pointer_ok(s: str) -> bool:
    return (not s or s[0] == "/") and re.search("~(?![01])", s) is None


def _relative_json_pointer_ok(s: str) -> bool:
    m = re.fullmatch(r"([0-9]+)(.*)", s, re.ASCII | re.DOTALL)
    if m is None or (m[1] != "0" and m[1][0] == "0"):
        return False
    return m[2] == "#" or _json_pointer_ok(m[2])


_TEMPLATE_EXCLUDED = set(" \"'%<>\\^`{|}")
# RFC 3987 ucschar and iprivate, the non-ASCII characters RFC 6570 literals may hold.
_UCS_OR_PRIVATE = (
    [(0xA0, 0xD7FF), (0xE000, 0xFDCF), (0xFDF0, 0xFFEF)]
    + [(plane << 16, (plane << 16) + 0xFFFD) for plane in range(1, 17) if plane != 14]
    + [(0xE1000, 0xEFFFD)]
)


def _template_char_ok(c: str) -> bool:
    cp = ord(c)
    if cp < 0x80:
        return 0x21 <= cp < 0x7F and c not in _TEMPLATE_EXCLUDED
    return any(lo <= cp <= hi for lo, hi in _UCS_OR_PRIVATE)


def _uri_template_ok(s: str) -> bool:
    """RFC 6570 section 2, procedurally: literals, then ``{op? varspec,...}``."""
    pieces = re.split(r"(\{[^{}]*\})", s)
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            rest = re.sub(r"%[0-9A-Fa-f]{2}", "", piece)
            if not all(map(_template_char_ok, rest)):
                return False
            continue
        body = piece[1:-1]
        if body[:1] in set("+#./;?&"):
            body = body[1:]
        for spec in body.split(","):
            name, _, prefix = spec.removesuffix("*").partition(":")
            if not re.fullmatch(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*", name, re.ASCII):
                return False
            if ":" in spec and (spec.endswith("*") or not re.fullmatch("[1-9][0-9]{0,3}", prefix)):
                return False
    return True


def _regex_ok(s: str) -> bool:
    try:
        re.compile(s)
    except re.error:
        return False
    return True


JUDGES: dict[str, Callable[[str], bool]] = {
    "date-time": _date_time_ok,
    "date": _date_ok,
    "time": _time_ok,
    "duration": _duration_ok,
    "email": _email_ok,
    "idn-email": _email_ok,
    "hostname": _hostname_ok,
    "idn-hostname": _hostname_ok,
    "ipv4": _ipv4_ok,
    "ipv6": _ipv6_ok,
    "uuid": _uuid_ok,
    "uri": _uri_ok,
    "uri-reference": _uri_ref_ok,
    "iri": _iri_ok,
    "iri-reference": _iri_ref_ok,
    "json-pointer": _json_pointer_ok,
    "relative-json-pointer": _relative_json_pointer_ok,
    "uri-template": _uri_template_ok,
    "regex": _regex_ok,
}
# The checkers of formats that share an expression: each value must pass all of them.
ALSO_CHECK = {
    "hostname": ("idn-hostname",),
    "idn-hostname": ("hostname",),
    "email": ("idn-email",),
    "idn-email": ("email",),
    "iri": ("iri-reference",),
    "uri": ("uri-reference",),
}


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _checker_ok(s: str, name: str) -> bool:
    return bool(CHECKER.conforms(s, name))


def assert_valid(name: str, s: str) -> None:
    """``s`` is accepted: jsonschema's checkers and the independent judge must agree."""
    for checked in (name, *ALSO_CHECK.get(name, ())):
        assert _checker_ok(s, checked), (
            f"{name}: accepted {s!r}, which the {checked} checker refuses"
        )
    assert JUDGES[name](s), f"{name}: accepted {s!r}, which the independent parser refuses"


# -- the API ---------------------------------------------------------------------------------


def test_supported_formats() -> None:
    assert REQUIRED <= FORMATS
    assert set(JUDGES) == set(FORMATS)


def test_unknown_format_is_refused_with_origin() -> None:
    origin = Origin("<schema>", path="properties.when")
    with pytest.raises(UnsupportedFeatureError) as info:
        format_expr("date-tiem", origin=origin)
    assert info.value.code == "schema-format"
    assert info.value.origin == origin
    assert info.value.hint is not None and "date-time" in info.value.hint


def test_results_are_cached() -> None:
    assert format_expr("uuid") is format_expr("uuid", origin=Origin("elsewhere"))


@pytest.mark.parametrize("name", sorted(CHECKER_LIBRARIES))
def test_checker_libraries_are_installed(name: str) -> None:
    """Without them jsonschema accepts anything for the format, and soundness goes unchecked."""
    module = CHECKER_LIBRARIES[name]
    if not _has(module):
        pytest.skip(f"{module} is not installed: jsonschema cannot check {name!r}")
    assert name in CHECKER.checkers


def test_sizes_stay_small() -> None:
    """Node counts, and the minimal DFA each format compiles to (the lexer's unit of cost)."""
    for name in sorted(FORMATS):
        expr = format_expr(name)
        assert sum(1 for _ in walk(expr)) < 1500, name
        assert expr_to_dfa(expr, budget=5000).n_states < 2500, name


# -- typical values --------------------------------------------------------------------------

GOOD = {
    "date-time": [
        "2024-02-29T13:45:00Z",
        "2023-01-01T00:00:00.123+05:30",
        "1963-06-19t08:30:06.283185z",
        "0001-01-01T00:00:00-23:59",
        "9999-12-31T23:59:59.999999999Z",
    ],
    "date": ["2024-02-29", "2000-02-29", "0400-02-29", "1999-12-31", "2023-11-30"],
    "time": ["13:45:00Z", "23:59:59.5-08:00", "00:00:00+14:00", "08:30:06z"],
    "duration": ["P1Y2M3DT4H5M6S", "P2W", "PT36H", "P0D", "PT0S", "P1M2D", "PT1M2S", "P1Y"],
    "email": [
        "user.name+tag@example.co.uk",
        "a@b.io",
        "te~st{x}|y@example.com",
        "x@" + "a" * 63 + ".com",
        "l" * 64 + "@example.org",
    ],
    "hostname": ["example.com", "localhost", "a--b.com", "xn", "1host", "A.B-C.D", "a" * 63],
    "ipv4": ["0.0.0.0", "192.168.0.1", "255.255.255.255", "10.20.30.40"],
    "ipv6": [
        "::",
        "::1",
        "2001:db8::8a2e:370:7334",
        "::ffff:192.0.2.1",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7::",
        "::2:3:4:5:6:7:8",
        "1000:1000:1000:1000:1000:1000:255.255.255.255",
        "FE80::0202:B3FF:FE1E:8329",
    ],
    "uuid": ["2eb8aa08-AA98-11ea-B4Aa-73B441D16380", "00000000-0000-0000-0000-000000000000"],
    "uri": [
        "https://example.com/a/b?q=1#frag",
        "urn:isbn:0451450523",
        "mailto:joe@example.com",
        "http://[2001:db8::1]:8080/",
        "http://[v1.fe]/",
        "file:///etc/hosts",
        "a:",
        "http://user:pw@host:/%20?#",
    ],
    "uri-reference": ["/a/b", "../x?y", "#frag", "", "//host", "a/b:c"],
    "iri": [
        "http://ƒøø.ßår/?∂éœ=πîx#πîüx",
        "http://example.com/?\ue000",
        "http://[2001:0db8:85a3:0000:0000:8a2e:0370:7334]/",
        "http://[1::3:4:5:6:7:8]",
        "http://[::2:3:4:5:6:1.2.3.4]",
    ],
    "iri-reference": ["/âππ", "#ƒrägmênt", "âππ"],
    "json-pointer": ["", "/", "/foo/0", "/a~1b/m~0n", "/ ", '/k"l'],
    "relative-json-pointer": ["0", "1/a", "0#", "10/x", "120/foo/bar"],
    "uri-template": [
        "",
        "http://example.com/dictionary/{term:1}/{term}",
        "{+var}{#x,y*}{.a.b}{/v:999}{;p}{?q,r}{&s}",
        "a%41b😀",
    ],
    "regex": ["", "^a+b*?$", "(a|b){2,}", "[^a-z\\d]+(?:x|(y(z)))?", "\\/\\.\\d{0,9}", "a|"],
}
for _alias, _of in (("idn-hostname", "hostname"), ("idn-email", "email")):
    GOOD[_alias] = GOOD[_of]

BAD = {
    "date-time": [
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "2023-01-01T24:00:00Z",
        "2023-01-01T23:59:60Z",
        "2023-01-01 00:00:00Z",
        "2023-01-01T00:00:00",
        "2023-01-01T00:00:00+0100",
    ],
    "date": ["2021-02-29", "2100-02-29", "2020-04-31", "2020-13-01", "20200101", "0000-01-01"],
    "time": ["24:00:00Z", "12:00:00", "12:00Z", "12:00:00.Z"],
    "duration": ["P", "PT", "P1Y2D", "PT1H2S", "PT0.5S", "P1W2D", "-P1D", "p1d", "P1D2H"],
    "email": [".a@b.com", "a.@b.com", "a..b@c.com", "a@-b.com", "a@b.", "@b.com", "l" * 65 + "@x"],
    "hostname": ["", "example.", "-a.com", "a-.com", "a_b.com", "ab--c", "xn--abc", "a" * 64],
    "ipv4": ["01.2.3.4", "256.1.1.1", "1.2.3", "1.2.3.4."],
    "ipv6": ["1:2:3:4:5:6:7:8:9", "1::2::3", ":1:2", "fe80::1%eth0", "::ffff:1.2.3.04", "12345::"],
    "uuid": ["2eb8aa08aa9811eab4aa73b441d16380", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}"],
    "uri": ["/relative", "http://a b", "http://[::1", "1http://x", "http://x/%zz", "ĥttp://x"],
    "uri-reference": ["\\\\windows\\path", "a b", "%", "http://[::1"],
    "iri": ["/abc", "âππ", "http://[::ffff:192.168.0.01]", "http://[::1]", "http://x/\U00010300"],
    "iri-reference": ["#ƒräg\\mênt", "a b"],
    "json-pointer": ["#", "a", "/~", "/~2"],
    "relative-json-pointer": ["", "/a", "01", "-1", "0##", "100"],
    "uri-template": ["{}", "{a,,b}", "{v:0}", "{a..b}", "a b", "{=x}", "a'b", "{%41}"],
    "regex": ["(", "a**", "[z-a]", "(?P<n>a)", "a{2,1}", "*", "\\c", "{", "]", "[]"],
}
for _alias, _of in (("idn-hostname", "hostname"), ("idn-email", "email")):
    BAD[_alias] = BAD[_of]


@pytest.mark.parametrize(("name", "text"), [(n, t) for n in sorted(GOOD) for t in GOOD[n]])
def test_typical_values_are_accepted(name: str, text: str) -> None:
    assert accepts(name, text), f"{name} rejects {text!r}"
    assert_valid(name, text)


@pytest.mark.parametrize(("name", "text"), [(n, t) for n in sorted(BAD) for t in BAD[n]])
def test_invalid_values_are_rejected(name: str, text: str) -> None:
    assert not accepts(name, text), f"{name} accepts {text!r}"


def test_february_29_exactly_in_leap_years() -> None:
    fullmatch = re.compile(formats._PATTERNS["date"]).fullmatch
    for year in range(1, 10000):
        assert bool(fullmatch(f"{year:04d}-02-29")) == calendar.isleap(year), year
    for year in (4, 100, 400, 1900, 2000, 2023, 2024, 2100):
        assert accepts("date", f"{year:04d}-02-29") == calendar.isleap(year), year


def test_every_day_of_two_years() -> None:
    fullmatch = re.compile(formats._PATTERNS["date"]).fullmatch
    for year in (2023, 2024):
        for month in range(1, 13):
            for day in range(32):
                text = f"{year}-{month:02d}-{day:02d}"
                assert bool(fullmatch(text)) == _date_ok(text), text


def test_hostname_length_bound_by_shape() -> None:
    """The longest name of each tier fits in 253 characters; one more is refused."""
    longest = [
        ".".join(["a" * 63] * 3 + ["b" * 61]),
        ".".join(["a" * 24] * 10 + ["b" * 3]),
        ".".join(["a" * 10] * 23),
    ]
    for name in longest:
        assert len(name) <= 253 and accepts("hostname", name)
        assert not accepts("hostname", name + "c")
    assert accepts("email", "l" * 64 + "@" + ".".join(["a" * 63] * 2 + ["b" * 61]))
    assert not accepts("email", "l" * 64 + "@" + ".".join(["a" * 63] * 2 + ["b" * 62]))


# -- the JSON-Schema-Test-Suite --------------------------------------------------------------


def _suite() -> dict[str, list[tuple[str, bool]]]:
    out: dict[str, list[tuple[str, bool]]] = {}
    for item in evaldata_items("json_schema_test_suite"):
        schema = item["schema"]
        if not item["file"].startswith("optional/format/") or not isinstance(schema, dict):
            continue
        name = schema.get("format")
        for test in item["tests"]:
            if name in FORMATS and isinstance(test["data"], str):
                out.setdefault(name, []).append((test["data"], bool(test["valid"])))
    return out


def _rel_integer_gap(s: str) -> bool:
    digits = re.match("[0-9]*", s, re.ASCII)
    return digits is not None and "0" in digits[0][:-1]


# Valid values known to be rejected, by documented deviation (see the module docstring).
GAPS: dict[str, Callable[[str], bool]] = {
    # leap seconds; fractions of a second beyond 9 digits (canonical)
    "date-time": lambda s: ":60" in s or re.search(r"\.[0-9]{10}", s) is not None,
    "time": lambda s: ":60" in s or re.search(r"\.[0-9]{10}", s) is not None,
    "duration": lambda s: re.search("[0-9]{7}", s) is not None,  # components cap at 6 digits
    "email": lambda s: s.startswith('"') or "@[" in s or not s.isascii(),
    "idn-hostname": lambda s: not s.isascii() or s.lower().startswith("xn--"),
    "iri": lambda s: "[V" in s or "::" in s or any(ord(c) > 0xFFFF for c in s),
    "iri-reference": lambda s: "::" in s or any(ord(c) > 0xFFFF for c in s),
    "relative-json-pointer": _rel_integer_gap,
    "uri-template": lambda s: "'" in s or "{%" in s or re.search(":[0-9]{4}", s) is not None,
}


def test_suite_accepts_no_invalid_value() -> None:
    suite = _suite()
    assert suite, "no optional/format items in the test suite"
    wrong = [
        (n, s) for n, cases in suite.items() for s, valid in cases if not valid and accepts(n, s)
    ]
    assert not wrong, f"accepted invalid values: {wrong}"


def test_suite_rejects_valid_values_only_as_documented() -> None:
    undocumented = [
        (name, s)
        for name, cases in _suite().items()
        for s, valid in cases
        if valid and not accepts(name, s) and not GAPS.get(name, lambda _: False)(s)
    ]
    assert not undocumented, f"valid values rejected for no documented reason: {undocumented}"


# -- drawn from the formats' own patterns ----------------------------------------------------

_UTF8 = st.characters(codec="utf-8")


def drawable(name: str) -> str:
    """The format's pattern with its big Unicode ranges cut to a few samples.

    Hypothesis draws from classes of hundreds of thousands of code points very slowly; the
    samples keep the drawn strings inside the real language, and the ranges' edges are checked
    exactly in ``test_unicode_range_edges``.
    """
    return (
        formats._PATTERNS[name]
        .replace(formats._UCSCHAR, "\u00a0é\uffef\U0001f600\U000e1000")
        .replace(formats._IPRIVATE, "\ue000\U000f0000\U0010fffd")
        .replace(formats._UCSCHAR_BMP, "\u00a0é\uffef")
        .replace(formats._IPRIVATE_BMP, "\ue000\uf8ff")
    )


@pytest.mark.parametrize("name", sorted(FORMATS))
@EXAMPLES
@given(data=st.data())
def test_drawn_values_are_valid(name: str, data: st.DataObject) -> None:
    text = data.draw(st.from_regex(drawable(name), fullmatch=True, alphabet=_UTF8))
    if name in ("email", "idn-email"):
        local, _, domain = text.rpartition("@")
        tld = domain.rpartition(".")[2]
        deliverable = "." in domain and tld.isascii() and tld.isalpha() and 2 <= len(tld)
        special = tld.lower() in formats._SPECIAL_USE
        if len(local) > 64 or not deliverable or special:
            # the additions to the pattern: the local part's cap, a deliverable-looking domain
            assert not accepts(name, text)
            return
    assert accepts(name, text), f"{name}: the expression rejects {text!r} of its own pattern"
    assert_valid(name, text)


_NOISE = "0123456789aAfFzZtTxXP:-.+/@%[]{}~#?*,;=!$&'()_ \n\\\"é০v"


@st.composite
def near_misses(draw: Any, name: str) -> str:
    """A typical value with one to three random edits (insert, delete, replace, duplicate)."""
    text: str = draw(st.sampled_from(GOOD[name]))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "dup"]))
        ch = draw(st.sampled_from(_NOISE + text) if text else st.sampled_from(_NOISE))
        if op == "insert":
            text = text[:i] + ch + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1 :]
        elif op == "replace":
            text = text[:i] + ch + text[i + 1 :]
        else:
            text = text[:i] + text[i:] + text[i:]
    return text


@pytest.mark.parametrize("name", sorted(FORMATS))
@settings(EXAMPLES, max_examples=80)
@given(data=st.data())
def test_near_misses_accepted_only_when_valid(name: str, data: st.DataObject) -> None:
    text = data.draw(near_misses(name))
    if accepts(name, text):
        assert_valid(name, text)


# RFC 3987: ucschar may appear anywhere an unreserved character may; iprivate only in queries.
# The IRI expressions keep to the BMP (rfc3987-syntax's checker does); RFC 6570 takes them all.
UCSCHAR_BMP = [(0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF)]
UCSCHAR = UCSCHAR_BMP + [(plane << 16, (plane << 16) + 0xFFFD) for plane in range(1, 14)]
UCSCHAR.append((0xE1000, 0xEFFFD))
IPRIVATE_BMP = [(0xE000, 0xF8FF)]
IPRIVATE = [*IPRIVATE_BMP, (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)]


def _inside(cp: int, ranges: list[tuple[int, int]]) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


def test_unicode_range_edges() -> None:
    """Each edge of ucschar and iprivate, and the code point beyond it, in path and query."""
    edges = {cp for lo, hi in UCSCHAR + IPRIVATE for cp in (lo - 1, lo, hi, hi + 1)}
    for cp in sorted(edges - set(range(0xD800, 0xE000))):
        c = chr(cp)
        assert accepts("iri", f"x:/{c}") == _inside(cp, UCSCHAR_BMP), hex(cp)
        assert accepts("iri", f"x:?{c}") == _inside(cp, UCSCHAR_BMP + IPRIVATE_BMP), hex(cp)
        assert accepts("iri-reference", f"#{c}") == _inside(cp, UCSCHAR_BMP), hex(cp)
        assert accepts("uri-template", c) == _inside(cp, UCSCHAR + IPRIVATE), hex(cp)
        assert not accepts("uri", f"x:/{c}")


# -- ECMA-262 regular expressions, checked by a JavaScript engine where one is installed -------

_NODE_CHECK = """
const ps = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const bad = [];
for (const p of ps) {
  for (const flags of ['', 'u']) {
    try { new RegExp(p, flags); } catch (e) { bad.push([p, flags, String(e)]); }
  }
}
process.stdout.write(JSON.stringify(bad));
"""


def test_regex_values_compile_in_javascript() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: ECMA-262 validity of 'regex' values is unchecked")
    pattern = st.from_regex(formats._PATTERNS["regex"], fullmatch=True, alphabet=_UTF8)
    drawn: list[str] = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(pattern)
    def collect(text: str) -> None:
        drawn.append(text)

    collect()
    drawn += GOOD["regex"]
    assert all(accepts("regex", p) for p in drawn[:50])
    run = subprocess.run(
        [node, "-e", _NODE_CHECK],
        input=json.dumps(drawn),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []
