package contract

import (
	"fmt"
	"strings"
	"time"
)

// Credentials is the start credentials of an authorization case (docs/adapters.md,
// "Credentials"): a token store as a user who signed in earlier would have left it. The tokens
// are synthetic and minted per case run, but they are still credentials: [Credentials.String]
// names whether each is there, never its value.
type Credentials struct {
	// AccessToken and RefreshToken are empty when the store holds none.
	AccessToken  string
	RefreshToken string
	// ExpiresIn is what the store says of the access token's lifetime, in seconds from when
	// the call was handed over (negative: it passed); nil when the store names no expiry.
	ExpiresIn *int64
	// ExpiresAt is the same expiry as Unix seconds; nil when the store names none.
	ExpiresAt *int64
	// Scope is the granted scope, space-separated (may be empty).
	Scope string
	// ClientID is the client id the client is registered with.
	ClientID string
	// ClientSecret is set for a confidential client.
	ClientSecret string
	// AuthorizationServer is the authorization server's issuer URL: pass it only where the
	// client's auth entry point asks for it (a client that discovers it finds the same).
	AuthorizationServer string
	// TokenEndpoint is where the store's sign-in got the tokens (pass it only where a client's
	// store records one beside the tokens).
	TokenEndpoint string
	// RedirectURI is where an interactive authorization would send the user back.
	RedirectURI string
}

// CredentialsFrom reads the object the runner handed over (`auth` of a request line, or
// MCP_ERROR_LAYERS_AUTH). client_id is required; a key absent or null is empty.
func CredentialsFrom(object map[string]any) (*Credentials, error) {
	text := func(key string) (string, error) {
		switch value := object[key].(type) {
		case nil:
			return "", nil
		case string:
			return value, nil
		default:
			return "", fmt.Errorf("auth key %q is not a string", key)
		}
	}
	seconds := func(key string) (*int64, error) {
		switch value := object[key].(type) {
		case nil:
			return nil, nil
		case float64:
			if value == float64(int64(value)) {
				n := int64(value)
				return &n, nil
			}
		}
		return nil, fmt.Errorf("auth key %q is not a whole number: %s", key, show(object[key]))
	}
	c := &Credentials{}
	var err error
	for key, into := range map[string]*string{
		"access_token": &c.AccessToken, "refresh_token": &c.RefreshToken, "scope": &c.Scope,
		"client_id": &c.ClientID, "client_secret": &c.ClientSecret,
		"authorization_server": &c.AuthorizationServer, "token_endpoint": &c.TokenEndpoint,
		"redirect_uri": &c.RedirectURI,
	} {
		if *into, err = text(key); err != nil {
			return nil, err
		}
	}
	if c.ExpiresIn, err = seconds("expires_in"); err != nil {
		return nil, err
	}
	if c.ExpiresAt, err = seconds("expires_at"); err != nil {
		return nil, err
	}
	if c.ClientID == "" {
		return nil, fmt.Errorf("auth has no \"client_id\"")
	}
	return c, nil
}

// Scopes is the granted scope, one per item.
func (c *Credentials) Scopes() []string { return strings.Fields(c.Scope) }

// Expiry is when the access token expires: ExpiresAt, or ExpiresIn from now when only that is
// given; the zero time when the store names no expiry.
func (c *Credentials) Expiry() time.Time {
	switch {
	case c.ExpiresAt != nil:
		return time.Unix(*c.ExpiresAt, 0)
	case c.ExpiresIn != nil:
		return time.Now().Add(time.Duration(*c.ExpiresIn) * time.Second)
	}
	return time.Time{}
}

// String names which tokens are held, never their values.
func (c *Credentials) String() string {
	held := func(token string) string {
		if token == "" {
			return "none"
		}
		return "[redacted]"
	}
	return fmt.Sprintf("Credentials{access_token: %s, refresh_token: %s, client_secret: %s, scope: %q, client_id: %q}",
		held(c.AccessToken), held(c.RefreshToken), held(c.ClientSecret), c.Scope, c.ClientID)
}

// GoString is String, so that %#v logs no token either.
func (c *Credentials) GoString() string { return c.String() }
