"""An nginx-style config for a described deployment, loaded into typed objects.

``ServerBlock`` is a ``typedgen.DSL``: a narrow nginx grammar (one ``server`` block, one to three
``location`` blocks, each proxying or serving files) whose methods build ``Server`` and
``Location`` dataclasses. A narrow grammar keeps a small model on rails: the fixed parts are
forced and the model only fills in ports, names, paths and URLs. The text it produces is read
back by ``NginxConfig``, a DSL class over the full nginx grammar of typedgen's grammar library
(``grammar_file = "nginx"``), whose methods build generic ``Directive``/``Block`` objects.

Run: python examples/dsl_nginx.py
"""

from __future__ import annotations

from dataclasses import dataclass, field

import typedgen
from typedgen.dsl import v_args


@dataclass(frozen=True)
class Location:
    path: str
    proxy_pass: str | None = None
    root: str | None = None


@dataclass(frozen=True)
class Server:
    listen: int
    server_name: str
    locations: list[Location] = field(default_factory=list)


class ServerBlock(typedgen.DSL):
    """One nginx ``server`` block in a fixed layout; it is valid nginx syntax."""

    grammar = r"""
        start: "server {\n" listen server_name location~1..3 "}"
        listen: "    listen " PORT ";\n"
        server_name: "    server_name " HOST ";\n"
        location: "    location " PATH " {\n" (proxy_pass | root) "    }\n"
        proxy_pass: "        proxy_pass " URL ";\n"
        root: "        root " PATH ";\n"
        PORT: /[1-9][0-9]{1,4}/
        HOST: /[a-z][a-z0-9-]{0,19}(\.[a-z][a-z0-9-]{0,19}){1,3}/
        PATH: /\/[a-z0-9_\/.-]{0,30}/
        URL: /http:\/\/[a-z0-9.-]{1,30}(:[0-9]{2,5})?(\/[a-z0-9_\/.-]{0,20})?/
    """

    @v_args(inline=True)
    def start(self, listen: int, server_name: str, *locations: Location) -> Server:
        return Server(listen, server_name, list(locations))

    @v_args(inline=True)
    def listen(self, port: str) -> int:
        return int(port)

    @v_args(inline=True)
    def server_name(self, host: str) -> str:
        return str(host)

    @v_args(inline=True)
    def location(self, path: str, target: tuple[str, str]) -> Location:
        kind, value = target
        if kind == "proxy_pass":
            return Location(str(path), proxy_pass=value)
        return Location(str(path), root=value)

    @v_args(inline=True)
    def proxy_pass(self, url: str) -> tuple[str, str]:
        return "proxy_pass", str(url)

    @v_args(inline=True)
    def root(self, path: str) -> tuple[str, str]:
        return "root", str(path)


@dataclass(frozen=True)
class Directive:
    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    name: str
    args: tuple[str, ...]
    body: tuple[Directive | Block, ...]


class NginxConfig(typedgen.DSL):
    """The library's nginx grammar; statements become ``Directive`` and ``Block`` objects."""

    grammar_file = "nginx"

    def start(self, statements: list[Directive | Block]) -> list[Directive | Block]:
        return statements

    def directive(self, words: list[str]) -> Directive:
        return Directive(words[0], tuple(words[1:]))

    def block(self, children: list[str | Directive | Block]) -> Block:
        words = [c for c in children if isinstance(c, str)]
        body = tuple(c for c in children if not isinstance(c, str))
        return Block(words[0], tuple(words[1:]), body)

    @v_args(inline=True)
    def WORD(self, token: str) -> str:
        return str(token)

    @v_args(inline=True)
    def STRING(self, token: str) -> str:
        return str(token)[1:-1]


EXAMPLE = """server {
    listen 80;
    server_name blog.example.org;
    location / {
        proxy_pass http://127.0.0.1:3000;
    }
    location /images {
        root /srv/blog;
    }
}"""
# Few-shot as a conversation: one worked example, then the deployment to configure.
PROMPT = [
    {"role": "system", "content": "You write one nginx server block for the described deployment."},
    {
        "role": "user",
        "content": "Site blog.example.org, port 80. App at http://127.0.0.1:3000. Images in"
        " /srv/blog/images.",
    },
    {"role": "assistant", "content": EXAMPLE},
    {
        "role": "user",
        "content": "Site shop.example.com, port 8080. API at http://10.0.0.5:8000 under /api."
        " Static files in /var/www/shop.",
    },
]


def run(model: typedgen.LoadedModel) -> typedgen.Details:
    """A ``Server`` for the deployment described in ``PROMPT``."""
    return typedgen.generate(ServerBlock, PROMPT, model=model, max_tokens=100, return_details=True)


def main() -> None:
    details = run(typedgen.load_model())
    print("config text:")
    print("  " + details.text.replace("\n", "\n  "))
    server = details.value
    print(f"server: listen={server.listen} server_name={server.server_name!r}")
    for location in server.locations:
        print(f"  {location!r}")
    # The same text, read by the library's full nginx grammar: generic directives and blocks.
    statements = NginxConfig.parse(details.text)
    print(f"library grammar reads: {statements[0]!r}")
    print(
        f"{details.sampled_tokens} tokens sampled, {details.forced_tokens} forced by the grammar,"
        f" {details.seconds:.1f}s"
    )


if __name__ == "__main__":
    main()
