package dev.mcperrorlayers.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;

/** The contract's tests: what test_contract.mjs, test_scripts.py and contract-rs's tests check for the others. */
class ContractTest {

	static final String SERVER = "[\"/work/main/target/debug/mcp-error-layers\",\"stdio-server\",\"--session\",\"/tmp/s/session.json\"]";

	static Call request(String line) throws Call.Invalid {
		try {
			return Call.fromRequest(Json.MAPPER.readTree(line));
		}
		catch (IOException error) {
			throw new UncheckedIOException(error);
		}
	}

	static Call oneShot(String last, Map<String, String> vars) throws Call.Invalid {
		return Call.fromVars(last, vars::get);
	}

	@Test
	void aOneShotHttpCallIsItsEndpointUrlWithOrWithoutTheTransportVariable() throws Exception {
		String url = "http://127.0.0.1:4100/mcp";
		Call call = oneShot(url, Map.of("MCP_ERROR_LAYERS_TOOL", "synthetic", "MCP_ERROR_LAYERS_TRANSPORT", "http",
				"MCP_ERROR_LAYERS_ARGUMENTS", "{\"n\": 1}", "MCP_ERROR_LAYERS_TIMEOUT_MS", "2500",
				"MCP_ERROR_LAYERS_LIST_TOOLS", "1"));
		assertEquals(url, call.endpoint());
		assertEquals("http", call.transport());
		assertEquals(1, call.arguments().get("n").asInt());
		assertEquals(Duration.ofMillis(2500), call.timeout());
		assertTrue(call.listTools());
		assertNull(call.client());
		assertNull(call.task());
		assertNull(call.auth());
		// A runner from before stdio sets no MCP_ERROR_LAYERS_TRANSPORT.
		Call old = oneShot(url, Map.of("MCP_ERROR_LAYERS_TOOL", "synthetic"));
		assertEquals(url, old.endpoint());
		assertEquals("2026-07-28", old.protocolVersion());
		assertEquals(Duration.ofMillis(5000), old.timeout());
		Call.Invalid error = assertThrows(Call.Invalid.class,
				() -> oneShot("stdio", Map.of("MCP_ERROR_LAYERS_TOOL", "t", "MCP_ERROR_LAYERS_TRANSPORT", "http")));
		assertTrue(error.getMessage().contains("no endpoint URL"), error.getMessage());
	}

	@Test
	void aOneShotStdioCallIsTheWordStdioAndTheCommandVariable() throws Exception {
		Call call = oneShot("stdio", Map.of("MCP_ERROR_LAYERS_TOOL", "synthetic", "MCP_ERROR_LAYERS_TRANSPORT", "stdio",
				"MCP_ERROR_LAYERS_STDIO_COMMAND", SERVER, "MCP_ERROR_LAYERS_CALL_INDEX", "1", "MCP_ERROR_LAYERS_CALLS",
				"2"));
		assertEquals("stdio", call.transport());
		assertNull(call.endpoint());
		assertEquals(List.of("/work/main/target/debug/mcp-error-layers", "stdio-server", "--session",
				"/tmp/s/session.json"), call.command());
		assertTrue(call.isLast());
	}

	@Test
	void aOneShotStdioCallWithoutAUsableCommandIsRefusedWithItsReason() {
		Map<String, String> base = Map.of("MCP_ERROR_LAYERS_TOOL", "t", "MCP_ERROR_LAYERS_TRANSPORT", "stdio");
		record Case(String last, String command, String says) {
		}
		List<Case> cases = List.of(new Case("stdio", null, "MCP_ERROR_LAYERS_STDIO_COMMAND is not set"),
				new Case("stdio", "/bin/server --flag", "is not JSON"),
				new Case("stdio", "{\"command\": \"x\"}", "not a JSON array"),
				new Case("stdio", "[\"/bin/server\", 1]", "not a JSON array"), new Case("stdio", "[]", "names no program"),
				new Case("stdio", "[\"\"]", "names no program"),
				new Case("http://127.0.0.1:1/mcp", SERVER, "not the word stdio"));
		for (Case each : cases) {
			Map<String, String> vars = new HashMap<>(base);
			if (each.command() != null) {
				vars.put("MCP_ERROR_LAYERS_STDIO_COMMAND", each.command());
			}
			Call.Invalid error = assertThrows(Call.Invalid.class, () -> oneShot(each.last(), vars));
			assertTrue(error.getMessage().contains(each.says()), error.getMessage());
		}
		Call.Invalid other = assertThrows(Call.Invalid.class,
				() -> oneShot("stdio", Map.of("MCP_ERROR_LAYERS_TOOL", "t", "MCP_ERROR_LAYERS_TRANSPORT", "websocket")));
		assertTrue(other.getMessage().contains("neither http nor stdio"));
	}

