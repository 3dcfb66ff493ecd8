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

from typedgen.errors import EngineUnavailableError, OptionError

__all__ = ["EngineKind", "native_module", "resolve_engine", "selected_engine"]

EngineKind = Literal["native", "python"]
_NATIVE: list[ModuleType | None] = []
_WARNED: list[bool] = []


def _import_native() -> ModuleType | None:
    if not _NATIVE:
        try:
            _NATIVE.append(_load())
        except ImportError as exc:
            _NATIVE.append(None)
            _IMPORT_ERROR.append(exc)
    return _NATIVE[0]


def _load() -> ModuleType:
    """The extension; ``TYPEDGEN_NATIVE_LIB`` loads another build of it (a sanitizer or
    profiling build, see scripts/sanitize.sh) in place of the installed one."""
    path = os.environ.get("TYPEDGEN_NATIVE_LIB")
    if not path:
        from typedgen import _native  # type: ignore[attr-defined]

        return _native  # type: ignore[no-any-return]
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("typedgen._native", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"TYPEDGEN_NATIVE_LIB={path!r} is not a loadable extension module")
    module = importlib.util.module_from_spec(spec)
    sys.modules["typedgen._native"] = module
    spec.loader.exec_module(module)
    return module


_IMPORT_ERROR: list[ImportError] = []


def native_module() -> ModuleType:
    """The extension module; raises ImportError (with the reason) when it is not built."""
    mod = _import_native()
    if mod is None:
        reason = _IMPORT_ERROR[0] if _IMPORT_ERROR else "not built"
        raise EngineUnavailableError(
            f"typedgen's native core is not available ({reason})",
            hint="reinstall typedgen (`pip install .` builds it with CMake and a C++17"
            " compiler) or set TYPEDGEN_ENGINE=python",
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
        raise OptionError(
            f"unknown engine {choice!r}",
            code="option-value",
            hint="TYPEDGEN_ENGINE (or engine=) is 'auto', 'native' or 'python'",
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
