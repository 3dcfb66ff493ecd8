"""``typedgen.generate`` and ``typedgen.Generator``: declaration in, typed object out.

The pipeline is the one in docs/internals/architecture.md section 1: ``grammar_of(output_type)``
(with a scratchpad in front when ``reasoning=True``), ``compile`` for the model's vocabulary
(cached), the decoding loop, binding to the output type, then validators with a bounded retry
that shows the model its mistake.
torch and transformers are imported only when a model runs.
"""

from __future__ import annotations

import codecs
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from typedgen import reasoning as _scratch
from typedgen.binding.partial import PartialJSONParser
from typedgen.decoding.json_keys import KeyEvent
from typedgen.decoding.loop import DecodeOptions, Decoder, Row
from typedgen.decoding.loops import LoopEvent, loop_guard_from
from typedgen.decoding.sampling import SamplingParams
from typedgen.errors import (
    GenerationError,
    OptionError,
    UnknownOptionError,
    ValidationFailed,
)
from typedgen.outputs import adapter_for, instructions_for
from typedgen.prompts import (
    Prompt,
    encode_messages,
    messages_of,
    takes_system,
    unconstrained_answer,
    with_instructions,
)
from typedgen.repair import Repair, locate
from typedgen.validation import (
    Attempt,
    Validator,
    describe,
    feedback,
    first_failure,
    is_verdict,
    not_a_verdict,
)

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar
    from typedgen.ir.grammar import Grammar
    from typedgen.models import LoadedModel

__all__ = ["Details", "Generator", "Prompt", "StreamEvent", "generate"]


_DEFAULT_MODELS: dict[str | None, LoadedModel] = {}
_DEFAULT_MODELS_LOCK = threading.Lock()


def _default_model(device: str | None = None) -> LoadedModel:
    """The bundled model, loaded once per process even when several threads ask at once."""
    from typedgen.models import load_model

    with _DEFAULT_MODELS_LOCK:
        found = _DEFAULT_MODELS.get(device)
        if found is None:
            found = _DEFAULT_MODELS[device] = load_model(device=device)
        return found


@dataclass(frozen=True)
class Details:
    """A result with everything about how it was made (``return_details=True``)."""

    value: Any
    text: str
    """The final attempt's full text (scratchpad included)."""
    reasoning: str | None
    """The scratchpad, or the output's ``Reasoning`` field, when there is one."""
    prompt_tokens: int
    """Tokens of the last attempt's prompt (the conversation, feedback included)."""
    sampled_tokens: int
    """Tokens sampled, summed over every attempt (repaired and rolled-back tokens included)."""
    forced_tokens: int
    """Tokens taken from the grammar's forced bytes by jump-forward (no sampling needed),
    summed over every attempt."""
    seconds: float
    attempts: tuple[Attempt, ...]
    forward_passes: int = 0
    """Forward passes, summed over every attempt."""
    closed_early: bool = False
    """The budget ran out and ``on_max_tokens="finish"`` closed the output."""
    loops: tuple[LoopEvent, ...] = ()
    """Degenerate loops the loop guard met, over every attempt (``loop_guard=``)."""
    repairs: tuple[Repair, ...] = ()
    """Choices excluded by repairs at the faulty place, over every attempt (``repairs=``)."""
    repeated_keys: tuple[KeyEvent, ...] = ()
    """JSON object keys the model was about to write twice in one object, over every attempt
    (``unique_keys=``): rolled back to the comma before them, excluded, or kept where nothing
    else was allowed."""
    constrained: bool = True
    """Whether the grammar constrained the decoding (``constrain=False`` for comparisons)."""


@dataclass(frozen=True)
class StreamEvent:
    """One step of :meth:`Generator.stream`.

    ``delta`` is the new text, ``text`` all text of this attempt so far; for JSON outputs,
    ``partial`` is the value parsed so far (complete fields only, nested containers partial).
    The last event has ``done=True`` and the bound, validated ``value``. ``retract`` is how many
    characters of the text before this event were taken back first (the loop guard or a
    repeated JSON key rolled the row back): the text is the earlier text less its last
    ``retract`` characters, plus ``delta``.
    """

    delta: str
    text: str
    attempt: int
    partial: Any = None
    done: bool = False
    value: Any = None
    retract: int = 0


