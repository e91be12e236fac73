"""mcp-error-layers adapter for LlamaIndex's MCP client (PyPI `llama-index-tools-mcp`, pinned in
requirements.lock; it runs on the 2.x line of the official `mcp` SDK).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one client, kept between them by ../kept.py.

It witnesses what an application sees through the package's documented client with its defaults:
`BasicMCPClient(url, timeout=t)`, then `await client.call_tool(name, arguments)` (and, when the
call asks, `await client.list_tools()` first). `timeout` is the client's one timeout: the HTTP
timeout and the session's read timeout of every request; `sse_read_timeout` keeps its default
(300 s). Over stdio the client is `BasicMCPClient(command, args=[...], timeout=t)`, its documented
form for a command: each session starts the server anew (mcp's `stdio_client`) and stops it when
the session ends.

In an authorization case (`call.auth`, docs/adapters.md "Credentials"; the row declares `auth =
true`) the client is `BasicMCPClient(url, timeout=t, auth=provider)`: `auth` is the client's
documented argument ("Optional OAuth client provider for authentication", typed mcp's
`OAuthClientProvider`), which it sets as the `auth` of the httpx2 client it creates once and hands
to every session. The provider is the `mcp` SDK's `OAuthClientProvider` over a `TokenStorage`
seeded once per case from the start credentials (../contract.py's `oauth_provider`, with the SDK's
defaults). The package's README shows `BasicMCPClient.with_oauth(url, client_name, redirect_uris,
redirect_handler, callback_handler, token_storage=...)`, which builds the same provider class over
the given storage and passes it as that same `auth`; its client metadata adds only a
`client_name`, which matters to dynamic client registration alone, and a seeded client is
registered already. The redirect handler sends one GET to the authorization URL, as a browser
opened on it would, and the callback handler gives up: nothing completes an interactive
authorization here. Refresh, discovery and step-up are the SDK's.

What an application keeps between calls is the `BasicMCPClient` it constructed once: the calls of
a case are methods of the same object. The client keeps no session between them: each method opens
a session of its own, by design (mcp's `streamable_http_client` and `ClientSession`,
`initialize()`, the request, then the session's DELETE), so every call of a case initializes anew
on the wire.

The client returns mcp's `CallToolResult` unchanged, mapped as the SDK's is. What it raises is
raised from inside the session it opened for the method: an error of mcp's session (`MCPError`, a
`ValidationError` of the result) leaves mcp's task groups as an anyio `ExceptionGroup` ("unhandled
errors in a TaskGroup") that the client does not unwrap, and that group is what the application
catches (docs/adapters.md, "What the application catches").
"""

from __future__ import annotations

import contextlib
import pathlib
import sys
from typing import Any, AsyncIterator

from llama_index.tools.mcp import BasicMCPClient
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
import mcp2_surface  # noqa: E402 - how mcp 2.x, which the client hands on, surfaces a call
from contract import Call  # noqa: E402

PACKAGE = "llama-index-tools-mcp"
# What mcp 2.x offers in `initialize` (its newest handshake version): BasicMCPClient always
# initializes, never `server/discover`.
HANDSHAKE_VERSION = HANDSHAKE_PROTOCOL_VERSIONS[-1]


def from_error(error: BaseException, steps: contract.Steps, stdio: bool = False) -> dict[str, Any]:
    """Observation for an exception raised out of `list_tools` or `call_tool`, as the application
    catches it: mcp's own, or the group of the session the method opened (UNCLASSIFIED_ERROR)."""
    return mcp2_surface.from_error(error, steps.where + contract.caught(error), steps, stdio=stdio)


class LlamaIndex(kept.Row):
    """The client for the calls of a case: one `BasicMCPClient`, each call its `call_tool` (a
    session of its own each)."""

    def __init__(self) -> None:
        # The token storage of each authorization case, kept with the case (../contract.py).
        self._storages = contract.TokenStorages()

    def steps(self) -> contract.Steps:
        # Each method connects on its own: a failure to connect is reported after its method's name.
        return contract.Steps(connect="call_tool", list="list_tools", call="call_tool")

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[BasicMCPClient]:
        if call.protocol_version != HANDSHAKE_VERSION:
            print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: it always initializes, offering {HANDSHAKE_VERSION}", file=sys.stderr)
        # The client holds only its settings until a method opens a session: nothing to close.
        if call.stdio:
            # `command_or_url` that is no URL is a command; `args` are its arguments.
            yield BasicMCPClient(call.program, args=call.program_args, timeout=call.timeout_s)
        elif call.auth is not None:
            # The client's documented `auth`: the SDK's OAuthClientProvider over the case's storage.
            yield BasicMCPClient(call.endpoint, timeout=call.timeout_s, auth=contract.oauth_provider(call, self._storages.storage(call)))
        else:
            yield BasicMCPClient(call.endpoint, timeout=call.timeout_s)

    async def call(self, client: BasicMCPClient, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        returned = await steps.list_then_call(call, client.list_tools, lambda: client.call_tool(call.tool, call.arguments))
        return mcp2_surface.from_result(returned)

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        return from_error(error, steps, call.stdio)


if __name__ == "__main__":
    # The client is imported above and the adapter takes no arguments of its own. The calls of a
    # case run on one client, on a thread and an event loop of its own (../kept.py).
    contract.main(lambda _arguments: kept.serving(LlamaIndex()), package=PACKAGE, transports=contract.TRANSPORTS)
