package dev.mcperrorlayers.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An authorization case's start credentials (docs/adapters.md, "Credentials"): the token store a
 * user who signed in earlier left. The tokens and the expiry may be {@code null}.
 */
public record Credentials(String accessToken, String refreshToken, Long expiresIn, Long expiresAt, String scope,
		String clientId, String clientSecret, String authorizationServer, String tokenEndpoint, String redirectUri) {

	/**
	 * Reads the call's {@code auth} object.
	 * @throws IllegalArgumentException naming the key that is missing or of the wrong type
	 */
	public static Credentials fromObject(ObjectNode auth) {
		String clientId = text(auth, "client_id");
		if (clientId == null) {
			throw new IllegalArgumentException("the credentials name no client_id (a string): " + auth);
		}
		return new Credentials(text(auth, "access_token"), text(auth, "refresh_token"), number(auth, "expires_in"),
				number(auth, "expires_at"), text(auth, "scope"), clientId, text(auth, "client_secret"),
				text(auth, "authorization_server"), text(auth, "token_endpoint"), text(auth, "redirect_uri"));
	}

	private static String text(ObjectNode auth, String key) {
		JsonNode value = auth.get(key);
		if (value == null || value.isNull()) {
			return null;
		}
		if (!value.isTextual()) {
			throw new IllegalArgumentException("credentials key " + key + " is not a string: " + value);
		}
		return value.asText();
	}

	private static Long number(ObjectNode auth, String key) {
		JsonNode value = auth.get(key);
		if (value == null || value.isNull()) {
			return null;
		}
		if (!value.isIntegralNumber()) {
			throw new IllegalArgumentException("credentials key " + key + " is not an integer: " + value);
		}
		return value.asLong();
	}

	/** The seconds until the access token expires, from {@code expires_at}; {@code null} if none. */
	public Long secondsLeft() {
		return expiresAt == null ? expiresIn : expiresAt - System.currentTimeMillis() / 1000;
	}

}
