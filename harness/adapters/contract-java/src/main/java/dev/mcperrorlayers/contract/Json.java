package dev.mcperrorlayers.contract;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The one Jackson mapper of the contract. */
final class Json {

	static final ObjectMapper MAPPER = new ObjectMapper();

	private Json() {
	}

}
