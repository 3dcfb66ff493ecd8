"""Reasoning first, then the answer; a semantic validator with feedback and a bounded retry.

``typedgen.Reasoning`` is a bounded free-text field the model writes before the structured
fields. Validators run on the typed value; when one fails, the model sees its answer and the
error and tries again (``max_retries``), and ``ValidationFailed`` carries every attempt if none
passes.

Run: python examples/reasoning_validators.py
"""

from __future__ import annotations

from pydantic import BaseModel, Field

import typedgen


class Answer(BaseModel):
    reasoning: typedgen.Reasoning[300]
    result: int = Field(ge=0, le=10_000)


def is_even(answer: Answer) -> None:
    """A semantic check the grammar does not express; the retry shows the model the error."""
    if answer.result % 2:
        raise ValueError(f"{answer.result} is odd; the answer must be an even number")


def main() -> None:
    model = typedgen.load_model()
    prompt = "Name an even number between 10 and 20. Think in the reasoning field first."
    try:
        details = typedgen.generate(
            Answer,
            prompt,
            model=model,
            validators=[is_even],
            max_retries=2,
            return_details=True,
        )
    except typedgen.ValidationFailed as failed:
        print(f"no attempt passed the validator ({len(failed.attempts)} tried):")
        for attempt in failed.attempts:
            print(f"  {attempt.text!r}\n    -> {attempt.error}")
    else:
        for number, attempt in enumerate(details.attempts, 1):
            verdict = "passed" if attempt.ok else f"rejected: {attempt.error}"
            print(f"attempt {number}: {attempt.text!r}\n  {verdict}")
        print(f"\nresult: {details.value!r}")

    # Any output type can get a free-text scratchpad before the structure.
    scratch = typedgen.generate(
        typedgen.Choice("even", "odd"),
        "Is 51 even or odd?",
        model=model,
        reasoning=200,
        return_details=True,
    )
    print(f"\nscratchpad: {scratch.reasoning!r}\nanswer: {scratch.value!r}")


if __name__ == "__main__":
    main()
