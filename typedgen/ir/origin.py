"""Where an IR node came from: a grammar file position, a schema path, a dialect rule."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Origin"]


@dataclass(frozen=True, slots=True)
class Origin:
    """The source place of an IR node, carried into every error about it.

    ``source`` names the document (``config.lark``, ``<gbnf>``, ``Invoice``, ``postgres``);
    ``line``/``column`` are 1-based positions in grammar text; ``path`` is a structural path
    (``items[].sku`` or ``select``).
    """

    source: str
    line: int | None = None
    column: int | None = None
    path: str | None = None

    def __str__(self) -> str:
        text = self.source
        if self.line is not None:
            text += f":{self.line}"
            if self.column is not None:
                text += f":{self.column}"
        if self.path:
            sep = "." if self.line is None and not self.path.startswith("[") else ":"
            text += f"{sep}{self.path}"
        return text

    def at(self, path: str) -> Origin:
        """A child origin one structural step below this one."""
        joined = path if not self.path else f"{self.path}.{path}"
        return Origin(self.source, self.line, self.column, joined)
