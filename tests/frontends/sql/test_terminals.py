"""Whitespace and comments: bounded in generation mode, wider for checking, comments opt-in.

Issue 17, item 8: the SQL grammar let a model spend 150 of 160 tokens on `` \\r \\r ...``
around a short query (each run was bounded, but the runs before and after the statement and a
lone ``\\r`` were not).
"""

from __future__ import annotations

import pytest
import sqlglot

import typedgen
from typedgen.errors import OptionError

from ._sql import compiled, round_trips, sql_accepts

GEN = typedgen.Sql("sqlite")
CHECK = typedgen.Sql("sqlite", whitespace="check")


def _accepted_bytes(sql: typedgen.Sql, text: str) -> int:
    """How many leading bytes of ``text`` the matcher accepts."""
    m = compiled(sql).matcher()
    data = text.encode("utf-8")
    for i, b in enumerate(data):
        if not m.accept_bytes(bytes((b,))):
            return i
    return len(data)


def test_generation_refuses_a_lone_carriage_return() -> None:
    text = "SELECT 1" + " \r" * 80
    assert _accepted_bytes(GEN, text) == len("SELECT 1 \r")  # "\r" may start "\r\n"
    assert not sql_accepts(GEN, "SELECT\r1")
    assert sql_accepts(GEN, "SELECT\r\n  1")
    assert sql_accepts(CHECK, "SELECT\r1")


@pytest.mark.parametrize(
    ("text", "generation", "check"),
    [
        # Generation: at most 8 blanks on a line, 16 after the one line break.
        ("SELECT" + " " * 8 + "1", True, True),
        ("SELECT" + " " * 9 + "1", False, True),
        ("SELECT" + " " * 8 + "\n" + "\t" * 16 + "1", True, True),
        ("SELECT\n" + "\t" * 17 + "1", False, True),
        ("SELECT" + " " * 9 + "\n1", False, True),
        ("SELECT" + " " * 33 + "1", False, True),
        ("SELECT" + " " * 100 + "1", False, True),
        ("SELECT" + " " * 101 + "1", False, False),
        ("SELECT 1\n\n", True, True),
        ("SELECT 1;\n \n", True, True),
        ("SELECT\n1", True, True),
        # A blank line ends the statement in generation mode (Terminals.end_gap).
        ("SELECT\n\n1", False, True),
        ("SELECT 1 FROM t\n\nWHERE 1", False, True),
        ("SELECT 1\n\n;", False, True),
        ("SELECT 1\n\n\n", False, True),
        ("SELECT 1\n\n\n\n", False, False),
        # The blank line's blanks are bounded alike.
        ("SELECT 1" + " " * 8 + "\n" + "\t" * 16 + "\n", True, True),
        ("SELECT 1\n" + "\t" * 17 + "\n", False, True),
        ("SELECT 1;" + " " * 9 + "\n\n", False, True),
        (" " * 8 + "SELECT 1" + " " * 8, True, True),
        (" " * 9 + "SELECT 1", False, True),
        ("\n" + " " * 16 + "SELECT 1;\n" + " " * 16, True, True),
        ("SELECT 1;" + " " * 9, False, True),
        ("SELECT 1;" + " " * 33, False, True),
    ],
)
def test_whitespace_is_bounded_between_lexemes_and_around(
    text: str, generation: bool, check: bool
) -> None:
    assert sql_accepts(GEN, text) is generation
    assert sql_accepts(CHECK, text) is check


def test_a_blank_line_ends_the_statement() -> None:
    """After a blank line nothing but the end may follow, so decoding stops there: a small
    model writes its explanation after one (the quality benchmark's text-to-SQL)."""
    m = compiled(GEN).matcher()
    assert m.accept_bytes(b"SELECT a FROM t")
    assert m.accept_bytes(b"\n\n") and m.is_complete()
    assert m.only_whitespace_follows() or not any(
        m.fork().accept_bytes(bytes((b,))) for b in range(256)
    )
    assert not m.fork().accept_bytes(b"W") and not m.fork().accept_bytes(b".")
    # Before a complete statement there is no blank line to take.
    m = compiled(GEN).matcher()
    assert m.accept_bytes(b"SELECT a FROM")
    assert not m.fork().accept_bytes(b"\n\n")


def test_the_bound_leaves_no_dead_end() -> None:
    # After the longest run the matcher still offers a way on (a word), never only blanks.
    m = compiled(GEN).matcher()
    assert m.accept_bytes(b"SELECT" + b" " * 8)
    assert not m.fork().accept_bytes(b" ")
    assert m.accept_bytes(b"1") and m.is_complete()


COMMENTED = [
    "SELECT 1 -- one",
    "SELECT /* a */ 1",
    "SELECT a /* b */ FROM t -- c\nWHERE a = 1",
    "-- lead\nSELECT 1",
    "SELECT 1 /* a */ /* b */",
    "SELECT 1 --\n--\n",
    "SELECT 1 /**/",
    "SELECT 1 /* a **/",
    "SELECT 1 -- a -- b\r\n",
    "SELECT 1 /* two\nlines */",
]


@pytest.mark.parametrize("text", COMMENTED)
def test_comments_are_opt_in(text: str) -> None:
    sql = typedgen.Sql("sqlite", comments=True)
    assert not sql_accepts(GEN, text)
    assert sql_accepts(sql, text)
    ok, detail = round_trips(text, "sqlite")
    assert ok, detail


