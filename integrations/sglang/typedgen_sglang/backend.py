"""The SGLang grammar objects and backend (imports SGLang and torch)."""

from __future__ import annotations

import time
from typing import Any

import torch
import typedgen
from sglang.srt.constrained.base_grammar_backend import (
    BaseGrammarBackend,
    BaseGrammarObject,
    GrammarStats,
    InvalidGrammarObject,
)
from typedgen.errors import TypedgenError

from typedgen_sglang import grammar_of_key

__all__ = ["TypedgenGrammar", "TypedgenGrammarBackend", "apply_bitmask"]


def apply_bitmask(logits: torch.Tensor, bitmask: torch.Tensor) -> None:
    """``logits[i, t] = -inf`` where bit ``t`` of row ``i`` is clear (rows x ceil(V/32) int32)."""
    if logits.device.type == "cuda":
        try:
            from sglang.kernels.ops.grammar.bitmask_ops import apply_token_bitmask_inplace_triton

            apply_token_bitmask_inplace_triton(logits, bitmask)
            return
        except ImportError:  # an SGLang without the kernel: the torch path below
            pass
    rows = logits.view(-1, logits.shape[-1])
    words = bitmask.view(-1, bitmask.shape[-1])[: rows.shape[0]]
    typedgen.apply_token_bitmask(rows, words)


class TypedgenGrammar(BaseGrammarObject):  # type: ignore[misc]
    """One request's matcher, in SGLang's grammar-object protocol."""

    def __init__(self, compiled: typedgen.CompiledGrammar, key: str = "") -> None:
        super().__init__()
        self.compiled = compiled
        self.matcher = compiled.matcher()
        self.key = key
        self.grammar_stats = GrammarStats(dispatch_type="typedgen")

    def accept_token(self, token: int) -> None:
        """SGLang only samples allowed tokens, so a refusal is a bug worth stopping for."""
        if self.matcher.is_terminated():
            return
        self.current_token = token
        if not self.matcher.accept_token(int(token)):
            raise ValueError(
                f"typedgen: token {token} is outside the grammar after"
                f" {self.matcher.num_accepted} tokens ({self.key[:60]})"
            )

    def rollback(self, k: int) -> None:
        self.matcher.rollback(k)

    def is_terminated(self) -> bool:
        return bool(self.matcher.is_terminated())

    def allocate_vocab_mask(self, vocab_size: int, batch_size: int, device: Any) -> torch.Tensor:
        pin = torch.cuda.is_available()
        shape = (batch_size, (vocab_size + 31) // 32)
        return torch.full(shape, -1, dtype=torch.int32, pin_memory=pin)

    def fill_vocab_mask(self, vocab_mask: torch.Tensor, idx: int) -> None:
        self.matcher.fill_next_token_bitmask(vocab_mask.numpy(), idx)

    @staticmethod
    def fill_vocab_mask_batched(entries: list[Any], vocab_mask: torch.Tensor) -> None:
        """Every listed row in one native call (GIL released, rows on a thread pool)."""
        ours = [e for e in entries if isinstance(e.grammar, TypedgenGrammar)]
        typedgen.fill_batch(
            [e.grammar.matcher for e in ours], vocab_mask.numpy(), [e.row for e in ours]
        )
        for e in entries:
            if not isinstance(e.grammar, TypedgenGrammar):
                e.grammar.fill_vocab_mask(vocab_mask, e.row)

    @staticmethod
    def reset_vocab_mask(vocab_mask: torch.Tensor) -> None:
        vocab_mask.fill_(-1)

    @staticmethod
    def move_vocab_mask(vocab_mask: torch.Tensor, device: Any) -> torch.Tensor:
        return vocab_mask.to(device, non_blocking=True)

    @staticmethod
    def apply_vocab_mask(logits: torch.Tensor, vocab_mask: torch.Tensor) -> None:
        apply_bitmask(logits, vocab_mask)

    def copy(self) -> TypedgenGrammar:
        """A fresh matcher on the same compiled grammar (SGLang caches one object per key)."""
        return TypedgenGrammar(self.compiled, self.key)

    def try_jump_forward(self, tokenizer: Any) -> tuple[list[int], str] | None:
        """The bytes the grammar forces next, cut to whole UTF-8 characters."""
        forced = self.matcher.forced_bytes()
        text = forced.decode("utf-8", errors="ignore") if forced else ""
        while text and text.encode("utf-8") != forced[: len(text.encode("utf-8"))]:
            text = text[:-1]
        return ([], text) if text else None

    def jump_forward_str_state(self, helper: tuple[list[int], str]) -> tuple[str, int]:
        return helper[1], -1

    def jump_and_retokenize(
        self, old_output_ids: list[int], new_output_ids: list[int], next_state: int
    ) -> None:
        """Roll back to the common prefix of the old and new tokenisation, then follow the new."""
        common = 0
        for old, new in zip(old_output_ids, new_output_ids, strict=False):
            if old != new:
                break
            common += 1
        if common < len(old_output_ids):
            self.matcher.rollback(len(old_output_ids) - common)
        for token in new_output_ids[common:]:
            if not self.matcher.accept_token(int(token)):
                raise ValueError(f"typedgen: retokenised token {token} is outside the grammar")

    def __repr__(self) -> str:
        return f"TypedgenGrammar({self.key[:40]!r}, accepted={self.matcher.num_accepted})"


class TypedgenGrammarBackend(BaseGrammarBackend):  # type: ignore[misc]
    """Compiles SGLang's constraint keys with typedgen, for the served model's vocabulary."""

    def __init__(self, tokenizer: Any, vocab_size: int, eos_token_ids: Any = None) -> None:
        super().__init__()
        eos = {int(i) for i in (eos_token_ids or ())}
        if getattr(tokenizer, "eos_token_id", None) is not None:
            eos.add(int(tokenizer.eos_token_id))
        width = max(int(vocab_size), len(tokenizer))
        self.vocabulary = typedgen.Vocabulary.from_tokenizer(
            tokenizer, vocab_size=width, eos_token_ids=eos or None
        )

    def _compile(self, key_type: str, key_string: str) -> Any:
        started = time.perf_counter()
        try:
            grammar = grammar_of_key(key_type, key_string)
            compiled = typedgen.compile(grammar, self.vocabulary)
        except (TypedgenError, ValueError) as exc:  # malformed JSON is a ValueError too
            return InvalidGrammarObject(f"typedgen: {exc}")
        found = TypedgenGrammar(compiled, key_string)
        found.grammar_stats.compilation_time = time.perf_counter() - started
        return found

    def dispatch_json(self, key_string: str) -> Any:
        return self._compile("json", key_string)

    def dispatch_regex(self, key_string: str) -> Any:
        return self._compile("regex", key_string)

    def dispatch_ebnf(self, key_string: str) -> Any:
        return self._compile("ebnf", key_string)

    def dispatch_structural_tag(self, key_string: str) -> Any:
        return InvalidGrammarObject(
            "typedgen: structural tags are not supported; send json_schema, regex or ebnf"
        )
