package dev.mcperrorlayers.javasdk;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import dev.mcperrorlayers.contract.Call;
import dev.mcperrorlayers.contract.Contract;
import dev.mcperrorlayers.contract.Credentials;
import dev.mcperrorlayers.contract.Observation;
import dev.mcperrorlayers.contract.Row;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.ValueInstantiationException;

/**
 * The java-sdk row: the official MCP Java SDK's synchronous client, as its documentation shows
 * it: {@code McpClient.sync(HttpClientStreamableHttpTransport.builder(base).endpoint(path).build())}
 * (over stdio {@code new StdioClientTransport(ServerParameters...)}), {@code initialize()}, then
 * {@code callTool(new CallToolRequest(name, arguments))} for every call of the case, and
 * {@code closeGracefully()} after the last. The case's timeout is the client's
 * {@code requestTimeout} (the SDK's per-request timeout; everything else is the SDK's default).
 * The contract (../contract-java) does the rest. Mapping and findings: README.md.
 */
public final class Adapter implements Row<McpSyncClient> {

	/** The SDK's module that holds the client, and its installed version (read from its jar). */
	static final String MODULE = "io.modelcontextprotocol.sdk:mcp";

	private Adapter() {
	}

	public static void main(String[] args) {
		// The SDK logs through SLF4J: its warnings and errors go to stderr (slf4j-simple), so
		// that what it reports on the side is in each call's log.
		System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
		System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
		int status = Contract.main(new Contract.Sdk(MODULE, Contract.installedVersion(McpClient.class, "io.modelcontextprotocol.sdk", "mcp-core")), "", args, own -> {
			if (!own.isEmpty()) {
				return null;
			}
			// Load the SDK before the announcement: a call's deadline starts at its request line.
			McpSchema.CallToolRequest warm = new McpSchema.CallToolRequest("warm", Map.of());
			McpJsonDefaults.getMapper();
			HttpClientStreamableHttpTransport.builder("http://127.0.0.1:1").build();
			long started = System.nanoTime();
			WarmUp.run(20);
			Contract.note("SDK loaded and warmed up (" + warm.name() + ", "
					+ (System.nanoTime() - started) / 1_000_000 + " ms)");
			return new Adapter();
		});
		System.exit(status);
	}

	@Override
	public McpSyncClient open(Call call) {
		McpClientTransport transport;
		if (call.transport().equals("stdio")) {
			List<String> command = call.command();
			ServerParameters server = ServerParameters.builder(command.get(0))
				.args(command.subList(1, command.size()))
				.build();
			transport = new StdioClientTransport(server, McpJsonDefaults.getMapper());
		}
		else {
			URI url = URI.create(call.endpoint());
			String base = url.getScheme() + "://" + url.getRawAuthority();
			String path = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
			HttpClientStreamableHttpTransport.Builder builder = HttpClientStreamableHttpTransport.builder(base)
				.endpoint(path);
			Credentials auth = call.auth();
			if (auth != null && auth.accessToken() != null) {
				// The SDK's documented way to send a token: a request customizer. It has no token
				// store and no refresh: on a 401 the transport raises
				// McpHttpClientTransportAuthorizationException (its default handler retries nothing).
				String bearer = "Bearer " + auth.accessToken();
				builder.httpRequestCustomizer((request, method, uri, body, context) -> request.header("Authorization", bearer));
			}
			transport = builder.build();
		}
		if (call.protocolVersion().equals("2026-07-28")) {
			Contract.note("this client opens a 2025-11-25 session (initialize) whatever version the case prefers");
		}
		McpSyncClient client = McpClient.sync(transport).requestTimeout(call.timeout()).build();
		try {
			client.initialize();
		}
		catch (RuntimeException error) {
			try {
				client.close();
			}
			catch (RuntimeException closing) {
				Contract.note("closing the client that did not initialize: " + Contract.describe(closing));
			}
			throw error;
		}
		return client;
	}