@pytest.mark.parametrize(
    "text",
    [
        "SELECT 1 -- a */",  # sqlglot writes it back as /* a */ */
        "SELECT 1 /* a /* b */",  # nested in some dialects
        "SELECT 1 /* a /*/",
        "SELECT 1 /* " + "x" * 260 + " */",  # longer than the bound
        "SELECT 1 # x",  # not a comment in SQLite
        "SELECT 1 -- x\rSELECT",
    ],
)
def test_comments_refused(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("sqlite", comments=True), text)


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "snowflake", "bigquery"])
def test_a_line_comment_is_refused_whole_not_ended_early(dialect: str) -> None:
    # sqlglot reads a line comment to the line's end: SELECT a--x*/+1 is SELECT a, while
    # COMMENT stops before "*/" (sqlglot writes a line comment back as /* */).
    sql = typedgen.Sql(dialect, comments=True, whitespace="check")
    parsed = sqlglot.parse_one("SELECT a -- x*/+1", read=dialect)
    assert parsed.sql(dialect) == "SELECT a /* x* /+1 */"  # the whole rest of the line
    assert not sql_accepts(sql, "SELECT a -- x*/+1")
    assert not sql_accepts(sql, "SELECT a -- x*/\n+1")
    assert sql_accepts(sql, "SELECT a -- x*\n+1")
    assert sql_accepts(sql, "SELECT a -- x\r\n+1")


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "bigquery"])
def test_nothing_after_the_closing_semicolon(dialect: str) -> None:
    # sqlglot reads a comment after the closing ";" as a statement of its own.
    sql = typedgen.Sql(dialect, comments=True, whitespace="check")
    assert len(sqlglot.parse("SELECT 1; -- c", read=dialect)) == 2
    for text in ("SELECT 1;-- c", "SELECT 1; /* c */", "SELECT 1;\n\n-- c\n"):
        assert not sql_accepts(sql, text), text
    for text in ("SELECT 1 -- c\n;", "SELECT 1 /* c */;", "SELECT 1;\n", "-- c\nSELECT 1;"):
        assert sql_accepts(sql, text), text
        assert len(sqlglot.parse(text, read=dialect)) == 1


def test_comment_openers_follow_the_dialect() -> None:
    assert sql_accepts(typedgen.Sql("mysql", comments=True), "SELECT 1 # x")
    # MySQL: "--" opens a comment only before a blank; sqlglot reads "1 --x" as 1 - -x.
    assert sql_accepts(typedgen.Sql("mysql", comments=True), "SELECT 1 -- x")
    assert not sql_accepts(typedgen.Sql("mysql", comments=True), "SELECT 1 ---------- x")
    assert sql_accepts(typedgen.Sql("sqlite", comments=True), "SELECT 1 ---------- x")
    assert sql_accepts(typedgen.Sql("snowflake", comments=True), "SELECT 1 // x")
    ok, _ = round_trips("SELECT 1 # x", "mysql")
    assert ok


@pytest.mark.parametrize("dialect", ["mysql", "postgres"])
def test_no_comment_inside_a_keyword_phrase(dialect: str) -> None:
    # sqlglot reads ORDER BY as one keyword: ORDER /* c */ BY does not parse.
    sql = typedgen.Sql(dialect, comments=True, whitespace="check")
    assert not sql_accepts(sql, "SELECT a FROM t ORDER/* c */BY a")
    assert not sql_accepts(sql, "SELECT a FROM t GROUP -- c\nBY a")
    assert sql_accepts(sql, "SELECT a FROM t /* c */ GROUP BY a /* d */ ORDER BY a")
    assert sql_accepts(sql, "SELECT a FROM t GROUP\n  BY a")  # any whitespace, as sqlglot
    assert not sql_accepts(sql, "SELECT s FROM t GROUP Byear")  # GROUP, then the word Byear


def test_no_lone_carriage_return_with_comments() -> None:
    # MySQL ends a "#" comment only at "\n": "# x\r SELECT" is all comment for sqlglot.
    sql = typedgen.Sql("mysql", comments=True, whitespace="check")
    assert not sql_accepts(sql, "SELECT 1 # x\r")
    assert sql_accepts(sql, "SELECT 1 # x\r\n")
    assert sql_accepts(typedgen.Sql("mysql", whitespace="check"), "SELECT\r1")


def test_unknown_whitespace_mode() -> None:
    with pytest.raises(OptionError, match="whitespace='loose'") as info:
        typedgen.Sql("sqlite", whitespace="loose")
    assert info.value.code == "option-value"


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "tsql"])
def test_a_sign_glued_to_an_exponent(dialect: str) -> None:
    """sqlglot reads ``1e5+3`` as one number literal (text ``1e5+3``), not ``1e5 + 3``: a
    number with an exponent followed at once by a sign is refused; with a space, or a sign in
    the exponent, it is the number and the operator."""
    sql = typedgen.Sql(dialect, whitespace="check")
    glued = sqlglot.parse_one("SELECT 1e5+3", read=dialect).expressions[0]
    assert isinstance(glued, sqlglot.exp.Literal)  # the oracle: one literal
    for text in ("SELECT 1e5+3", "SELECT 1.5E3-2 FROM t", "SELECT a - 1e5-3 FROM t"):
        assert not sql_accepts(sql, text), text
    for text in ("SELECT 1e5 + 3", "SELECT 1e+5+3", "SELECT 1.5e-3 - a FROM t", "SELECT 1.5-a"):
        assert sql_accepts(sql, text), text
        assert round_trips(text, dialect)[0]
        value = sqlglot.parse_one(text, read=dialect).expressions[0]
        assert isinstance(value, (sqlglot.exp.Add, sqlglot.exp.Sub)), text