	@Test
	void aPersistentHttpRequestIsItsEndpointWithOrWithoutTheTransportKey() throws Exception {
		Call call = request("{\"transport\": \"http\", \"endpoint\": \"http://127.0.0.1:4100/mcp\", \"tool\": \"synthetic\", "
				+ "\"arguments\": {}, \"protocol_version\": \"2026-07-28\", \"timeout_ms\": 5000, \"annotations\": {\"readOnlyHint\": true}, "
				+ "\"list_tools\": false, \"client\": 17, \"call\": 0, \"calls\": 1, \"id\": 3}");
		assertEquals("http://127.0.0.1:4100/mcp", call.endpoint());
		assertEquals(17L, call.client());
		assertEquals(0, call.index());
		assertEquals(1, call.calls());
		assertTrue(call.annotations().get("readOnlyHint").asBoolean());
		Call old = request("{\"endpoint\": \"http://127.0.0.1:4100/mcp\", \"tool\": \"synthetic\", \"protocol_version\": \"2025-11-25\"}");
		assertEquals("http", old.transport());
		Call.Invalid none = assertThrows(Call.Invalid.class, () -> request(
				"{\"transport\": \"http\", \"endpoint\": null, \"tool\": \"t\", \"protocol_version\": \"2025-11-25\"}"));
		assertTrue(none.getMessage().contains("\"endpoint\" is not a string"));
		Call.Invalid count = assertThrows(Call.Invalid.class, () -> request(
				"{\"endpoint\": \"http://x/mcp\", \"tool\": \"t\", \"protocol_version\": \"2025-11-25\", \"calls\": \"2\"}"));
		assertTrue(count.getMessage().contains("not a count"));
	}

	@Test
	void aPersistentRequestCarriesItsCredentialsOnlyInAnAuthorizationCase() throws Exception {
		Call call = request("{\"endpoint\": \"http://127.0.0.1:4100/mcp\", \"tool\": \"synthetic\", \"protocol_version\": \"2026-07-28\", "
				+ "\"auth\": {\"access_token\": \"mel_at_1_x\", \"refresh_token\": null, \"expires_in\": 3600, \"expires_at\": 1796650000, "
				+ "\"scope\": \"mcp:tools\", \"client_id\": \"mel-client\", \"client_secret\": null, "
				+ "\"authorization_server\": \"http://127.0.0.1:4100\", \"redirect_uri\": \"http://127.0.0.1:4100/callback\"}}");
		assertEquals("mel_at_1_x", call.auth().accessToken());
		assertNull(call.auth().refreshToken());
		assertEquals(1796650000L, call.auth().expiresAt());
		assertEquals("mel-client", call.auth().clientId());
		assertNull(request("{\"endpoint\": \"http://127.0.0.1:4100/mcp\", \"tool\": \"t\", \"protocol_version\": \"2025-11-25\"}").auth());
		Call.Invalid wrong = assertThrows(Call.Invalid.class, () -> request(
				"{\"endpoint\": \"http://127.0.0.1:4100/mcp\", \"tool\": \"t\", \"protocol_version\": \"2025-11-25\", \"auth\": {\"access_token\": \"t\"}}"));
		assertTrue(wrong.getMessage().contains("client_id"), wrong.getMessage());
	}

	@Test
	void aPersistentStdioRequestIsItsCommandWithANullEndpoint() throws Exception {
		String line = "{\"transport\": \"stdio\", \"command\": " + SERVER + ", \"endpoint\": null, \"tool\": \"synthetic\", "
				+ "\"arguments\": {\"n\": 1}, \"protocol_version\": \"2025-11-25\", \"timeout_ms\": 1500, \"annotations\": {}, "
				+ "\"list_tools\": true, \"client\": 4, \"call\": 1, \"calls\": 3, \"id\": 9}";
		Call call = request(line);
		assertEquals(4, call.command().size());
		assertEquals(1, call.arguments().get("n").asInt());
		assertTrue(call.listTools());
		assertFalse(call.isLast());
		assertEquals("stdio", request(line.replace("\"endpoint\": null, ", "")).transport());
		for (String[] each : new String[][] { { "\"endpoint\": null,", "no \"command\"" },
				{ "\"command\": \"/bin/server\",", "not a JSON array" }, { "\"command\": [],", "names no program" },
				{ "\"command\": [null],", "not a JSON array" },
				{ "\"command\": [\"/bin/server\"], \"endpoint\": \"http://127.0.0.1:1/mcp\",", "should be null" } }) {
			Call.Invalid error = assertThrows(Call.Invalid.class, () -> request(
					"{\"transport\": \"stdio\", " + each[0] + " \"tool\": \"t\", \"protocol_version\": \"2025-11-25\"}"));
			assertTrue(error.getMessage().contains(each[1]), error.getMessage());
		}
		assertThrows(Call.Invalid.class, () -> request(
				"{\"transport\": \"sse\", \"endpoint\": \"http://127.0.0.1:1/mcp\", \"tool\": \"t\", \"protocol_version\": \"2025-11-25\"}"));
	}

