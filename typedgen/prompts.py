"""Prompts as the model sees them: chat messages from a prompt, the output type's instructions
where the chat template expects them, token ids through the chat template (plain text where
there is none), and what to bind from an unconstrained reply (docs/internals/architecture.md,
"Generation")."""

from __future__ import annotations

import re
import threading
import warnings
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from typedgen.errors import OptionError, PromptWarning

__all__ = [
    "Prompt",
    "encode_messages",
    "messages_of",
    "takes_system",
    "unconstrained_answer",
    "with_instructions",
]

Message = Mapping[str, str]
Prompt = str | Sequence[Message]
"""A user message as text, or a conversation (``[{"role": ..., "content": ...}, ...]``)."""


def messages_of(prompt: Prompt, system: str | None) -> list[dict[str, str]]:
    """Chat messages of ``prompt``, ``system`` first unless the messages have one."""
    if isinstance(prompt, str):
        messages = [{"role": "user", "content": prompt}]
    else:
        messages = [dict(m) for m in prompt]
        if not messages or any("role" not in m or "content" not in m for m in messages):
            raise OptionError(
                "chat messages need a 'role' and a 'content' each",
                code="prompt-messages",
                hint='pass a string, or [{"role": "user", "content": "..."}, ...]',
            )
    if system is not None and messages[0]["role"] != "system":
        messages.insert(0, {"role": "system", "content": system})
    return messages


def with_instructions(
    messages: list[dict[str, str]], instructions: str, system_role: bool
) -> list[dict[str, str]]:
    """``messages`` with ``instructions`` in the system message (appended to one already there),
    or, where the chat template has no system role, in front of the first user turn."""
    if system_role:
        if messages[0]["role"] == "system":
            head = messages[0]["content"].rstrip()
            content = f"{head}\n\n{instructions}" if head else instructions
            return [{**messages[0], "content": content}, *messages[1:]]
        return [{"role": "system", "content": instructions}, *messages]
    for i, message in enumerate(messages):
        if message["role"] == "user":
            content = f"{instructions}\n\n{message['content']}"
            return [*messages[:i], {**message, "content": content}, *messages[i + 1 :]]
    return [*messages, {"role": "user", "content": instructions}]


_PROBE = "typedgen-system-role-probe"
_SYSTEM_ROLE: dict[str, bool] = {}
_SYSTEM_ROLE_LOCK = threading.Lock()


def takes_system(tokenizer: Any) -> bool:
    """Whether the tokenizer's chat template shows a system message (no template: plain text,
    where ``encode_messages`` writes it as a ``System:`` paragraph)."""
    template = getattr(tokenizer, "chat_template", None)
    if not template:
        return True
    key = template if isinstance(template, str) else repr(template)
    with _SYSTEM_ROLE_LOCK:
        found = _SYSTEM_ROLE.get(key)
    if found is None:
        probe = [{"role": "system", "content": _PROBE}, {"role": "user", "content": "?"}]
        try:
            text = tokenizer.apply_chat_template(probe, add_generation_prompt=True, tokenize=False)
        except Exception:  # templates refuse the role by raising (jinja's raise_exception)
            found = False
        else:
            found = isinstance(text, str) and _PROBE in text
        with _SYSTEM_ROLE_LOCK:
            _SYSTEM_ROLE[key] = found
    return found


_WARNED_PLAIN: weakref.WeakSet[Any] = weakref.WeakSet()
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n(.*?)\n?```", re.DOTALL)


def unconstrained_answer(text: str) -> str:
    """What an unconstrained model's reply holds for binding: the first fenced code block if
    there is one (models like to wrap JSON and SQL in them), else the reply, stripped."""
    found = _FENCE.search(text)
    return (found.group(1) if found else text).strip()


def encode_messages(tokenizer: Any, messages: list[dict[str, str]]) -> list[int]:
    """Token ids of a conversation, ready for the assistant's answer (the chat template, if any).

    A tokenizer without a chat template (the bundled Gemma 3 270M, a base model) gets the
    messages as plain text, which a chat model would not recognise: a :class:`PromptWarning`
    says so, once per tokenizer.
    """
    if getattr(tokenizer, "chat_template", None):
        encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        if isinstance(encoded, Mapping) or hasattr(encoded, "input_ids"):
            encoded = encoded["input_ids"]
        return [int(t) for t in encoded]
    try:
        first_time = tokenizer not in _WARNED_PLAIN
        if first_time:
            _WARNED_PLAIN.add(tokenizer)
    except TypeError:  # not weak-referenceable: warn every time
        first_time = True
    if first_time:
        warnings.warn(
            PromptWarning(
                f"{type(tokenizer).__name__} has no chat template: the conversation is sent as"
                " plain text (messages joined by blank lines)",
                hint="fine for a base model; for a chat model, set tokenizer.chat_template",
            ),
            stacklevel=3,
        )
    text = "\n\n".join(
        m["content"] if m["role"] == "user" else f"{m['role'].capitalize()}: {m['content']}"
        for m in messages
    )
    ids: list[int] = tokenizer.encode(text + "\n")
    return ids