@dataclass
class _Settings:
    max_tokens: int = 512
    temperature: float = 0.0
    top_k: int | None = None
    top_p: float | None = None
    seed: int | None = None
    jump_forward: str | bool = "force"
    on_max_tokens: str = "raise"
    num_beams: int = 1
    max_retries: int = 2
    system: str | None = None
    instructions: bool | str = True
    validators: tuple[Validator, ...] = ()
    loop_guard: Any = True
    constrain: bool = True
    repairs: int = 2
    retry_temperature: float = 0.7
    unique_keys: bool = True

    def updated(self, overrides: Mapping[str, Any]) -> _Settings:
        unknown = set(overrides) - set(self.__dataclass_fields__)
        if unknown:
            raise UnknownOptionError(
                f"unknown generation options: {', '.join(sorted(unknown))}",
                hint=f"the options are {', '.join(sorted(self.__dataclass_fields__))}",
            )
        changes = dict(overrides)
        if "validators" in changes:
            changes["validators"] = tuple(changes["validators"] or ())
        if not isinstance(changes.get("instructions", True), bool | str):
            raise OptionError(
                f"instructions must be True, False or text, not {changes['instructions']!r}",
                code="option-value",
                hint="True describes the output type in the prompt (the default), False leaves"
                ' it out, and instructions="..." says something else instead',
            )
        return replace(self, **changes)

    def decode_options(self) -> DecodeOptions:
        sampling = SamplingParams(self.temperature, self.top_k, self.top_p, self.seed)
        return DecodeOptions(
            self.max_tokens,
            sampling,
            self.jump_forward,
            on_max_tokens=self.on_max_tokens,
            loop_guard=loop_guard_from(self.loop_guard),
        )

    def for_retry(self, attempt_no: int) -> _Settings:
        """A whole-output retry samples: greedy decoding would mostly repeat its text."""
        if attempt_no == 0 or self.temperature > 0 or self.num_beams > 1:
            return self
        # Seeded (0 when no seed was given): a greedy call stays repeatable, retries included.
        seed = (self.seed or 0) + attempt_no
        return replace(self, temperature=self.retry_temperature, seed=seed)