	@Test
	void anObservationLineHasTheContractsKeysAndATidyDetail() throws Exception {
		JsonNode line = Json.MAPPER.readTree(Observation.of("HTTP_ERROR", "  Service\n\tUnavailable  ").status(503).line(7L));
		assertEquals(7, line.get("id").asInt());
		assertEquals("HTTP_ERROR", line.get("outcome").asText());
		assertEquals(503, line.get("status").asInt());
		assertTrue(line.get("code").isNull());
		assertEquals("Service Unavailable", line.get("detail").asText());
		assertEquals("{\"unsupported\":\"no stdio\"}", Observation.unsupported("no stdio").line(null));
		String longer = Observation.of("UNCLASSIFIED_ERROR", "é".repeat(700)).detail();
		assertEquals(601, longer.codePointCount(0, longer.length()));
		assertTrue(longer.endsWith("…"));
		assertThrows(IllegalArgumentException.class, () -> Observation.of("NOT_AN_OUTCOME", ""));
		assertEquals("a; b", Observation.of("TIMEOUT", "a").more("b").detail());
	}

	@Test
	void anErrorIsDescribedWithItsCausesAndFoundByType() {
		var error = new IllegalStateException("wrapped: boom", new java.net.ConnectException("Connection refused"));
		assertEquals("java.lang.IllegalStateException: wrapped: boom <- caused by java.net.ConnectException: Connection refused",
				Contract.describe(error));
		assertEquals("Connection refused", Contract.find(error, java.io.IOException.class).getMessage());
		assertNull(Contract.find(error, TimeoutException.class));
		// A cause whose text is already there is skipped.
		var repeated = new RuntimeException("java.io.IOException: gone", new IOException("gone"));
		assertEquals("java.lang.RuntimeException: java.io.IOException: gone", Contract.describe(repeated));
	}

	@Test
	void withinGivesTheValueOrATimeout() throws Exception {
		assertEquals(4, Contract.within(Duration.ofSeconds(1), () -> 4));
		assertThrows(TimeoutException.class, () -> Contract.within(Duration.ofMillis(50), () -> {
			Thread.sleep(5000);
			return 0;
		}));
		IOException thrown = assertThrows(IOException.class, () -> Contract.within(Duration.ofSeconds(1), () -> {
			throw new IOException("refused");
		}));
		assertEquals("refused", thrown.getMessage());
	}

	/** A row that counts its clients: each call answers which client (by open order) it ran on. */
	static final class Counting implements Row<Integer> {

		final AtomicInteger opened = new AtomicInteger();

		final List<Integer> closed = Collections.synchronizedList(new ArrayList<>());

		final CountDownLatch together;

		Counting(int together) {
			this.together = new CountDownLatch(together);
		}

		@Override
		public String refuse(Call call) {
			return call.transport().equals("stdio") ? "no stdio client here" : null;
		}

		@Override
		public Integer open(Call call) {
			if (call.tool().equals("fail-open")) {
				throw new IllegalStateException("cannot connect");
			}
			return opened.incrementAndGet();
		}

		@Override
		public Observation call(Integer client, Call call) throws Exception {
			if (call.tool().equals("together")) {
				// Every such call waits for the others: they must be served at once.
				together.countDown();
				if (!together.await(5, TimeUnit.SECONDS)) {
					return Observation.of("TIMEOUT", "not served at once");
				}
			}
			if (call.tool().equals("throw")) {
				throw new IOException("refused");
			}
			Contract.note("call " + call.index() + " on client " + client);
			return Observation.of("TOOL_SUCCESS", "client " + client);
		}

		@Override
		public Observation error(Throwable error, Call call) {
			return Observation.of("UNCLASSIFIED_ERROR", Contract.describe(error));
		}

		@Override
		public String close(Integer client) {
			closed.add(client);
			return "closed " + client;
		}

	}

	static Map<Long, JsonNode> serve(Row<?> row, String... lines) throws IOException {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		ByteArrayOutputStream err = new ByteArrayOutputStream();
		Contract.noteTo(new PrintStream(err, true, StandardCharsets.UTF_8));
		try {
			Contract.serve(row, new Contract.Sdk("sdk", "1.2.3"),
					new ByteArrayInputStream(String.join("\n", lines).getBytes(StandardCharsets.UTF_8)),
					new PrintStream(out, true, StandardCharsets.UTF_8), false);
		}
		finally {
			Contract.noteTo(System.err);
		}
		String[] written = out.toString(StandardCharsets.UTF_8).split("\n");
		JsonNode announce = Json.MAPPER.readTree(written[0]);
		assertEquals(1, announce.get("persistent").asInt());
		assertEquals(Contract.CONCURRENT, announce.get("concurrent").asInt());
		assertEquals("sdk", announce.get("name").asText());
		assertEquals("1.2.3", announce.get("version").asText());
		Map<Long, JsonNode> answers = new HashMap<>();
		for (int i = 1; i < written.length; i++) {
			JsonNode answer = Json.MAPPER.readTree(written[i]);
			assertTrue(answers.put(answer.get("id").asLong(), answer) == null, "answered twice: " + written[i]);
		}
		String log = err.toString(StandardCharsets.UTF_8);
		for (String line : log.split("\n")) {
			assertTrue(line.isEmpty() || line.matches("^\\[\\d+\\] .*"), "a stderr line without its request: " + line);
		}
		return answers;
	}

