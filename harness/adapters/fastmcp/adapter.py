"""mcp-error-layers adapter for FastMCP's client (PyPI `fastmcp`, pinned in requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one `Client`, kept between them by ../kept.py, as an application keeps the client it constructed.

The adapter drives FastMCP's documented client API with its defaults: `Client(url, timeout=t)`
(over stdio `Client(StdioTransport(command=..., args=[...]), timeout=t)`, which starts the server
through mcp's `stdio_client`; `client.close()` after the block stops it, see
fastmcp_surface.closed_after) entered once as an async context manager (`async with client:`;
the default `mode="auto"`: a `server/discover` probe, then the initialize handshake when the
server is not a modern one), then `client.call_tool(name, args, timeout=t)` for each call with
the default `raise_on_error=True`. What FastMCP surfaces (the returned result, or the exception
and its fields) is mapped by fastmcp_surface.py beside this file. It never sees the case.

In an authorization case (`call.auth`, docs/adapters.md "Credentials"; `auth = true` in
adapter.toml) the client is `Client(url, auth=OAuth(token_storage=store), timeout=t)`: FastMCP's
documented OAuth entry point (`fastmcp.client.auth.OAuth`, an `OAuthClientProvider` of mcp's,
bound to the URL by the transport), its defaults otherwise. `store` is the documented token
storage, a py-key-value `MemoryStore` (what `OAuth` makes when given none), seeded once per case
through FastMCP's own `TokenStorageAdapter` with the start tokens and the pre-registered client,
as a user who signed in earlier leaves them (see `seed`). The subclass `Headless` replaces only
`OAuth`'s two interaction methods, `redirect_handler` (a pre-flight GET, then `webbrowser.open`)
and `callback_handler` (a local uvicorn server waiting up to 300 s for the redirect): its redirect
handler sends one GET to the authorization URL and its callback handler gives up (the contract's
`open_authorization_url` and `no_authorization_code`). Refresh, discovery and step-up are FastMCP's
and mcp's.
"""

from __future__ import annotations

import contextlib
import pathlib
import sys
import threading
from typing import Any, AsyncIterator

from fastmcp import Client
from fastmcp.client.auth import OAuth
from fastmcp.client.auth.oauth import TokenStorageAdapter
from fastmcp.client.transports import StdioTransport
from key_value.aio.stores.memory import MemoryStore
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

sys.path.append(str(pathlib.Path(__file__).resolve().parent))
import fastmcp_surface  # noqa: E402  (it puts ../contract.py and ../kept.py on the path too)
import contract  # noqa: E402
import kept  # noqa: E402
from contract import Call  # noqa: E402

PACKAGE = "fastmcp"


class Headless(OAuth):
    """FastMCP's `OAuth` with its two interaction methods replaced, as its API reference lists them
    (`redirect_handler`, `callback_handler`; FastMCP's own `fastmcp.utilities.tests.HeadlessOAuth`
    overrides the same two): nothing is opened and no callback server is started. Everything
    else (storage, expiry, refresh, discovery, step-up, registration) is `OAuth`'s."""

    async def redirect_handler(self, authorization_url: str) -> None:
        # One GET, as OAuth's own pre-flight check sends (the case's /authorize answers 200, which
        # that check lets through to webbrowser.open); no browser.
        await contract.open_authorization_url(authorization_url)

    async def callback_handler(self) -> AuthorizationCodeResult:
        return await contract.no_authorization_code()


