"""For deployments without the plugin: a typedgen output type as vLLM's own structured outputs.

vLLM's ``StructuredOutputsParams`` takes a JSON Schema, a regex, a choice or grammar text, and its
backends (xgrammar, guidance) compile them. This module writes the typedgen grammar in the
format the chosen backend reads (GBNF for xgrammar, llguidance's Lark dialect for guidance),
records what the target format approximates, and binds the answer on the client with typedgen's
binders, so the value is checked exactly whatever the server enforced.

What the export approximates (``Export.notes`` says it per grammar):

- **xgrammar / GBNF** has no longest-match lexing. Grammars whose terminals are lexed
  contextually or basically (Lark DSLs, SQL) are written in their free reading, which accepts
  every text typedgen accepts and possibly more (``"SELECTx"`` where SQL needs a space); the
  client-side binder refuses those, and :func:`typedgen_vllm.generate` retries them.
- **guidance / llguidance Lark** has no terminal priorities; where a grammar uses them, ties
  between terminals may resolve differently.
- ``native=True`` sends JSON outputs as ``json=<schema>`` and choices as ``choice=[...]``: vLLM's
  backend then enforces its own reading of the schema (its whitespace, its keyword coverage);
  typedgen's binder still validates the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import typedgen
from typedgen.errors import OptionError, UnsupportedFeatureError
from typedgen.ir import Lexing
from typedgen.outputs import binder_for, is_json_output

from typedgen_vllm.constraint import grammar_for

__all__ = ["Backend", "Export", "bind", "structured_outputs"]

Backend = Literal["xgrammar", "guidance"]


@dataclass(frozen=True)
class Export:
    """Keyword arguments for ``vllm.sampling_params.StructuredOutputsParams`` and their caveats."""

    params: dict[str, Any]
    backend: Backend
    exact: bool
    """Whether the server enforces exactly typedgen's language (the binder checks anyway)."""
    notes: tuple[str, ...]

    def sampling_params(self, **sampling: Any) -> Any:
        """A ``vllm.SamplingParams`` with these structured outputs (needs vLLM installed)."""
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        return SamplingParams(structured_outputs=StructuredOutputsParams(**self.params), **sampling)


def _schema_of(output_type: object) -> Any:
    if isinstance(output_type, typedgen.JsonSchema):
        return output_type.schema
    if isinstance(output_type, dict | bool):
        return output_type
    from typedgen.frontends.jsonschema.pydantic import pydantic_schema

    return pydantic_schema(output_type)


def structured_outputs(
    output_type: object,
    *,
    backend: Backend = "xgrammar",
    native: bool = False,
    reasoning: bool | int = False,
) -> Export:
    """``output_type`` as vLLM structured outputs for ``backend`` (match the engine's
    ``structured_outputs_config`` backend).

    By default the typedgen grammar itself is exported (the same language the plugin enforces,
    up to the format's limits in ``notes``); ``native=True`` hands JSON outputs and choices to
    vLLM's own schema and choice support instead.
    """
    if backend not in ("xgrammar", "guidance"):
        raise OptionError(
            f"unknown structured-outputs backend {backend!r}",
            code="option-value",
            hint="use 'xgrammar' or 'guidance' (whichever the vLLM engine runs)",
        )
    if native and not reasoning:
        if isinstance(output_type, typedgen.Choice):
            return Export({"choice": list(output_type.options)}, backend, True, ())
        if is_json_output(output_type):
            note = (
                f"JSON Schema enforced by vLLM's {backend} backend (its whitespace and keyword"
                " coverage), not typedgen's grammar; the value is validated on the client"
            )
            return Export({"json": _schema_of(output_type)}, backend, False, (note,))
    grammar = grammar_for(output_type, reasoning=reasoning)
    notes: list[str] = []
    longest = sorted({r.lexing.value for r in grammar.terminals() if r.lexing is not Lexing.FREE})
    if backend == "xgrammar":
        try:
            text = grammar.to_gbnf()
        except UnsupportedFeatureError as exc:
            exc.add_note(
                "typedgen_vllm: GBNF cannot express this grammar; export it for vLLM's guidance"
                " backend instead (backend='guidance'), or install the typedgen plugin"
            )
            raise
        if longest:
            notes.append(
                f"GBNF has no longest-match lexing ({', '.join(longest)} terminals here): the"
                " server accepts the free reading, a superset; the client-side binder refuses"
                " what typedgen's grammar would not allow"
            )
    else:
        text = _braced_repeats(grammar.to_lark(dialect="llguidance"))
        if any(r.priority for r in grammar.terminals()):
            notes.append(
                "llguidance's Lark dialect has no terminal priorities: ties between terminals"
                " may resolve differently"
            )
    return Export({"grammar": text}, backend, not notes, tuple(notes))


_RANGE = re.compile(r"~\s*(\d+)(?:\s*\.\.\s*(\d+))?")


def _braced_repeats(text: str) -> str:
    """Lark's ``x~m..n`` as ``x{m,n}``: llguidance reads the braces in every release, the tilde
    only from 1.8 on (vLLM 0.32 pins an older one). Strings, regexes and comments are kept."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])
            i = j
        elif c in '"/':  # a string or regex literal: copy through its closing delimiter
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif c == "~" and (match := _RANGE.match(text, i)):
            low, high = match.group(1), match.group(2)
            out.append(f"{{{low}}}" if high is None else f"{{{low},{high}}}")
            i = match.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def bind(output_type: object, text: str) -> Any:
    """The typed value of ``text`` through typedgen's binder for ``output_type``."""
    return binder_for(output_type)(text)
