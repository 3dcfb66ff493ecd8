"""The vLLM logits processor: typedgen masks on the rows of constrained requests.

vLLM has two sampler interfaces, and loads every class registered under the
``vllm.logits_processors`` entry-point group into whichever one runs (Model Runner V2 refuses,
at start-up, a registered class that is not its kind). One class therefore serves both:

- the V1 model runner (``vllm.v1.sample.logits_processor.LogitsProcessor``): rows are persistent
  batch slots; ``update_state`` reports added, removed and moved requests with a live reference
  to each request's output token list;
- Model Runner V2 (``vllm.v1.worker.gpu.sample.logits_processor.LogitsProcessor``, vLLM 0.32+):
  requests live in slots (``add_request``), and ``apply`` gets the step's layout; the tokens come
  from the runner's own token table.

A request opts in with ``extra_args={"typedgen": ...}`` (see :func:`typedgen_vllm.constraint`).
Its matcher follows the request's output tokens; each step every constrained row's mask is
filled by one :func:`typedgen.fill_batch` call (native threads, GIL released) and disallowed
logits are set to ``-inf``. Where the tokens are known before the forward pass (always on the
V1 runner without async scheduling), the fill starts on a worker thread then and runs while the
model computes the logits. Requests without the key are untouched, and a deployment with no
constrained request pays nothing but a dictionary lookup per new request.

Not supported: speculative decoding (vLLM does not run custom logits processors with it), and
``n > 1``/beam search rows share nothing special (each row is its own sequence, which is right).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import typedgen

from typedgen_vllm.constraint import GrammarCache, payload_of

if TYPE_CHECKING:
    import torch
    from typedgen import Matcher, Vocabulary

__all__ = ["TypedgenLogitsProcessor", "vocabulary_for"]

log = logging.getLogger("typedgen_vllm")

_CACHE = GrammarCache()
_VOCABS: dict[tuple[str, int], Vocabulary] = {}
_VOCAB_LOCK = threading.Lock()

try:  # the V1 runner's interface (every vLLM with the V1 engine)
    from vllm.v1.sample.logits_processor import LogitsProcessor as _V1Base
except ImportError:  # pragma: no cover - typedgen_vllm imported without vLLM
    _V1Base = object
try:  # Model Runner V2's interface (vLLM 0.32+)
    from vllm.v1.worker.gpu.sample.logits_processor.interface import (
        LogitsProcessor as _V2Base,
    )
except ImportError:  # pragma: no cover - older vLLM
    _V2Base = object

_BASES: tuple[type, ...] = tuple(dict.fromkeys(b for b in (_V1Base, _V2Base) if b is not object))


def vocabulary_for(vllm_config: Any) -> Vocabulary:
    """The exact token bytes of the served model, as wide as its logits, cached per process.

    EOS is what vLLM stops on (the tokenizer's EOS and the generation config's ``eos_token_id``),
    so the grammar allows exactly the tokens that end a request where the text is complete.
    """
    model_config = vllm_config.model_config
    width = int(model_config.get_vocab_size())
    key = (str(model_config.tokenizer), width)
    with _VOCAB_LOCK:
        found = _VOCABS.get(key)
        if found is not None:
            return found
        tokenizer = _tokenizer(model_config)
        eos: set[int] = set()
        if getattr(tokenizer, "eos_token_id", None) is not None:
            eos.add(int(tokenizer.eos_token_id))
        try:
            generation = model_config.try_get_generation_config()
        except Exception:  # a model without a generation config
            generation = {}
        extra = generation.get("eos_token_id")
        eos.update([extra] if isinstance(extra, int) else (extra or ()))
        vocab = typedgen.Vocabulary.from_tokenizer(
            tokenizer, vocab_size=max(width, len(tokenizer)), eos_token_ids=eos
        )
        _VOCABS[key] = vocab
        return vocab


def _tokenizer(model_config: Any) -> Any:
    try:
        from vllm.tokenizers.registry import cached_tokenizer_from_config

        tokenizer = cached_tokenizer_from_config(model_config)
        if tokenizer is not None and hasattr(tokenizer, "backend_tokenizer"):
            return tokenizer
    except ImportError:  # pragma: no cover - other vLLM layouts
        pass
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(
        model_config.tokenizer,
        revision=getattr(model_config, "tokenizer_revision", None),
        trust_remote_code=bool(getattr(model_config, "trust_remote_code", False)),
    )


@dataclass
class _Row:
    """One constrained request: its matcher and how far it has followed the output."""

    matcher: Matcher
    tokens: list[int] | None = None
    """V1: the live output token list vLLM keeps for the request."""
    consumed: int = 0
    broken: bool = False
    """A token the grammar refused arrived (a stop string, ``ignore_eos``, a bug): EOS only."""

    @property
    def eos_only(self) -> bool:
        return self.broken or self.matcher.is_terminated()

    def follow(self, tokens: Sequence[int]) -> bool:
        """Advance over ``tokens`` (the full output so far); ``True`` if the state changed."""
        n = len(tokens)
        while n and tokens[n - 1] < 0:  # async scheduling's placeholders, filled in later
            n -= 1
        if n == self.consumed or self.broken:
            return False
        if n < self.consumed:  # tokens were discarded (a KV-load failure): step back
            self.matcher.rollback(min(self.consumed - n, self.matcher.num_accepted))
            self.consumed = n
            return True
        for token in tokens[self.consumed : n]:
            if self.matcher.is_terminated():
                break
            if not self.matcher.accept_token(int(token)):
                self.broken = True
                log.warning(
                    "typedgen: token %d is outside the grammar after %d tokens; only EOS is"
                    " allowed from here (a stop string, ignore_eos or min_tokens?)",
                    token,
                    self.consumed,
                )
                break
            self.consumed += 1
        self.consumed = n
        return True


class TypedgenLogitsProcessor(*_BASES):  # type: ignore[misc]
    """Applies typedgen masks to requests that carry ``extra_args["typedgen"]``."""

    # -- shared ---------------------------------------------------------------------------------
    @classmethod
    def validate_params(cls, sampling_params: Any) -> None:
        """Refuse a malformed constraint at admission (HTTP 400 on the server), not mid-batch."""
        payload = payload_of(getattr(sampling_params, "extra_args", None))
        if payload is not None:
            _CACHE.grammar(payload)  # a GrammarError (a ValueError) for a malformed payload

    def __init__(self, vllm_config: Any, *args: Any) -> None:
        self._config = vllm_config
        self._v2 = len(args) == 1  # V2: (vllm_config, req_states); V1: (.., device, pin_memory)
        if self._v2:
            self._req_states = args[0]
            self._device = args[0].device
        else:
            self._device = args[0]
        self._rows: dict[int, _Row] = {}
        self._vocab: Vocabulary | None = None
        self._bitmask: npt.NDArray[np.int32] | None = None
        self._pending: Future[None] | None = None
        self._pending_rows: tuple[int, ...] = ()
        self._pool: ThreadPoolExecutor | None = None

    def _vocabulary(self) -> Vocabulary:
        if self._vocab is None:
            self._vocab = vocabulary_for(self._config)
        return self._vocab

    def _new_row(self, sampling_params: Any, tokens: list[int] | None) -> _Row | None:
        payload = payload_of(getattr(sampling_params, "extra_args", None))
        if payload is None:
            return None
        compiled = _CACHE.compiled(payload, self._vocabulary())
        return _Row(compiled.matcher(), tokens)

    def is_argmax_invariant(self) -> bool:
        """Masks change the argmax, so greedy requests need them too."""
        return False

    # -- masks ----------------------------------------------------------------------------------
    def _words(self, n_rows: int) -> npt.NDArray[np.int32]:
        n_words = (self._vocabulary().size + 31) // 32
        if self._bitmask is None or self._bitmask.shape[0] < n_rows:
            self._bitmask = np.zeros((max(n_rows, 8), n_words), dtype=np.int32)
        return self._bitmask

    def _fill(self, rows: Sequence[int], states: Sequence[_Row]) -> None:
        """Fill bitmask rows ``0..len(rows)-1`` for ``states`` (EOS only where broken)."""
        words = self._words(len(rows))
        live = [(i, s) for i, s in enumerate(states) if not s.eos_only]
        typedgen.fill_batch([s.matcher for _, s in live], words, [i for i, _ in live])
        vocab = self._vocabulary()
        for i, s in enumerate(states):
            if s.eos_only:
                words[i] = 0
                for eos in vocab.eos_ids:
                    words[i, eos >> 5] |= np.int32(np.uint32(1 << (eos & 31)).view(np.int32))

    def _start_fill(self, rows: tuple[int, ...]) -> None:
        """Compute the masks of ``rows`` on a worker thread (during the forward pass)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="typedgen-mask")
        states = [self._rows[r] for r in rows]
        self._pending = self._pool.submit(self._fill, rows, states)
        self._pending_rows = rows

    def _wait(self) -> tuple[int, ...] | None:
        """Wait for the fill started before the forward pass; the rows it filled, if any."""
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        pending.result()
        return self._pending_rows

    def _mask_logits(
        self, logits: torch.Tensor, logit_rows: Sequence[int], words: npt.NDArray[np.int32]
    ) -> torch.Tensor:
        return typedgen.apply_token_bitmask(logits, words[: len(logit_rows)], logit_rows)

    # -- the V1 runner ----------------------------------------------------------------------------
    def update_state(self, batch_update: Any) -> None:
        """Track added, removed and moved requests; start the next masks when tokens are known."""
        self._wait()  # a fill no apply() consumed (a step without sampling) must not overlap
        if batch_update is not None:
            for index in batch_update.removed:
                self._rows.pop(index, None)
            for index, params, _prompt, output in batch_update.added:
                row = self._new_row(params, output)
                if row is None:
                    self._rows.pop(index, None)
                else:
                    self._rows[index] = row
            for a, b, direction in batch_update.moved:
                row_a, row_b = self._rows.pop(a, None), self._rows.pop(b, None)
                if row_a is not None:
                    self._rows[b] = row_a
                if row_b is not None and getattr(direction, "name", "") == "SWAP":
                    self._rows[a] = row_b
        if not self._rows:
            return
        for row in self._rows.values():
            assert row.tokens is not None
            row.follow(row.tokens)
        self._start_fill(tuple(sorted(self._rows)))

    def _apply_v1(self, logits: torch.Tensor) -> torch.Tensor:
        filled = self._wait()
        rows = tuple(sorted(r for r in self._rows if r < logits.shape[0]))
        if not rows:
            return logits
        changed = False
        for r in rows:
            tokens = self._rows[r].tokens
            assert tokens is not None
            changed |= self._rows[r].follow(tokens)  # async scheduling fills placeholders late
        if changed or filled != rows:
            self._fill(rows, [self._rows[r] for r in rows])
        return self._mask_logits(logits, rows, self._words(len(rows)))

    # -- Model Runner V2 --------------------------------------------------------------------------
    def add_request(self, req_idx: int, sampling_params: Any) -> bool:
        """A request takes slot ``req_idx`` (whatever held it before is gone)."""
        row = self._new_row(sampling_params, None)
        if row is None:
            self._rows.pop(req_idx, None)
            return False
        self._rows[req_idx] = row
        return True

    def apply_staged_writes(self) -> None:
        """Nothing is staged: the tokens are read in :meth:`apply`."""

    def _apply_v2(self, logits: torch.Tensor, ctx: Any) -> torch.Tensor:
        slots = [int(s) for s in ctx.idx_mapping_np]
        mine = [(b, s) for b, s in enumerate(slots) if s in self._rows]
        if not mine:
            return logits
        if logits.shape[0] != len(slots):
            raise ValueError(
                "typedgen constraints do not support speculative decoding (several logits"
                " rows per request); serve without a speculative config"
            )
        positions = ctx.pos.tolist()
        inputs = ctx.input_ids.tolist()
        prompt_len = self._req_states.prompt_len.np
        for b, s in mine:
            row = self._rows[s]
            start = int(prompt_len[s])
            n_out = int(positions[b]) + 1 - start
            if n_out <= 0 or n_out == row.consumed:
                continue
            if n_out == row.consumed + 1:
                tail = [int(inputs[b])]
            else:  # first sight after a resumption, or several tokens at once
                table = self._req_states.all_token_ids.gpu
                tail = table[s, start + row.consumed : start + n_out - 1].tolist()
                tail.append(int(inputs[b]))
            # `follow` takes the whole output; pad the known prefix with what it already holds.
            row.follow(_Known(row.consumed, tail))
        batch_rows = tuple(b for b, _ in mine)
        states = [self._rows[s] for _, s in mine]
        self._fill(batch_rows, states)
        return self._mask_logits(logits, batch_rows, self._words(len(batch_rows)))

    # -- both -------------------------------------------------------------------------------------
    def apply(self, logits: torch.Tensor, ctx: Any = None) -> torch.Tensor:
        """Set the logits of tokens the grammar refuses to ``-inf``, row by constrained row."""
        if ctx is None:
            return self._apply_v1(logits)
        return self._apply_v2(logits, ctx)


class _Known(Sequence[int]):
    """An output of which only the tail past ``consumed`` is materialised (V2 reads no more)."""

    def __init__(self, consumed: int, tail: list[int]) -> None:
        self._consumed = consumed
        self._tail = tail

    def __len__(self) -> int:
        return self._consumed + len(self._tail)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            return [self[i] for i in range(start, stop, step)]
        if index < 0:
            index += len(self)
        if index < self._consumed:
            return 0  # never read: follow() starts at `consumed`
        return self._tail[index - self._consumed]
