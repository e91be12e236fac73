package dev.mcperrorlayers.javasdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * Runs the SDK's client a few times against a tiny server of its own on 127.0.0.1 before the
 * adapter announces itself: a JVM loads and compiles classes on their first use, and a call's
 * deadline starts at its request line, so the first cases would otherwise pay for the SDK's
 * class loading (a case with a 400 ms timeout saw its initialize take longer than that). It
 * changes nothing of the client each case then makes.
 */
final class WarmUp {

	private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\"[^\"]*\"|\\d+)");

	private WarmUp() {
	}

	static void run(int rounds) {
		HttpServer server;
		try {
			server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		}
		catch (IOException error) {
			return;
		}
		server.createContext("/mcp", WarmUp::answer);
		server.start();
		try {
			String base = "http://127.0.0.1:" + server.getAddress().getPort();
			for (int round = 0; round < rounds; round++) {
				McpSyncClient client = McpClient
					.sync(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp").build())
					.requestTimeout(Duration.ofSeconds(10))
					.build();
				try {
					client.initialize();
					client.callTool(new McpSchema.CallToolRequest("warm", Map.of("n", round)));
				}
				finally {
					client.closeGracefully();
				}
			}
		}
		catch (RuntimeException error) {
			// Only a warm-up: the cases are what is observed.
		}
		finally {
			server.stop(0);
		}
	}

	private static void answer(HttpExchange exchange) throws IOException {
		byte[] body;
		try (InputStream in = exchange.getRequestBody()) {
			body = in.readAllBytes();
		}
		String request = new String(body, StandardCharsets.UTF_8);
		Matcher id = ID.matcher(request);
		if (!exchange.getRequestMethod().equals("POST") || !id.find()) {
			exchange.sendResponseHeaders(exchange.getRequestMethod().equals("POST") ? 202 : 405, -1);
			exchange.close();
			return;
		}
		String result = request.contains("\"initialize\"")
				? "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"warm\",\"version\":\"0\"}}"
				: "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"isError\":false}";
		byte[] answer = ("{\"jsonrpc\":\"2.0\",\"id\":" + id.group(1) + ",\"result\":" + result + "}")
			.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(200, answer.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(answer);
		}
	}

}
