"""The runtime: matchers, the engines behind them (native or reference), batch mask fills.

Importing it registers the runtime with the compiler, so ``CompiledGrammar.matcher()`` works.
"""

from typedgen.runtime.batch import fill_batch
from typedgen.runtime.engines import engine_of
from typedgen.runtime.matcher import Matcher

__all__ = ["Matcher", "engine_of", "fill_batch"]
