"""mcp-error-layers adapter for Google's Agent Development Kit (PyPI `google-adk[mcp]`, pinned in
requirements.lock; its MCP toolset runs on the official `mcp` SDK, 2.x through the lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one `McpToolset`, kept between them by ../kept.py, as an application keeps the toolset it gave its
agent.

It witnesses what the application (the agent's model) receives through the framework's documented
entry point, with its defaults:
`McpToolset(connection_params=StreamableHTTPConnectionParams(url=..., sse_read_timeout=t))` (over
stdio `StdioConnectionParams(server_params=StdioServerParameters(command=..., args=[...]),
timeout=t)`), then for each call what ADK's runtime does for one function call of the model:
`toolset.get_tools(ReadonlyContext(invocation))` (an `LlmAgent` lists its toolsets' tools for
every model request), the named `McpTool` found, and `await tool.run_async(args=...,
tool_context=ToolContext(invocation, function_call_id=...))`, the call `_call_tool_async` in
`google.adk.flows.llm_flows.tools._caller` makes. Each call is one invocation, an
`InvocationContext` built as `Runner` builds one for a user's turn (the case's
`InMemorySessionService` session, an `LlmAgent` holding the toolset).
`toolset.close()` follows the case's last call.

`run_async` does not raise: ADK turns every error of the call into one `{"error": "MCP tool
execution failed: ..."}` (an `McpError`) or `{"error": "Unexpected error during MCP tool execution:
..."}` (anything else) value, its default "graceful error handling". What the model receives is
that dict, or the tool's `CallToolResult` dumped to a dict with its wire names (`isError` kept).
Only `get_tools` raises, a `ConnectionError` whose message carries the cause as text.

ADK's MCP session manager asks google-auth, for every session it opens, whether a client
certificate is configured (its mTLS probe: `GOOGLE_API_USE_CLIENT_CERTIFICATE`, gcloud's
certificate config); when one is, it calls `google.auth.default()`, which without application
default credentials probes the GCE metadata server, an address off this machine. The adapter
sets `NO_GCE_CHECK=true` before ADK is imported, google-auth's switch that skips that probe, so
that the row reaches nothing but the loopback server whatever the machine's environment
(README.md, "Off the machine").

In an authorization case (`call.auth`, docs/adapters.md "Credentials") the toolset gets ADK's
documented `auth_scheme` and `auth_credential`, made from the start access token by ADK's helper
`token_to_scheme_credential("oauth2Token", "header", "Authorization", token)`: a bearer token,
which ADK never refreshes (README.md, "Authorization"). Before it lists the tools, each call runs
what the agent's flow runs first, `resolve_toolset_auth` (the `toolset_auth` request processor),
which resolves the toolset's credential into the invocation, where `get_tools` finds it.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import sys
import uuid
from typing import Any, AsyncIterator

# google-auth's documented switch: no probe of the GCE metadata server (an address off the
# machine) when ADK asks it for credentials. Set before google-auth is imported.
os.environ["NO_GCE_CHECK"] = "true"

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.agents.invocation_context import InvocationContext, new_invocation_context_id  # noqa: E402
from google.adk.agents.readonly_context import ReadonlyContext  # noqa: E402
from google.adk.flows.llm_flows.tools._toolset_auth import resolve_toolset_auth  # noqa: E402
from google.adk.sessions import InMemorySessionService  # noqa: E402
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams, StreamableHTTPConnectionParams  # noqa: E402
from google.adk.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential  # noqa: E402
from google.adk.tools.tool_context import ToolContext  # noqa: E402
from mcp import StdioServerParameters  # noqa: E402

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
from contract import Call, observation  # noqa: E402

PACKAGE = "google-adk"
APP = "mcp-error-layers"


def from_returned(returned: Any) -> dict[str, Any]:
    """Observation for what `run_async` returned, as the model receives it."""
    if isinstance(returned, dict):
        if set(returned) == {"error"}:
            # ADK's one error value for every failure of the call (an McpError or any other
            # exception, caught in McpTool.run_async): a string, nothing typed that names a layer.
            return observation("UNCLASSIFIED_ERROR", f"run_async returned {{'error': {returned['error']!r}}}")
        if returned.get("isError") is True:
            return observation("TOOL_ERROR", f"run_async returned the CallToolResult dict with isError=True: {contract.shown(returned)}")
        return observation("TOOL_SUCCESS", f"run_async returned a dict: {contract.shown(returned)}")
    # BaseAuthenticatedTool returns "Pending User Authorization." when it has no credential and
    # asks the user for one (an interactive sign-in nobody completes here).
    return observation("UNCLASSIFIED_ERROR", f"run_async returned {contract.shown(returned)}")


def auth_arguments(call: Call) -> dict[str, Any]:
    """ADK's documented `auth_scheme` and `auth_credential` for an authorization case: the start
    access token as a bearer token, made by ADK's own helper `token_to_scheme_credential(
    "oauth2Token", "header", "Authorization", token)` (an `HTTPBearer` scheme and an HTTP bearer
    credential; no credential when the store holds no access token); nothing in an ordinary case.
    (An OAuth2 scheme with an `OAuth2Auth` credential holding the tokens is not used as given:
    ADK takes its access token only from a user's interactive authorization or a credential
    service, and asks the user to sign in.)"""
    if call.auth is None:
        return {}
    scheme, credential = token_to_scheme_credential("oauth2Token", "header", "Authorization", call.auth.get("access_token"))
    return {"auth_scheme": scheme, "auth_credential": credential}


class Application:
    """What an application holds for a case: the toolset, the agent that has it, and the session
    its runner keeps (each call is one invocation of the agent, as a user's turn is)."""

    def __init__(self, toolset: McpToolset, agent: LlmAgent, sessions: InMemorySessionService, session: Any) -> None:
        self.toolset = toolset
        self.agent = agent
        self.sessions = sessions
        self.session = session

    def invocation(self) -> InvocationContext:
        """A new invocation of the agent, as `Runner` makes one for a user's turn."""
        return InvocationContext(session_service=self.sessions, invocation_id=new_invocation_context_id(), agent=self.agent, session=self.session)


class GoogleAdk(kept.Row):
    """One `McpToolset` for the calls of a case; each call lists its tools and runs the named one
    as ADK's runtime runs a function call; `close()` after the last."""

    def steps(self) -> contract.Steps:
        # The session opens inside get_tools (ADK's pooled session), which lists too.
        return contract.Steps(connect="McpToolset.get_tools", list="McpToolset.get_tools", call="McpTool.run_async")

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[Application]:
        print(f"protocol version {call.protocol_version!r} requested; ADK cannot be told one (mcp's initialize offers its own latest)", file=sys.stderr)
        if call.stdio:
            # Over stdio `timeout` is the connect budget and the session's read timeout at once.
            params: Any = StdioConnectionParams(server_params=StdioServerParameters(command=call.program, args=call.program_args), timeout=call.timeout_s)
        else:
            # `sse_read_timeout` is the session's read timeout (every request's, the call's
            # included) and httpx's read timeout; `timeout`, the connect budget, keeps its 5 s.
            params = StreamableHTTPConnectionParams(url=call.endpoint, sse_read_timeout=call.timeout_s)
        toolset = McpToolset(connection_params=params, **auth_arguments(call))
        # The model is named, never called: the adapter plays the model's function call.
        agent = LlmAgent(name="application", model="gemini-2.5-flash", tools=[toolset])
        sessions = InMemorySessionService()
        session = await sessions.create_session(app_name=APP, user_id="user")
        try:
            yield Application(toolset, agent, sessions, session)
        finally:
            await toolset.close()

    async def call(self, application: Application, call: Call, steps: contract.Steps) -> dict[str, Any]:
        steps.now = "list"
        invocation = application.invocation()
        # What the agent's flow does before it lists a toolset's tools (its `toolset_auth` request
        # processor): the toolset's credential resolved into the invocation, or an auth request
        # event for the user and the end of the invocation.
        asked = [event async for event in resolve_toolset_auth(invocation, application.agent)]
        if invocation.end_invocation:
            return observation("UNCLASSIFIED_ERROR", f"the runtime ended the invocation with {len(asked)} auth request event(s) for the user (adk_request_credential): no credential for the toolset")
        tools = await application.toolset.get_tools(ReadonlyContext(invocation))
        tool = next((t for t in tools if t.name == call.tool), None)
        if tool is None:
            names = ", ".join(t.name for t in tools) or "none"
            return observation("UNCLASSIFIED_ERROR", f"get_tools listed no tool named {call.tool!r} (got {names})")
        steps.now = "call"
        context = ToolContext(invocation_context=invocation, function_call_id=f"adk-{uuid.uuid4().hex[:12]}")
        return from_returned(await tool.run_async(args=call.arguments, tool_context=context))

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        # get_tools raises ConnectionError ("Failed to get tools from MCP server: ...", "Failed to
        # create MCP session: ...") for every failure, its cause only as text: no layer is named.
        return observation("UNCLASSIFIED_ERROR", steps.where + contract.caught(error))


if __name__ == "__main__":
    # ADK is imported above and the adapter takes no arguments of its own. Each toolset lives on a
    # thread and an asyncio loop of its own (../kept.py), many at once in persistent mode.
    contract.main(lambda _arguments: kept.serving(GoogleAdk()), package=PACKAGE, transports=contract.TRANSPORTS)
