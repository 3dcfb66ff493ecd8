"""SGLang's server with ``--grammar-backend typedgen`` (CUDA only: scripts/gpu-check.sh sets
TYPEDGEN_SGLANG_SERVER=1). JSON Schema through OpenAI's ``response_format``, any typedgen type
through ``ebnf``, a regex; every answer binds."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typedgen
from pydantic import BaseModel, Field

import typedgen_sglang

if not os.environ.get("TYPEDGEN_SGLANG_SERVER"):
    pytest.skip("the SGLang server needs CUDA (scripts/gpu-check.sh)", allow_module_level=True)
openai = pytest.importorskip("openai")


class City(BaseModel):
    name: str = Field(max_length=30)
    population_millions: int = Field(ge=0, le=50)


SQL = typedgen.Sql("sqlite", schema={"singer": ["singer_id", "name", "age"]})


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    given = os.environ.get("TYPEDGEN_VLLM_MODEL")
    if given:
        folder = Path(given)
    else:
        import typedgen_vllm

        folder = typedgen_vllm.bundled_model_folder()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("sglang") / "server.log"
    command = [
        sys.executable, "-m", "sglang.launch_server", "--model-path", str(folder),
        "--host", "127.0.0.1", "--port", str(port), "--grammar-backend", "typedgen",
        "--served-model-name", "smollm2",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"sglang did not start:\n{log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(2)
        yield openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none")
    finally:
        process.terminate()
        process.wait(timeout=60)


def _ask(client: Any, prompt: str, **extra: Any) -> str:
    reply = client.chat.completions.create(
        model="smollm2",
        messages=[{"role": "user", "content": prompt}],
        temperature=0,
        max_tokens=200,
        **extra,
    )
    assert reply.choices[0].finish_reason == "stop"
    return str(reply.choices[0].message.content)


def test_json_schema(client: Any) -> None:
    schema = {"name": "City", "schema": City.model_json_schema()}
    text = _ask(
        client, "Describe Paris.", response_format={"type": "json_schema", "json_schema": schema}
    )
    City.model_validate_json(text)


def test_any_typedgen_type_through_ebnf(client: Any) -> None:
    text = _ask(
        client,
        "Table singer(singer_id, name, age): names of singers older than 30. One short query.",
        extra_body={"ebnf": typedgen_sglang.ebnf(SQL)},
    )
    typedgen.outputs.binder_for(SQL)(text)


def test_regex(client: Any) -> None:
    text = _ask(client, "A date:", extra_body={"regex": r"\d{4}-\d{2}-\d{2}"})
    assert len(text) == 10 and text[4] == "-"
