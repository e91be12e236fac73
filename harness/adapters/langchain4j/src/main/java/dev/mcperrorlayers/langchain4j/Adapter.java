package dev.mcperrorlayers.langchain4j;

import java.net.ConnectException;
import java.net.SocketException;
import java.net.http.HttpConnectTimeoutException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.McpException;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.langchain4j.service.tool.ToolService;
import dev.mcperrorlayers.contract.Call;
import dev.mcperrorlayers.contract.Contract;
import dev.mcperrorlayers.contract.Credentials;
import dev.mcperrorlayers.contract.Observation;
import dev.mcperrorlayers.contract.Row;

/**
 * The langchain4j row (a framework): LangChain4j's MCP client as its documentation wires it into
 * an AI service: {@code DefaultMcpClient} over {@code StreamableHttpMcpTransport} (over stdio
 * {@code StdioMcpTransport}), an {@code McpToolProvider} over it, and each call made as an AI
 * service makes a tool call: the provider asked for its tools (as the service does before every
 * model request), the case's tool's {@code ToolExecutor} run through
 * {@code ToolService.executeWithErrorHandling} with the service's default argument and execution
 * error handlers. What the application (and its model) receives is the
 * {@code ToolExecutionResult}: its {@code isError()} flag and its text. Mapping and findings:
 * README.md.
 */
public final class Adapter implements Row<Adapter.Client> {

	/** The client an application keeps: the MCP client and the tool provider over it. */
	record Client(McpClient mcp, McpToolProvider tools) {
	}

	private final ToolService service = new ToolService();

	private Adapter() {
	}

	public static void main(String[] args) {
		System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
		System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
		int status = Contract.main(new Contract.Sdk("dev.langchain4j:langchain4j-mcp", Contract.installedVersion(McpToolProvider.class, "dev.langchain4j", "langchain4j-mcp")), "", args,
				own -> {
					if (!own.isEmpty()) {
						return null;
					}
					// Load the framework before the announcement: a call's deadline starts at its
					// request line.
					new ToolService().executionErrorHandler();
					StreamableHttpMcpTransport.builder().url("http://127.0.0.1:1/mcp").build();
					McpToolProvider.builder();
					return new Adapter();
				});
		System.exit(status);
	}

	@Override
	public Client open(Call call) {
		McpTransport transport;
		if (call.transport().equals("stdio")) {
			transport = StdioMcpTransport.builder().command(call.command()).build();
		}
		else {
			StreamableHttpMcpTransport.Builder builder = StreamableHttpMcpTransport.builder().url(call.endpoint());
			Credentials auth = call.auth();
			if (auth != null && auth.accessToken() != null) {
				// LangChain4j's documented way to authenticate: custom headers on the transport.
				// A static token: nothing refreshes it.
				builder.customHeaders(Map.of("Authorization", "Bearer " + auth.accessToken()));
			}
			transport = builder.build();
		}
		if (call.protocolVersion().equals("2026-07-28")) {
			Contract.note("this client opens a session (initialize) whatever version the case prefers");
		}
		// The case's timeout is the client's tool execution timeout (default 60 s); the rest is
		// LangChain4j's default. build() connects and initializes.
		McpClient mcp = new DefaultMcpClient.Builder().transport(transport).toolExecutionTimeout(call.timeout()).build();
		return new Client(mcp, McpToolProvider.builder().mcpClients(mcp).build());
	}

	@Override
	public Observation call(Client client, Call call) {
		InvocationContext context = InvocationContext.builder()
			.invocationId(UUID.randomUUID())
			.chatMemoryId("default")
			.timestampNow()
			.build();
		ToolProviderResult offered = client.tools()
			.provideTools(ToolProviderRequest.builder()
				.invocationContext(context)
				.userMessage(UserMessage.from("call the tool"))
				.build());
		ToolExecutor executor = offered.toolExecutorByName(call.tool());
		if (executor == null) {
			return Observation.of("UNCLASSIFIED_ERROR",
					"the tool provider offered no tool named " + call.tool() + " (it offered " + offered.tools()
						.keySet()
						.stream()
						.map(spec -> spec.name())
						.toList() + "): an AI service's model is never offered it");
		}
		ToolExecutionRequest request = ToolExecutionRequest.builder()
			.id("call-" + call.index())
			.name(call.tool())
			.arguments(call.arguments().toString())
			.build();
		ToolExecutionResult result = ToolService.executeWithErrorHandling(request, executor, context,
				service.argumentsErrorHandler(), service.executionErrorHandler());
		return Observation.of(result.isError() ? "TOOL_ERROR" : "TOOL_SUCCESS", result.resultText());
	}

	@Override
	public Observation error(Throwable error, Call call) {
		String detail = Contract.describe(error);
		McpException rpc = Contract.find(error, McpException.class);
		if (rpc != null) {
			return Observation.of("JSONRPC_ERROR", detail).code((long) rpc.errorCode());
		}
		if (Contract.find(error, TimeoutException.class) != null) {
			return Observation.of("TIMEOUT", detail);
		}
		if (Contract.find(error, ConnectException.class) != null
				|| Contract.find(error, HttpConnectTimeoutException.class) != null
				|| Contract.find(error, SocketException.class) != null) {
			return Observation.of("CONNECTION_ERROR", detail);
		}
		return Observation.of("UNCLASSIFIED_ERROR", detail);
	}

	@Override
	public String close(Client client) throws Exception {
		client.mcp().close();
		return "closed";
	}

}
