package dev.mcperrorlayers.contract;

import java.util.Set;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One observation, as the contract prints it: an outcome with its status, code and detail, or
 * {@code unsupported} with why.
 */
public final class Observation {

	/** {@code detail} is the client's own text, whitespace collapsed, cut at this many characters. */
	public static final int MAX_DETAIL = 600;

	/** The outcome words of the design (docs/adapters.md, "What it prints"). */
	public static final Set<String> OUTCOMES = Set.of("CONNECTION_ERROR", "HTTP_ERROR", "UNEXPECTED_CONTENT_TYPE",
			"NO_RESULT", "STREAM_INCOMPLETE", "TIMEOUT", "MALFORMED_JSON", "INVALID_ENVELOPE", "JSONRPC_ERROR",
			"INVALID_TOOL_RESULT", "INPUT_REQUIRED", "TOOL_ERROR", "TOOL_SUCCESS", "UNCLASSIFIED_ERROR",
			"TASK_CANCELLED");

	private final String outcome;

	private final Integer status;

	private final Long code;

	private final String detail;

	private final String unsupported;

	private Observation(String outcome, Integer status, Long code, String detail, String unsupported) {
		this.outcome = outcome;
		this.status = status;
		this.code = code;
		this.detail = detail;
		this.unsupported = unsupported;
	}

	/** An outcome with the client's own words (whitespace collapsed, cut at {@link #MAX_DETAIL}). */
	public static Observation of(String outcome, String detail) {
		if (!OUTCOMES.contains(outcome)) {
			throw new IllegalArgumentException("no outcome word: " + outcome);
		}
		return new Observation(outcome, null, null, tidy(detail), null);
	}

	/** The adapter cannot run this call (a skip, never a pass), and why. */
	public static Observation unsupported(String why) {
		return new Observation(null, null, null, null, why);
	}

	/** This observation with an HTTP status. */
	public Observation status(Integer status) {
		return new Observation(outcome, status, code, detail, unsupported);
	}

	/** This observation with a JSON-RPC error code. */
	public Observation code(Long code) {
		return new Observation(outcome, status, code, detail, unsupported);
	}

	/** This observation with more words after its detail ({@code "; "} between). */
	public Observation more(String words) {
		String joined = detail == null || detail.isEmpty() ? words : detail + "; " + words;
		return new Observation(outcome, status, code, tidy(joined), unsupported);
	}

	public String outcome() {
		return outcome;
	}

	public Integer status() {
		return status;
	}

	public Long code() {
		return code;
	}

	public String detail() {
		return detail;
	}

	public String unsupportedWhy() {
		return unsupported;
	}

	/** The contract's JSON line, with {@code "id"} first when it answers request {@code id}. */
	public String line(Long id) {
		ObjectNode line = JsonNodeFactory.instance.objectNode();
		if (id != null) {
			line.put("id", id);
		}
		if (unsupported != null) {
			line.put("unsupported", unsupported);
		}
		else {
			line.put("outcome", outcome);
			line.put("status", status);
			line.put("code", code);
			line.put("detail", detail);
		}
		return line.toString();
	}

	@Override
	public String toString() {
		return line(null);
	}

	/** Whitespace collapsed, cut at {@link #MAX_DETAIL} characters (code points) with an ellipsis. */
	public static String tidy(String text) {
		if (text == null) {
			return "";
		}
		String collapsed = String.join(" ", text.trim().split("\\s+"));
		if (collapsed.codePointCount(0, collapsed.length()) > MAX_DETAIL) {
			return collapsed.substring(0, collapsed.offsetByCodePoints(0, MAX_DETAIL)) + "…";
		}
		return collapsed;
	}

}
