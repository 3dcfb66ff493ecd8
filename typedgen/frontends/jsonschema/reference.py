"""The keyword reference of docs/json-schema.md, written from the registry (:mod:`.keywords`).

The page's keyword sections (what the grammar enforces, what is annotation, what is refused)
sit between two markers and are regenerated from :data:`.keywords.KEYWORDS`; the prose around
them is hand-written. ``python -m typedgen.frontends.jsonschema.reference [PAGE]`` rewrites the
block in place (default ``docs/json-schema.md``); ``--check`` exits 1 when the page is stale.
tests/frontends/jsonschema/test_keywords.py checks the committed page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from typedgen.frontends.jsonschema.keywords import KEYWORDS, ROWS

__all__ = ["BEGIN", "END", "keyword_reference", "render"]

BEGIN = (
    "<!-- BEGIN keyword reference: written by `python -m typedgen.frontends.jsonschema.reference`"
    " from typedgen/frontends/jsonschema/keywords.py; edit the registry, not this block -->"
)
END = "<!-- END keyword reference -->"


def _names(names: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def keyword_reference() -> str:
    """The generated sections, in Markdown."""
    lines = ["## What the grammar enforces", "", "| keywords | how |", "|---|---|"]
    for label, row in ROWS.items():
        lines.append(f"| {label} | {row.how} |")
    annotations: dict[str, list[str]] = {}
    for name, keyword in KEYWORDS.items():
        if keyword.status == "annotation":
            annotations.setdefault(keyword.reason, []).append(name)
    lines += [
        "",
        "Annotations constrain nothing; `explain` lists each one it meets as ignored, and so are"
        " keywords outside the drafts (unknown keywords, `then`/`else` without `if`):",
        "",
        "| keywords | why |",
        "|---|---|",
    ]
    lines += [f"| {_names(names)} | {reason} |" for reason, names in annotations.items()]
    lines += [
        "",
        "## What is refused (strict mode)",
        "",
        "Refused wherever they constrain:",
        "",
    ]
    lines += [
        f"- `{name}`: {keyword.reason}"
        for name, keyword in KEYWORDS.items()
        if keyword.status == "refused"
    ]
    lines += ["", "Enforced, but refused by name in these cases:", ""]
    for name, keyword in KEYWORDS.items():
        if keyword.status == "enforced" and keyword.limits:
            lines.append(f"- `{name}`: " + "; ".join(keyword.limits))
    return "\n".join(lines)


def render(page: str) -> str:
    """``page`` with its keyword block written from the registry."""
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise ValueError("the page needs one keyword block between the BEGIN and END markers")
    head, rest = page.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{keyword_reference()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    path = Path(paths[0] if paths else "docs/json-schema.md")
    page = path.read_text(encoding="utf-8")
    fresh = render(page)
    if check:
        if fresh != page:
            sys.stderr.write(
                f"{path} is stale: run python -m typedgen.frontends.jsonschema.reference\n"
            )
            return 1
        return 0
    path.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