	@Override
	public Observation call(McpSyncClient client, Call call) throws Exception {
		if (call.listTools()) {
			try {
				client.listTools();
			}
			catch (RuntimeException error) {
				return error(error, call).more("listTools failed");
			}
		}
		@SuppressWarnings("unchecked")
		Map<String, Object> arguments = McpJsonDefaults.getMapper().readValue(call.arguments().toString(), Map.class);
		McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest(call.tool(), arguments));
		String said = String.valueOf(result);
		return Observation.of(Boolean.TRUE.equals(result.isError()) ? "TOOL_ERROR" : "TOOL_SUCCESS", said);
	}

	@Override
	public Observation error(Throwable error, Call call) {
		// The SDK quotes bodies with its request ids, a random 8-hex prefix per session and a
		// count ("0c5e28c3-1"): blurred to "[id]-1", so that the record is the same every run.
		String detail = Contract.describe(error).replaceAll("\\b[0-9a-f]{8}-(\\d+)\\b", "[id]-$1");
		McpError rpc = Contract.find(error, McpError.class);
		if (rpc != null && rpc.getJsonRpcError() != null) {
			Integer code = rpc.getJsonRpcError().code();
			return Observation.of("JSONRPC_ERROR", detail).code(code == null ? null : code.longValue());
		}
		McpHttpClientTransportAuthorizationException auth = Contract.find(error,
				McpHttpClientTransportAuthorizationException.class);
		if (auth != null && auth.getResponseInfo() != null) {
			return Observation.of("HTTP_ERROR", detail).status(auth.getResponseInfo().statusCode());
		}
		if (Contract.find(error, TimeoutException.class) != null) {
			// Reactor's timeout(requestTimeout) in the SDK's session: its own request timeout.
			return Observation.of("TIMEOUT", detail);
		}
		if (Contract.find(error, ConnectException.class) != null
				|| Contract.find(error, HttpConnectTimeoutException.class) != null
				|| Contract.find(error, SocketException.class) != null) {
			// The JDK HttpClient's typed socket errors: refused, reset.
			return Observation.of("CONNECTION_ERROR", detail);
		}
		if (Contract.find(error, EOFException.class) != null) {
			// The JDK HttpClient's typed end of input: the connection ended before the
			// response did (before its status line too: the same type).
			return Observation.of("STREAM_INCOMPLETE", detail);
		}
		if (Contract.find(error, StreamReadException.class) != null) {
			// Jackson's typed parse error: the bytes were not JSON.
			return Observation.of("MALFORMED_JSON", detail);
		}
		DatabindException decoding = Contract.find(error, DatabindException.class);
		if (decoding != null) {
			// Jackson's typed decoding error names the SDK type that could not be built (its
			// reference path, the type it was instantiating or reading into).
			String layer = decodedLayer(decoding);
			if (layer != null) {
				return Observation.of(layer, detail);
			}
		}
		return Observation.of("UNCLASSIFIED_ERROR", detail);
	}

	/**
	 * {@code INVALID_ENVELOPE} when a JSON-RPC message type of the SDK could not be decoded,
	 * {@code INVALID_TOOL_RESULT} when its {@code CallToolResult} (or a part of it) could not,
	 * else {@code null}: read from the types the decoding error names.
	 */
	static String decodedLayer(DatabindException error) {
		List<Class<?>> types = new ArrayList<>();
		for (JacksonException.Reference reference : error.getPath()) {
			Object from = reference.from();
			if (from != null) {
				types.add(from instanceof Class<?> type ? type : from.getClass());
			}
		}
		if (error instanceof ValueInstantiationException instantiating && instantiating.getType() != null) {
			types.add(instantiating.getType().getRawClass());
		}
		if (error instanceof MismatchedInputException mismatched && mismatched.getTargetType() != null) {
			types.add(mismatched.getTargetType());
		}
		for (Class<?> type : types) {
			if (McpSchema.JSONRPCMessage.class.isAssignableFrom(type)
					|| McpSchema.JSONRPCResponse.JSONRPCError.class.equals(type)) {
				return "INVALID_ENVELOPE";
			}
		}
		for (Class<?> type : types) {
			if (McpSchema.CallToolResult.class.equals(type) || McpSchema.Content.class.isAssignableFrom(type)) {
				return "INVALID_TOOL_RESULT";
			}
		}
		return null;
	}

	@Override
	public String close(McpSyncClient client) {
		return client.closeGracefully() ? "closed gracefully" : "closeGracefully returned false";
	}

}
