"""Streaming: text deltas as they are generated, and the partial object parsed so far.

For Pydantic outputs each event carries ``partial``: the model instance with the fields that are
complete so far (validated one by one). The last event has ``done=True`` and the final value.

Run: python examples/streaming.py
"""

from __future__ import annotations

from pydantic import BaseModel, Field

import typedgen


class City(BaseModel):
    name: str = Field(max_length=40)
    country: str = Field(max_length=40)
    population_millions: int = Field(ge=0, le=50)
    landmarks: list[str] = Field(max_length=3)


def main() -> None:
    model = typedgen.load_model()
    generator = typedgen.Generator(City, model)
    fields_seen: set[str] = set()
    for event in generator.stream("Describe Paris: country, population, landmarks."):
        print(event.delta, end="", flush=True)
        if event.partial is not None and event.partial.model_fields_set - fields_seen:
            new = sorted(event.partial.model_fields_set - fields_seen)
            fields_seen |= event.partial.model_fields_set
            print(f"   <- complete: {', '.join(new)}", flush=True)
        if event.done:
            print(f"\n\nfinal: {event.value!r}")


if __name__ == "__main__":
    main()