async def seed(store: MemoryStore, call: Call) -> None:
    """Writes the case's start credentials into `store` as FastMCP keeps them: through its
    `TokenStorageAdapter` for the MCP URL `OAuth` binds to (the endpoint without a trailing
    slash), an `OAuthToken` (`set_tokens` also records its absolute expiry, which `OAuth` reads
    back on load) and the client's `OAuthClientInformationFull` in the shape `OAuth` builds for a
    pre-registered client (`client_id`/`client_secret`: `client_secret_post` with a secret,
    `none` without)."""
    auth = call.auth
    assert auth is not None and call.endpoint is not None, "an authorization case runs over HTTP"
    adapter = TokenStorageAdapter(async_key_value=store, server_url=call.endpoint.rstrip("/"))
    if auth.get("access_token") is not None:
        fields = {"refresh_token": auth.get("refresh_token"), "expires_in": auth.get("expires_in"), "scope": auth.get("scope")}
        await adapter.set_tokens(OAuthToken(access_token=auth["access_token"], **{k: v for k, v in fields.items() if v is not None}))
    secret = auth.get("client_secret")
    await adapter.set_client_info(
        OAuthClientInformationFull(
            client_id=auth["client_id"],
            client_secret=secret,
            client_name="FastMCP Client",
            redirect_uris=[auth["redirect_uri"]],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="client_secret_post" if secret is not None else "none",
        )
    )


class TokenStores:
    """The token store of each authorization case's client, by client id: seeded at the case's
    first call and found again by a client opened later in the case (after a failed connect), as
    an application's token storage outlives one connection (contract.TokenStorages, for a
    py-key-value store instead of mcp's `TokenStorage`)."""

    def __init__(self) -> None:
        self._kept: dict[int, MemoryStore] = {}
        self._lock = threading.Lock()

    async def store(self, call: Call) -> MemoryStore:
        """The case's store: seeded once, when its client is first created."""
        with self._lock:
            kept = None if call.index == 0 or call.client is None else self._kept.get(call.client)
        store = kept
        if store is None:
            store = MemoryStore()
            await seed(store, call)
        with self._lock:
            if call.client is not None and not call.is_last:
                self._kept[call.client] = store
        return store

    def forget(self, call: Call) -> None:
        """Drop the case's store after its last call."""
        if call.is_last and call.client is not None:
            with self._lock:
                self._kept.pop(call.client, None)


class FastMcp(fastmcp_surface.Row):
    """One FastMCP `Client` for the calls of a case, entered before the first call and left after
    the last: its `async with` connects (and negotiates the era), each call is `call_tool`."""

    def __init__(self) -> None:
        super().__init__(fastmcp_surface.from_error)
        self._stores = TokenStores()

    def open(self, call: Call) -> contextlib.AbstractAsyncContextManager[Client]:
        # FastMCP negotiates the era itself (mode="auto", the default): the case's version is not forced.
        print(f"protocol version {call.protocol_version!r} requested; FastMCP negotiates its own (mode='auto')", file=sys.stderr)
        # `timeout` is FastMCP's per-request timeout (mcp's session read timeout), set once from the
        # case's first call: it bounds the handshake's initialize too, but not mcp's server/discover
        # probe, which has a fixed 10 s of its own. `init_timeout` keeps its default (none). Each
        # call passes its own `timeout`, the documented per-call override.
        if call.auth is not None:
            return self.authorized(call)
        if not call.stdio:
            return Client(call.endpoint, timeout=call.timeout_s)
        # Over stdio: the transport starts the server with mcp's `stdio_client` (its default
        # environment subset, its stderr to ours).
        client = Client(StdioTransport(command=call.program, args=call.program_args), timeout=call.timeout_s)
        return fastmcp_surface.closed_after(client, client)

    @contextlib.asynccontextmanager
    async def authorized(self, call: Call) -> AsyncIterator[Client]:
        """The case's client with FastMCP's OAuth over the case's seeded store (the module's
        docstring); `OAuth` gets no URL, the transport binds it to the endpoint."""
        store = await self._stores.store(call)
        async with Client(call.endpoint, auth=Headless(token_storage=store), timeout=call.timeout_s) as client:
            yield client

    async def call(self, client: Client, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._stores.forget(call)
        returned = await steps.list_then_call(call, client.list_tools, lambda: client.call_tool(call.tool, call.arguments, timeout=call.timeout_s))
        return fastmcp_surface.from_result(returned)


if __name__ == "__main__":
    # FastMCP is imported above and the adapter takes no arguments of its own. Each client lives on
    # a thread and an asyncio loop of its own (FastMCP's client needs asyncio; ../kept.py), many at
    # once in persistent mode.
    contract.main(lambda _arguments: kept.serving(FastMcp()), package=PACKAGE, transports=contract.TRANSPORTS)