	static String line(long id, String tool, long client, long call, long calls) {
		return "{\"id\": " + id + ", \"endpoint\": \"http://127.0.0.1:1/mcp\", \"tool\": \"" + tool
				+ "\", \"protocol_version\": \"2025-11-25\", \"timeout_ms\": 1000, \"client\": " + client + ", \"call\": " + call
				+ ", \"calls\": " + calls + "}";
	}

	@Test
	void theCallsOfACaseRunOnOneClientOpenedAtTheFirstAndClosedAfterTheLast() throws Exception {
		Counting row = new Counting(1);
		Map<Long, JsonNode> answers = serve(row, line(1, "synthetic", 40, 0, 3), line(2, "throw", 40, 1, 3),
				line(3, "synthetic", 40, 2, 3), line(4, "synthetic", 41, 0, 1));
		assertEquals(4, answers.size());
		assertEquals("client 1", answers.get(1L).get("detail").asText());
		// An error the call raised is its observation, and the client stays.
		assertEquals("UNCLASSIFIED_ERROR", answers.get(2L).get("outcome").asText());
		assertEquals("java.io.IOException: refused", answers.get(2L).get("detail").asText());
		assertEquals("client 1", answers.get(3L).get("detail").asText());
		assertEquals("client 2", answers.get(4L).get("detail").asText());
		assertEquals(2, row.opened.get());
		assertEquals(List.of(1, 2), row.closed.stream().sorted().toList());
	}

	@Test
	void aFailedOpenIsTheCallsObservationAndTheNextCallOpensAgain() throws Exception {
		Counting row = new Counting(1);
		Map<Long, JsonNode> answers = serve(row, line(1, "fail-open", 7, 0, 2), line(2, "synthetic", 7, 1, 2));
		assertEquals("java.lang.IllegalStateException: cannot connect", answers.get(1L).get("detail").asText());
		assertEquals("client 1", answers.get(2L).get("detail").asText());
		assertEquals(List.of(1), row.closed);
	}

	@Test
	void callsOfDifferentCasesAreServedAtOnce() throws Exception {
		Counting row = new Counting(6);
		String[] lines = new String[6];
		for (int i = 0; i < 6; i++) {
			lines[i] = line(i + 1, "together", 100 + i, 0, 1);
		}
		Map<Long, JsonNode> answers = serve(row, lines);
		assertEquals(6, answers.size());
		answers.values().forEach(answer -> assertEquals("TOOL_SUCCESS", answer.get("outcome").asText(), answer.toString()));
	}

	@Test
	void aTaskCallAStdioCallTheRowRefusesAndABadLineAreAnsweredAtOnce() throws Exception {
		Counting row = new Counting(1);
		String task = line(1, "synthetic", 1, 0, 1).replace("}", ", \"task\": {}}");
		String stdio = "{\"id\": 2, \"transport\": \"stdio\", \"command\": [\"/bin/server\"], \"tool\": \"t\", \"protocol_version\": \"2025-11-25\"}";
		Map<Long, JsonNode> answers = serve(row, task, stdio, "{\"id\": 3, \"tool\": 1}");
		assertEquals(Contract.NO_TASKS, answers.get(1L).get("unsupported").asText());
		assertEquals("no stdio client here", answers.get(2L).get("unsupported").asText());
		assertTrue(answers.get(3L).get("error").asText().startsWith("the adapter failed: "));
		assertEquals(0, row.opened.get());
	}

	@Test
	void oneShotModeOpensCallsAndClosesTheCallsOwnClient() throws Exception {
		Counting row = new Counting(1);
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		Call call = oneShot("http://127.0.0.1:1/mcp", Map.of("MCP_ERROR_LAYERS_TOOL", "synthetic"));
		Contract.once(row, call, new PrintStream(out, true, StandardCharsets.UTF_8), false);
		assertEquals("{\"outcome\":\"TOOL_SUCCESS\",\"status\":null,\"code\":null,\"detail\":\"client 1\"}\n",
				out.toString(StandardCharsets.UTF_8));
		assertEquals(List.of(1), row.closed);
	}

}
