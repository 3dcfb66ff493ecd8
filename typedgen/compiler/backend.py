"""Which engine runs: the native core (``typedgen._native``) or the Python reference.

``TYPEDGEN_ENGINE`` selects it: unset or ``auto`` takes the native core when the extension
imports and falls back to the Python engine with one ``RuntimeWarning`` when it does not;
``native`` requires the extension (an ImportError names what is missing); ``python`` always
runs the reference engine. Both engines give the same masks (the differential tests check
every step), so the choice changes speed, never output.
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType
from typing import Literal

__all__ = ["EngineKind", "native_module", "resolve_engine", "selected_engine"]

EngineKind = Literal["native", "python"]
_NATIVE: list[ModuleType | None] = []
_WARNED: list[bool] = []


def _import_native() -> ModuleType | None:
    if not _NATIVE:
        try:
            from typedgen import _native  # type: ignore[attr-defined]

            _NATIVE.append(_native)
        except ImportError as exc:
            _NATIVE.append(None)
            _IMPORT_ERROR.append(exc)
    return _NATIVE[0]


_IMPORT_ERROR: list[ImportError] = []


def native_module() -> ModuleType:
    """The extension module; raises ImportError (with the reason) when it is not built."""
    mod = _import_native()
    if mod is None:
        reason = _IMPORT_ERROR[0] if _IMPORT_ERROR else "not built"
        raise ImportError(
            f"typedgen's native core is not available ({reason}); reinstall typedgen"
            " (`pip install .` builds it with CMake and a C++17 compiler) or set"
            " TYPEDGEN_ENGINE=python"
        )
    return mod


def resolve_engine(requested: str | None) -> EngineKind:
    """The engine to use for ``requested`` (``None``: the environment's choice)."""
    choice = (requested or os.environ.get("TYPEDGEN_ENGINE") or "auto").strip().lower()
    if choice == "python":
        return "python"
    if choice == "native":
        native_module()
        return "native"
    if choice != "auto":
        raise ValueError(
            f"unknown engine {choice!r}: TYPEDGEN_ENGINE (or engine=) is 'auto', 'native' or"
            " 'python'"
        )
    if _import_native() is not None:
        return "native"
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn(
            "typedgen: the native core could not be imported"
            f" ({_IMPORT_ERROR[0] if _IMPORT_ERROR else 'unknown reason'}); using the Python"
            " reference engine, which gives the same masks but is much slower on first-visit"
            " states. Reinstall typedgen to build it, or set TYPEDGEN_ENGINE=python to silence"
            " this warning.",
            RuntimeWarning,
            stacklevel=3,
        )
    return "python"


def selected_engine() -> EngineKind:
    """The engine the environment selects (see the module docstring)."""
    return resolve_engine(None)