class Generator:
    """An output type compiled once for a model, called many times.

    ``reasoning=True`` (or a character bound, e.g. ``reasoning=2000``) puts a free-text
    scratchpad before the structure; ``reasoning="fenced"`` lets the model explain in free text
    and then write the output in a Markdown code block, as chat models do unconstrained (see
    :class:`typedgen.Scratchpad`). Every other keyword is a default for the calls and may be
    overridden per call: ``max_tokens``, ``temperature``, ``top_k``, ``top_p``, ``seed``,
    ``jump_forward``, ``on_max_tokens``, ``num_beams``, ``max_retries``, ``system``,
    ``instructions``, ``validators``, ``loop_guard`` (``True``: stop degenerate loops inside
    free text, see :class:`typedgen.LoopGuard`; ``False``: off), ``repairs`` (2: rejections
    that name a place are repaired there, at most this many times per attempt),
    ``retry_temperature`` (0.7: a whole-output retry of a greedy call samples at this
    temperature), ``constrain`` (``False``: decode the same prompt without the grammar and bind
    what the model wrote, for side-by-side comparisons), ``unique_keys`` (``True``: in JSON
    output, a key its object already holds is not written again: the row goes back to the
    comma before it, see :class:`typedgen.KeyEvent`; ``False``: off). ``instructions``
    (default ``True``) puts a short description of the output type in the prompt
    (:func:`typedgen.instructions_for`); ``False`` leaves it out, and text replaces it.

    Thread safety: one generator may be called from several threads at once (``__call__``,
    ``batch`` and ``stream``). Everything a call changes is its own: the KV cache, the matchers,
    the sampling generator and the retry conversation are built per call; what calls share is
    read-only or a lock-guarded memo (the model's weights, run under ``torch.inference_mode``; the
    compiled grammar, whose engine memo is filled under locks; the compile and default-model
    caches). Each call gives what it gives alone: a seeded call is repeatable whatever runs beside
    it. Calls do not run faster together on one device (the forward passes and the mask worker
    are shared), and a validator or output type of your own must itself be safe to call from
    several threads. One ``stream()`` iterator belongs to the thread that consumes it.
    """

    def __init__(
        self,
        output_type: object,
        model: LoadedModel | None = None,
        *,
        reasoning: bool | int | str | _scratch.Scratchpad = False,
        **defaults: Any,
    ) -> None:
        self.output_type = output_type
        self._model = model
        self._settings = _Settings().updated(defaults)
        adapter = adapter_for(output_type)
        grammar = adapter.grammar(output_type)
        pad = _scratch.scratchpad_from(reasoning)
        if pad is not None and pad.style == "fenced" and pad.tag is None:
            pad = replace(pad, tag=adapter.fence_tag(output_type))
        self.scratchpad: _scratch.Scratchpad | None = pad
        self.reasoning = pad.max_chars if pad is not None else 0
        """The scratchpad's character bound (0: no scratchpad)."""
        self._adapter = adapter
        self._answer_grammar = grammar
        if pad is not None:
            grammar = pad.grammar(grammar)
        self.grammar: Grammar = grammar
        self._bind = adapter.binder(output_type)
        self._json = adapter.is_json(output_type)
        self._reasoning_keys = adapter.reasoning_keys(output_type) if self._json else ()
        self._instructions: tuple[str | None] | None = None  # computed on first use
        self._compiled: dict[str, CompiledGrammar] = {}
        self._lock = threading.Lock()  # first use: one default-model load, one compile

    # -- set-up ---------------------------------------------------------------------------------
    @property
    def model(self) -> LoadedModel:
        """The model (the bundled default is loaded on first use)."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _default_model()
        return self._model

    def compiled(self) -> CompiledGrammar:
        """The grammar compiled for the model's vocabulary (cached)."""
        from typedgen.api import compile as compile_grammar

        vocab = self.model.vocabulary
        found = self._compiled.get(vocab.fingerprint)
        if found is None:
            with self._lock:
                found = self._compiled.get(vocab.fingerprint)
                if found is None:
                    found = compile_grammar(self.grammar, vocab)
                    self._compiled[vocab.fingerprint] = found
        return found

    def _compiled_for(self, settings: _Settings) -> CompiledGrammar:
        """The grammar of the call: the output type's, or any text with ``constrain=False``."""
        if settings.constrain:
            return self.compiled()
        from typedgen.api import compile as compile_grammar
        from typedgen.ir.grammar import Grammar

        return compile_grammar(Grammar.from_regex(_ANY_TEXT), self.model.vocabulary)

    def _options(self, settings: _Settings) -> DecodeOptions:
        """The decoding loop's options for a call: the settings', and for constrained JSON with
        ``unique_keys`` the text before the JSON (so that repeated object keys are refused)."""
        options = settings.decode_options()
        if not (settings.unique_keys and settings.constrain and self._json):
            return options
        mark = self.scratchpad.answer_mark if self.scratchpad is not None else ""
        return replace(options, unique_keys=mark.encode("utf-8"))

    # -- calls ------------------------------------------------------------------------------------
    def __call__(self, prompt: Prompt, *, return_details: bool = False, **options: Any) -> Any:
        """Generate one value for ``prompt`` (a ``Details`` with ``return_details=True``)."""
        settings = self._settings.updated(options)
        details = self._attempts(prompt, settings)
        return details if return_details else details.value

    def batch(
        self, prompts: Sequence[Prompt], *, return_details: bool = False, **options: Any
    ) -> list[Any]:
        """One value per prompt, decoded together in one padded batch (one matcher per row).

        Rows that fail validation are retried together, as one batch per round, each with its
        own feedback, up to ``max_retries`` rounds. When some row still fails (validation, or
        a decode that ran out of tokens), the error of the first such prompt is raised once
        every row is done, with its attempts and a note naming the prompt.
        """
        settings = self._settings.updated(options)
        if settings.num_beams > 1:
            return [self(p, return_details=return_details, **options) for p in prompts]
        started = time.perf_counter()
        conversations = [self._conversation(p, settings) for p in prompts]
        history: list[list[Attempt]] = [[] for _ in prompts]
        passes = [0] * len(prompts)
        results: dict[int, Details] = {}
        failures: dict[int, GenerationError] = {}
        todo = list(range(len(prompts)))
        round_no = 0
        while todo:
            # Every row of round r has r attempts behind it: one retry setting for the round.
            run = settings.for_retry(round_no)
            encoded = [self._encode(conversations[i]) for i in todo]
            decoder = Decoder(self.model, self._compiled_for(run), encoded, self._options(run))
            retry: list[int] = []
            for i, ids, row in zip(todo, encoded, decoder.run(), strict=True):
                passes[i] += decoder.forward_passes
                try:
                    attempt = self._finish(run, decoder, row)
                except GenerationError as exc:
                    failed = _failed(decoder, row, exc, round_no)
                    if not exc.attempts:
                        exc.attempts = [*history[i], failed]
                    exc.details = self._details(
                        failed, [*history[i], failed], len(ids), started, passes[i], run
                    )
                    failures[i] = exc
                    continue
                attempt = _with_events(attempt, row, round_no)
                history[i].append(attempt)
                if attempt.ok:
                    results[i] = self._details(
                        attempt, history[i], len(ids), started, passes[i], run
                    )
                elif len(history[i]) > settings.max_retries:
                    failure = _validation_failed(history[i], attempt)
                    failure.details = self._details(
                        attempt, history[i], len(ids), started, passes[i], run
                    )
                    failures[i] = failure
                else:
                    conversations[i] = conversations[i] + feedback(
                        attempt.text, attempt.error or ""
                    )
                    retry.append(i)
            todo = retry
            round_no += 1
        if failures:
            first = min(failures)
            error = failures[first]
            error.add_note(f"typedgen: prompt {first} of the batch ({len(failures)} failed)")
            raise error
        return [results[i] if return_details else results[i].value for i in range(len(prompts))]

    def stream(self, prompt: Prompt, **options: Any) -> Iterator[StreamEvent]:
        """Yield text deltas (and partial objects for JSON outputs) as tokens are committed."""
        settings = self._settings.updated(options)
        if settings.num_beams > 1:
            raise OptionError(
                "streaming decodes one sequence; it cannot use beam search",
                code="option-conflict",
                hint="drop num_beams, or call the generator without stream()",
            )
        yield from self._stream_attempts(prompt, settings)

    # -- the retry loop ---------------------------------------------------------------------------
    def _attempts(self, prompt: Prompt, settings: _Settings) -> Details:
        for event in self._stream_attempts(prompt, settings, emit=False):
            if event.done:
                assert isinstance(event.value, Details)
                return event.value
        raise AssertionError("unreachable")  # pragma: no cover

    def _stream_attempts(
        self,
        prompt: Prompt,
        settings: _Settings,
        *,
        emit: bool = True,
    ) -> Iterator[StreamEvent]:
        started = time.perf_counter()
        messages = self._conversation(prompt, settings)
        attempts: list[Attempt] = []
        passes = 0
        while True:
            ids = self._encode(messages)
            attempt_no = len(attempts)
            run = settings.for_retry(attempt_no)
            decoder: Decoder | None = None
            try:
                if run.num_beams > 1:
                    from typedgen.decoding.beam import beam_search

                    beam = beam_search(
                        self.model,
                        self._compiled_for(run),
                        ids,
                        run.num_beams,
                        self._options(run),
                    )
                    attempt = self._attempt_from(
                        run, beam.text, beam.sampled, beam.forced, beam.error
                    )
                    if beam.closed:
                        attempt = replace(attempt, closed_early=True)
                else:
                    decoder = Decoder(
                        self.model, self._compiled_for(run), [ids], self._options(run)
                    )
                    row = decoder.rows[0]
                    if emit:
                        yield from self._events(decoder, row, attempt_no)
                    else:
                        decoder.run()
                    attempt = self._finish(run, decoder, row)
                    repairs: list[Repair] = []
                    while not attempt.ok and len(repairs) < run.repairs and run.constrain:
                        cut = self._repair_point(decoder, row, attempt)
                        if cut is None:
                            break
                        repairs.append(replace(cut[1], attempt=attempt_no))
                        decoder.rewind(0, cut[0], exclude=row.tokens[cut[0]])
                        if emit:
                            yield from self._events(decoder, row, attempt_no)
                        else:
                            decoder.run()
                        attempt = self._finish(run, decoder, row)
                    attempt = _with_events(
                        replace(attempt, repairs=tuple(repairs)), row, attempt_no
                    )
            except GenerationError as exc:
                if decoder is not None and isinstance(exc, type(decoder.rows[0].error)):
                    row = decoder.rows[0]
                    failed = _failed(decoder, row, exc, attempt_no)
                    passes += decoder.forward_passes
                    if not exc.attempts:
                        exc.attempts = [*attempts, failed]
                    exc.details = self._details(
                        failed, [*attempts, failed], len(ids), started, passes, run
                    )
                    raise exc from None
                raise _with_attempts(exc, attempts) from None
            if decoder is not None:
                passes += decoder.forward_passes
            attempts.append(attempt)
            if attempt.ok:
                details = self._details(attempt, attempts, len(ids), started, passes, run)
                if emit:
                    yield StreamEvent("", attempt.text, attempt_no, None, True, details.value)
                else:
                    yield StreamEvent("", attempt.text, attempt_no, None, True, details)
                return
            if len(attempts) > settings.max_retries:
                failure = _validation_failed(attempts, attempt)
                failure.details = self._details(attempt, attempts, len(ids), started, passes, run)
                raise failure
            messages = messages + feedback(attempt.text, attempt.error or "")

    def _repair_point(
        self, decoder: Decoder, row: Row, attempt: Attempt
    ) -> tuple[int, Repair] | None:
        """The token where the rejection's place begins, and what excluding it records."""
        text = attempt.text
        answer, answer_at = text, 0
        if self.scratchpad is not None:
            _, answer, answer_at = self.scratchpad.split(text)
        fault = locate(self.output_type, answer, attempt.cause)
        if fault is None:
            return None
        start = answer_at + fault.start
        if answer[fault.start : fault.start + 1] == '"':
            start += 1  # a string value: the model's choice begins after the quote
        target = len(text[:start].encode("utf-8"))
        pieces = decoder.vocab.tokens
        offset = 0
        for k, token in enumerate(row.tokens):
            offset += len(pieces[token])
            if offset > target:
                excluded = pieces[token].decode("utf-8", errors="replace")
                return k, Repair(k, excluded, fault.place, attempt.error or "")
        return None

    def _events(self, decoder: Decoder, row: Row, attempt_no: int) -> Iterator[StreamEvent]:
        utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        parser = PartialJSONParser() if self._json else None
        text = ""
        mark = self.scratchpad.answer_mark if self.scratchpad is not None else ""
        end = self.scratchpad.answer_end if self.scratchpad is not None else None
        answer_from = None if mark else 0
        fed = 0
        if decoder.rows[0].tokens:  # continuing after a rewind: restart from the kept text
            text = decoder.text(row)
            fed = 0
            parser = PartialJSONParser() if self._json else None
            answer_from = None if mark else 0
            yield StreamEvent("", text, attempt_no, None)
        rewound = row.rewound
        for update in decoder.steps():
            for _, new_bytes in update:
                retract = 0
                if row.rewound != rewound:  # rolled back in this step: restart from its text
                    rewound = row.rewound
                    utf8.reset()
                    full = utf8.decode(decoder.vocab.decode(row.tokens))
                    common = _common_prefix(text, full)
                    retract, delta = len(text) - common, full[common:]
                    parser = PartialJSONParser() if self._json else None
                    answer_from, fed = (None if mark else 0), 0
                    text = full[:common]
                else:
                    delta = utf8.decode(new_bytes)
                if not delta and not retract:
                    continue
                text += delta
                partial = None
                if parser is not None:
                    if answer_from is None and mark in text:
                        answer_from = text.index(mark) + len(mark)
                    if answer_from is not None:
                        stop = text.find(end, answer_from) if end else -1
                        stop = len(text) if stop < 0 else stop
                        state = parser.feed(text[max(fed, answer_from) : stop])
                        fed = max(fed, stop)
                        if state is not None:
                            partial = self._partial_object(state.value)
                yield StreamEvent(delta, text, attempt_no, partial, retract=retract)

    def _partial_object(self, value: Any) -> Any:
        """For a Pydantic model, the fields complete so far, validated one by one."""
        model: Any = self.output_type
        if not isinstance(value, dict) or not hasattr(model, "model_construct"):
            return value
        fields = getattr(model, "model_fields", {})
        aliases = {(f.alias or name): name for name, f in fields.items()}
        instance = model.model_construct()
        for key, raw in value.items():
            name = aliases.get(key, key)
            try:
                model.__pydantic_validator__.validate_assignment(instance, name, raw)
            except (ValueError, TypeError, AttributeError):  # shown raw, validated at the end
                object.__setattr__(instance, str(name), raw)
        return instance

    # -- attempts -------------------------------------------------------------------------------
    def _finish(self, settings: _Settings, decoder: Decoder, row: Row) -> Attempt:
        if row.error is not None:
            raise row.error
        text = decoder.text(row)
        attempt = self._attempt_from(settings, text, row.sampled, row.forced, None)
        return replace(attempt, closed_early=row.closed) if row.closed else attempt

    def _attempt_from(
        self,
        settings: _Settings,
        text: str,
        sampled: int,
        forced: int,
        error: GenerationError | None,
    ) -> Attempt:
        if error is not None:
            raise error
        reasoning: str | None = None
        answer = text
        if self.scratchpad is not None:
            reasoning, answer, _ = self.scratchpad.split(text)
        if not settings.constrain:
            answer = unconstrained_answer(answer)
        try:
            value = self._bind(answer)
        except Exception as exc:
            if not is_verdict(exc):
                not_a_verdict(exc, f"binding the output to {_type_name(self.output_type)}")
                raise
            return Attempt(text, None, describe(exc), reasoning, sampled, forced, cause=exc)
        if reasoning is None and self._reasoning_keys:
            reasoning = _field_reasoning(answer, self._reasoning_keys)
        failure = first_failure(value, settings.validators)
        if failure is None:
            return Attempt(text, value, None, reasoning, sampled, forced)
        return Attempt(text, value, failure[0], reasoning, sampled, forced, cause=failure[1])

    def _details(
        self,
        attempt: Attempt,
        attempts: list[Attempt],
        prompt_tokens: int,
        started: float,
        passes: int | Decoder | None,
        settings: _Settings | None = None,
    ) -> Details:
        if passes is None or isinstance(passes, Decoder):
            passes = passes.forward_passes if passes is not None else 0
        return Details(
            value=attempt.value,
            text=attempt.text,
            reasoning=attempt.reasoning,
            prompt_tokens=prompt_tokens,
            sampled_tokens=sum(a.sampled_tokens for a in attempts),
            forced_tokens=sum(a.forced_tokens for a in attempts),
            seconds=time.perf_counter() - started,
            attempts=tuple(attempts),
            forward_passes=passes,
            closed_early=attempt.closed_early,
            loops=tuple(e for a in attempts for e in a.loops),
            repeated_keys=tuple(e for a in attempts for e in a.repeated_keys),
            repairs=tuple(r for a in attempts for r in a.repairs),
            constrained=settings.constrain if settings is not None else True,
        )

    def _encode(self, messages: list[dict[str, str]]) -> list[int]:
        return encode_messages(self.model.tokenizer, messages)

    # -- the prompt -------------------------------------------------------------------------------
    def _instructions_text(self, setting: bool | str) -> str | None:
        """The description of the output the prompt carries (``None``: none)."""
        if isinstance(setting, str):
            return setting or None
        if not setting:
            return None
        if self._instructions is None:
            with self._lock:
                if self._instructions is None:
                    told = instructions_for(self.output_type)
                    if told is not None:
                        self._check_examples()
                    self._instructions = (told,)
        return self._instructions[0]

    def _check_examples(self) -> None:
        """Refuse examples the grammar does not accept: the model would copy them."""
        examples = self._adapter.examples(self.output_type)
        if not examples:
            return
        from typedgen.grammar_check import check_sample, compile_for_check

        compiled = compile_for_check(self._answer_grammar)
        for i, example in enumerate(examples):
            report = check_sample(compiled, example.encode("utf-8"), f"example {i + 1}")
            if not report.accepted:
                raise OptionError(
                    f"{_type_name(self.output_type)}: {report.render()} ({example!r})",
                    code="output-examples",
                    hint="fix or drop the example: the prompt would show the model a text its"
                    " grammar refuses",
                )

    def _conversation(self, prompt: Prompt, settings: _Settings) -> list[dict[str, str]]:
        """The prompt as chat messages: ``system`` first, the instructions where they belong."""
        messages = messages_of(prompt, settings.system)
        text = self._instructions_text(settings.instructions)
        pad_note = self.scratchpad.instruction() if self.scratchpad is not None else None
        if pad_note and settings.instructions is True:
            text = f"{text}\n{pad_note}" if text else pad_note
        if text is None:
            return messages
        return with_instructions(messages, text, takes_system(self.model.tokenizer))


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    return next(
        (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _failed(decoder: Decoder, row: Row, error: GenerationError, attempt_no: int) -> Attempt:
    """The attempt of a decode that failed with ``error``, with what it wrote and met."""
    attempt = Attempt(decoder.text(row), None, describe(error), None, row.sampled, row.forced)
    return _with_events(attempt, row, attempt_no)


def _with_events(attempt: Attempt, row: Row, attempt_no: int) -> Attempt:
    """``attempt`` with its row's loop and repeated-key events, stamped with its index."""
    return replace(
        attempt,
        loops=tuple(replace(e, attempt=attempt_no) for e in row.loops),
        repeated_keys=tuple(replace(e, attempt=attempt_no) for e in row.repeated_keys),
    )


def _with_attempts(error: GenerationError, earlier: list[Attempt]) -> GenerationError:
    """``error`` (a decode that failed) carrying the call's attempts, the failed one last."""
    if not error.attempts:
        failed = Attempt(error.partial_text, None, describe(error))
        error.attempts = [*earlier, failed]
    return error


def _validation_failed(attempts: list[Attempt], last: Attempt) -> ValidationFailed:
    return ValidationFailed(
        f"{len(attempts)} attempt(s) failed validation; last error: {last.error}",
        attempts=attempts,
        hint="raise max_retries, relax the validator, or say more in the prompt",
    )


def _type_name(output_type: object) -> str:
    name = getattr(output_type, "__name__", None)
    return name if isinstance(name, str) else type(output_type).__name__


_ANY_TEXT = r"[\s\S]*"
"""The grammar of ``constrain=False``: any UTF-8 text, ended whenever the model ends it."""


def _field_reasoning(answer: str, keys: tuple[str, ...]) -> str | None:
    try:
        value = json.loads(answer)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    parts = [value[k] for k in keys if isinstance(value.get(k), str)]
    return "\n".join(parts) if parts else None


def generate(
    output_type: object,
    prompt: Prompt,
    *,
    model: LoadedModel | None = None,
    reasoning: bool | int | str | _scratch.Scratchpad = False,
    return_details: bool = False,
    **options: Any,
) -> Any:
    """Generate a value of ``output_type`` for ``prompt`` with ``model`` (default: bundled).

    ``output_type`` is a Pydantic model or ``TypeAdapter``-able type, a JSON Schema dict, a
    ``typedgen.ir.Grammar``, or ``Lark(...)``, ``Gbnf(...)``, ``Regex(...)``, ``Choice(...)``.
    Options: ``max_tokens`` (512), ``temperature`` (0: greedy), ``top_k``, ``top_p``, ``seed``,
    ``validators`` (callables on the value), ``max_retries`` (2), ``system``, ``instructions``
    (``True``: describe the output type in the prompt; ``False``; or text), ``num_beams``,
    ``jump_forward`` (``"force"``, ``"exact"`` or ``"off"``), ``on_max_tokens`` (``"raise"``, or
    ``"finish"`` to close the output with the grammar's shortest completion as the budget ends).
    Raises ``IncompleteOutputError`` when ``max_tokens`` runs out, ``ValidationFailed`` when every
    attempt fails a validator.
    """
    generator = _cached_generator(output_type, model, reasoning)
    return generator(prompt, return_details=return_details, **options)


_GENERATORS: OrderedDict[tuple[Any, ...], Generator] = OrderedDict()
_GENERATORS_LOCK = threading.Lock()
_GENERATORS_KEPT = 32


def _type_key(output_type: object) -> Any:
    """A key that is equal for equal output types (``None``: not cacheable)."""
    if isinstance(output_type, dict):
        try:
            return ("json", json.dumps(output_type, sort_keys=True))
        except (TypeError, ValueError):
            return None
    try:
        hash(output_type)
    except TypeError:
        return None
    return ("type", output_type)


def _cached_generator(
    output_type: object,
    model: LoadedModel | None,
    reasoning: bool | int | str | _scratch.Scratchpad,
) -> Generator:
    """``generate``'s Generator for (output type, model, reasoning), built once and reused (the
    grammar, its compiled form and the binder are per Generator; the last 32 are kept)."""
    key = _type_key(output_type)
    if key is None:
        return Generator(output_type, model, reasoning=reasoning)
    full = (key, id(model) if model is not None else None, reasoning)
    with _GENERATORS_LOCK:
        found = _GENERATORS.get(full)
        if (found is not None and found._model in (model, None)) or (
            found is not None and model is None
        ):
            _GENERATORS.move_to_end(full)
            return found
    generator = Generator(output_type, model, reasoning=reasoning)
    with _GENERATORS_LOCK:
        _GENERATORS[full] = generator
        while len(_GENERATORS) > _GENERATORS_KEPT:
            _GENERATORS.popitem(last=False)
    return generator
