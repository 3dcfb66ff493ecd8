"""The DSL examples on the real default model: each produces objects of the declared types."""

from __future__ import annotations

import tomllib
from typing import ClassVar

import pytest

import typedgen
from examples import dsl_nginx, dsl_robot, dsl_toml
from typedgen.models import LoadedModel

pytestmark = pytest.mark.model


def test_robot_program_is_typed_actions_over_the_scene(loaded: LoadedModel) -> None:
    details = dsl_robot.run(loaded)
    actions = details.value
    assert isinstance(actions, list) and 1 <= len(actions) <= 6, details.text
    assert all(
        isinstance(a, dsl_robot.Move | dsl_robot.Turn | dsl_robot.Grab | dsl_robot.Drop)
        for a in actions
    )
    for action in actions:
        if isinstance(action, dsl_robot.Grab | dsl_robot.Drop):
            assert action.item in dsl_robot.SCENE  # filled at call time by with_params
        if isinstance(action, dsl_robot.Move):
            assert 1 <= action.steps <= 9
    assert dsl_robot.Robot.with_params(OBJECT=dsl_robot.SCENE).parse(details.text) == actions


def test_nginx_server_block_is_a_server(loaded: LoadedModel) -> None:
    details = dsl_nginx.run(loaded)
    server = details.value
    assert isinstance(server, dsl_nginx.Server), details.text
    assert isinstance(server.listen, int) and "." in server.server_name
    assert 1 <= len(server.locations) <= 3
    assert all(isinstance(loc, dsl_nginx.Location) for loc in server.locations)
    assert all((loc.proxy_pass is None) != (loc.root is None) for loc in server.locations)
    statements = dsl_nginx.NginxConfig.parse(details.text)  # the library's full nginx grammar
    assert statements == [dsl_nginx.Block("server", (), tuple(statements[0].body))] and isinstance(
        statements[0], dsl_nginx.Block
    )


def test_toml_config_reads_with_tomllib(loaded: LoadedModel) -> None:
    details = dsl_toml.run(loaded)
    tables = details.value
    assert [t.name for t in tables] in (["queue", "workers"], ["workers", "queue"])
    assert all(isinstance(t, dsl_toml.Table) for t in tables)
    for table in tables:
        assert all(isinstance(v, str | int | bool) for v in table.values.values())
    assert tomllib.loads(details.text) == {t.name: t.values for t in tables}


def test_a_dsl_embedding_a_pydantic_model(loaded: LoadedModel) -> None:
    """Composition end to end: a DSL rule whose value is a Pydantic model (one IR)."""
    from pydantic import BaseModel, Field

    class Limits(BaseModel):
        cpu: int = Field(ge=1, le=16)
        memory_gb: int = Field(ge=1, le=64)

    class Service(typedgen.DSL):
        grammar = r"""
            start: "service " NAME "\nlimits " limits
            NAME: /[a-z]{2,12}/
            %declare limits
        """
        embeds: ClassVar[dict[str, object]] = {"limits": Limits}

        def start(self, children: list[object]) -> tuple[str, Limits]:
            name, limits = children
            assert isinstance(limits, Limits)
            return str(name), limits

    prompt = [
        {"role": "user", "content": "A web service with 2 CPUs and 4 GB of memory."},
        {"role": "assistant", "content": 'service web\nlimits {"cpu":2,"memory_gb":4}'},
        {"role": "user", "content": "A database service with 4 CPUs and 16 GB of memory."},
    ]
    name, limits = typedgen.generate(Service, prompt, model=loaded, max_tokens=40)
    assert isinstance(name, str) and isinstance(limits, Limits)
