package dev.mcperrorlayers.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One call the runner asks for (docs/adapters.md): from a persistent request line
 * ({@link #fromRequest}) or, one process per call, from the last argument and the
 * {@code MCP_ERROR_LAYERS_*} variables ({@link #fromVars}).
 *
 * @param endpoint the endpoint URL over HTTP; {@code null} over stdio
 * @param command the stdio server's command line, program first; {@code null} over HTTP
 * @param tool the tool to call
 * @param arguments its arguments (an object)
 * @param protocolVersion the protocol version the client should prefer
 * @param timeout the client's own timeout for the call
 * @param annotations the tool's annotations as {@code tools/list} advertises them
 * @param listTools list the tools first, as an application does to learn their schemas
 * @param task {@code {}} or {@code {"ttl_ms": N}} for a call asked as a task; {@code null} otherwise
 * @param auth the client's start credentials in an authorization case; {@code null} otherwise
 * @param client the client the call runs on (the same for every call of a case); {@code null}
 *     for a call with a client of its own (one-shot mode)
 * @param index this call's place among the client's calls, from 0
 * @param calls how many calls the client makes: it is closed after call {@code calls - 1}
 */
public record Call(String endpoint, List<String> command, String tool, ObjectNode arguments,
		String protocolVersion, Duration timeout, ObjectNode annotations, boolean listTools,
		ObjectNode task, Credentials auth, Long client, long index, long calls) {

	/** The contract's word for the transport: {@code http} or {@code stdio}. */
	public String transport() {
		return command == null ? "http" : "stdio";
	}

	/** Whether the client is closed after this call. */
	public boolean isLast() {
		return index + 1 >= calls;
	}

	/** A call that cannot be read, and why. */
	public static final class Invalid extends Exception {

		private static final long serialVersionUID = 1L;

		public Invalid(String message) {
			super(message);
		}

	}

	/** A persistent-mode request line, parsed. */
	public static Call fromRequest(JsonNode request) throws Invalid {
		if (!(request instanceof ObjectNode)) {
			throw new Invalid("a request line that is no JSON object");
		}
		String endpoint = null;
		List<String> command = null;
		JsonNode transport = request.get("transport");
		String word = transport == null || transport.isNull() ? "http" : transport.isTextual() ? transport.asText() : "";
		switch (word) {
			case "http" -> {
				JsonNode url = request.get("endpoint");
				if (url == null || !url.isTextual()) {
					throw new Invalid("request key \"endpoint\" is not a string: " + url);
				}
				endpoint = url.asText();
			}
			case "stdio" -> {
				JsonNode url = request.get("endpoint");
				if (url != null && !url.isNull()) {
					throw new Invalid("a stdio request has an endpoint (" + url + "); it should be null");
				}
				JsonNode words = request.get("command");
				if (words == null) {
					throw new Invalid("a stdio request has no \"command\"");
				}
				command = command("request key \"command\"", words);
			}
			default -> throw new Invalid("request key \"transport\" is neither \"http\" nor \"stdio\": " + transport);
		}
		return new Call(endpoint, command, text(request, "tool"), object(request, "arguments", true),
				text(request, "protocol_version"), Duration.ofMillis(Math.max(1, count(request, "timeout_ms", 5000))),
				object(request, "annotations", true), request.path("list_tools").asBoolean(false),
				object(request, "task", false), credentials(object(request, "auth", false)),
				request.hasNonNull("client") ? count(request, "client", 0) : null, count(request, "call", 0),
				Math.max(1, count(request, "calls", 1)));
	}

	/**
	 * The one-shot call: {@code last} is the last argument (the endpoint URL, or the word
	 * {@code stdio}), {@code var} reads the {@code MCP_ERROR_LAYERS_*} variables ({@code null}
	 * when unset).
	 */
	public static Call fromVars(String last, Function<String, String> var) throws Invalid {
		String endpoint = null;
		List<String> command = null;
		String transport = var.apply("MCP_ERROR_LAYERS_TRANSPORT");
		if (transport == null || transport.equals("http")) {
			if (!(last.startsWith("http://") || last.startsWith("https://"))) {
				throw new Invalid("the last argument \"" + last + "\" is no endpoint URL (http:// or https://)");
			}
			endpoint = last;
		}
		else if (transport.equals("stdio")) {
			if (!last.equals("stdio")) {
				throw new Invalid("MCP_ERROR_LAYERS_TRANSPORT is stdio but the last argument is \"" + last
						+ "\", not the word stdio");
			}
			String name = "MCP_ERROR_LAYERS_STDIO_COMMAND";
			String text = var.apply(name);
			if (text == null) {
				throw new Invalid(name + " is not set");
			}
			command = command(name, parse(name, text));
		}
		else {
			throw new Invalid("MCP_ERROR_LAYERS_TRANSPORT \"" + transport + "\" is neither http nor stdio");
		}
		String tool = var.apply("MCP_ERROR_LAYERS_TOOL");
		if (tool == null) {
			throw new Invalid("MCP_ERROR_LAYERS_TOOL is not set");
		}
		String version = var.apply("MCP_ERROR_LAYERS_PROTOCOL_VERSION");
		String task = var.apply("MCP_ERROR_LAYERS_TASK");
		String auth = var.apply("MCP_ERROR_LAYERS_AUTH");
		return new Call(endpoint, command, tool, objectVar(var, "MCP_ERROR_LAYERS_ARGUMENTS"),
				version == null ? "2026-07-28" : version,
				Duration.ofMillis(Math.max(1, number(var, "MCP_ERROR_LAYERS_TIMEOUT_MS", 5000))),
				objectVar(var, "MCP_ERROR_LAYERS_TOOL_ANNOTATIONS"), "1".equals(var.apply("MCP_ERROR_LAYERS_LIST_TOOLS")),
				task == null ? null : objectVar(var, "MCP_ERROR_LAYERS_TASK"),
				auth == null ? null : credentials(objectVar(var, "MCP_ERROR_LAYERS_AUTH")), null,
				number(var, "MCP_ERROR_LAYERS_CALL_INDEX", 0), Math.max(1, number(var, "MCP_ERROR_LAYERS_CALLS", 1)));
	}

	private static Credentials credentials(ObjectNode auth) throws Invalid {
		if (auth == null) {
			return null;
		}
		try {
			return Credentials.fromObject(auth);
		}
		catch (IllegalArgumentException error) {
			throw new Invalid(error.getMessage());
		}
	}

	private static List<String> command(String what, JsonNode value) throws Invalid {
		if (!value.isArray()) {
			throw new Invalid(what + " is not a JSON array of strings: " + value);
		}
		List<String> words = new ArrayList<>();
		for (JsonNode word : value) {
			if (!word.isTextual()) {
				throw new Invalid(what + " is not a JSON array of strings: " + value);
			}
			words.add(word.asText());
		}
		if (words.isEmpty() || words.get(0).isEmpty()) {
			throw new Invalid(what + " names no program: " + value);
		}
		return Collections.unmodifiableList(words);
	}

	private static JsonNode parse(String what, String text) throws Invalid {
		try {
			return Json.MAPPER.readTree(text);
		}
		catch (Exception error) {
			throw new Invalid(what + " is not JSON: " + error.getMessage());
		}
	}

	private static ObjectNode objectVar(Function<String, String> var, String name) throws Invalid {
		String text = var.apply(name);
		if (text == null) {
			return JsonNodeFactory.instance.objectNode();
		}
		JsonNode value = parse(name, text);
		if (!(value instanceof ObjectNode object)) {
			throw new Invalid(name + " is not a JSON object: " + text);
		}
		return object;
	}

	private static long number(Function<String, String> var, String name, long fallback) throws Invalid {
		String text = var.apply(name);
		if (text == null) {
			return fallback;
		}
		try {
			return Long.parseLong(text.trim());
		}
		catch (NumberFormatException error) {
			throw new Invalid(name + ": not a count: " + text);
		}
	}

	private static String text(JsonNode request, String key) throws Invalid {
		JsonNode value = request.get(key);
		if (value == null || !value.isTextual()) {
			throw new Invalid("request key \"" + key + "\" is not a string: " + value);
		}
		return value.asText();
	}

	private static ObjectNode object(JsonNode request, String key, boolean empty) throws Invalid {
		JsonNode value = request.get(key);
		if (value == null || value.isNull()) {
			return empty ? JsonNodeFactory.instance.objectNode() : null;
		}
		if (!(value instanceof ObjectNode object)) {
			throw new Invalid("request key \"" + key + "\" is not an object: " + value);
		}
		return object;
	}

	private static long count(JsonNode request, String key, long fallback) throws Invalid {
		JsonNode value = request.get(key);
		if (value == null || value.isNull()) {
			return fallback;
		}
		if (!value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 0) {
			throw new Invalid("request key \"" + key + "\" is not a count: " + value);
		}
		return value.asLong();
	}

}
