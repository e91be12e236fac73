// The mcp-go row: github.com/mark3labs/mcp-go driven through its documented client, with default
// settings: client.NewStreamableHttpClient, Start, Initialize (which probes server/discover and
// falls back to the initialize handshake by itself), then CallTool; over stdio
// client.NewStdioMCPClient. The contract (../contract-go) reads the calls, keeps one client per
// case and prints the observations; this file says how to open, call, map and close.
//
// The mapping reads only what an application can branch on without parsing text: errors.As and
// errors.Is on the returned error (mcp-go's JSON-RPC sentinels and error types, its transport
// sentinels and *AuthorizationRequiredError, the context's deadline, the standard library's
// network errors it wraps with %w), and CallToolResult.IsError (README.md has the table).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"mcp-error-layers.local/contract"
)

const module = "github.com/mark3labs/mcp-go"

// row is the mcp-go row; it takes no arguments.
type row struct{}

func (row) Refuse(*contract.Call) string { return "" }

func (row) Open(ctx context.Context, call *contract.Call) (*client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, call.Timeout)
	defer cancel()
	var c *client.Client
	var err error
	if call.Transport == "stdio" {
		// It starts the process itself (its doc: "will start the connection automatically").
		c, err = client.NewStdioMCPClient(call.Command[0], nil, call.Command[1:]...)
		if err != nil {
			return nil, contract.Step{Name: "start", Err: err}
		}
	} else {
		if call.Auth != nil {
			config, err := oauthConfig(ctx, call)
			if err != nil {
				return nil, contract.Step{Name: "auth", Err: err}
			}
			c, err = client.NewOAuthStreamableHttpClient(call.Endpoint, config)
		} else {
			c, err = client.NewStreamableHttpClient(call.Endpoint)
		}
		if err != nil {
			return nil, contract.Step{Name: "new client", Err: err}
		}
		if err := c.Start(ctx); err != nil {
			_ = c.Close()
			return nil, contract.Step{Name: "start", Err: err}
		}
	}
	request := mcp.InitializeRequest{}
	request.Params.ClientInfo = mcp.Implementation{Name: "mcp-error-layers-mcp-go", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, request); err != nil {
		_ = c.Close()
		return nil, contract.Step{Name: "initialize", Err: err}
	}
	return c, nil
}

func (row) Call(ctx context.Context, c *client.Client, call *contract.Call) (contract.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, call.Timeout)
	defer cancel()
	if call.ListTools {
		if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
			return contract.Observation{}, contract.Step{Name: "tools/list", Err: err}
		}
	}
	request := mcp.CallToolRequest{}
	request.Params.Name = call.Tool
	request.Params.Arguments = call.Arguments
	result, err := c.CallTool(ctx, request)
	if err != nil {
		return contract.Observation{}, contract.Step{Name: "tools/call", Err: err}
	}
	text := content(result)
	if result.IsError {
		return contract.Observe("TOOL_ERROR", "CallToolResult.IsError: "+text), nil
	}
	return contract.Observe("TOOL_SUCCESS", text), nil
}

// oauthConfig is mcp-go's documented OAuth client configuration over an authorization case's
// start credentials (docs/adapters.md, "Credentials"): the pre-registered client, PKCE on (its
// docs' advice for a public client), and a client.MemoryTokenStore holding the stored token.
// mcp-go leaves the interactive authorization to the application (the 401 comes back as an
// *OAuthAuthorizationRequiredError carrying the handler), so nothing here starts one.
func oauthConfig(ctx context.Context, call *contract.Call) (client.OAuthConfig, error) {
	credentials, err := call.Credentials()
	if err != nil {
		return client.OAuthConfig{}, err
	}
	store := client.NewMemoryTokenStore()
	if credentials.AccessToken != "" || credentials.RefreshToken != "" {
		token := &transport.Token{
			AccessToken:  credentials.AccessToken,
			TokenType:    "Bearer",
			RefreshToken: credentials.RefreshToken,
			Scope:        credentials.Scope,
			ExpiresAt:    credentials.Expiry(),
		}
		if credentials.ExpiresIn != nil {
			token.ExpiresIn = *credentials.ExpiresIn
		}
		if err := store.SaveToken(ctx, token); err != nil {
			return client.OAuthConfig{}, err
		}
	}
	return client.OAuthConfig{
		ClientID:     credentials.ClientID,
		ClientSecret: credentials.ClientSecret,
		RedirectURI:  credentials.RedirectURI,
		Scopes:       credentials.Scopes(),
		TokenStore:   store,
		PKCEEnabled:  true,
	}, nil
}

// content is the result's text content, for detail.
func content(result *mcp.CallToolResult) string {
	var text string
	for _, item := range result.Content {
		if t, ok := mcp.AsTextContent(item); ok {
			text += t.Text
		} else {
			text += fmt.Sprintf("[%T]", item)
		}
	}
	return text
}

// codes are mcp-go's sentinels for the JSON-RPC error codes it knows (mcp.JSONRPCErrorDetails.AsError):
// the documented way its caller learns a code. Any other code becomes a plain errors.New(message).
var codes = []struct {
	sentinel error
	code     int64
}{
	{mcp.ErrParseError, mcp.PARSE_ERROR},
	{mcp.ErrInvalidRequest, mcp.INVALID_REQUEST},
	{mcp.ErrMethodNotFound, mcp.METHOD_NOT_FOUND},
	{mcp.ErrInvalidParams, mcp.INVALID_PARAMS},
	{mcp.ErrInternalError, mcp.INTERNAL_ERROR},
	{mcp.ErrRequestInterrupted, mcp.REQUEST_INTERRUPTED},
	{mcp.ErrResourceNotFound, mcp.RESOURCE_NOT_FOUND},
}

// code is the JSON-RPC code the error's type or sentinel stands for, if any.
func code(err error) (int64, bool) {
	for _, known := range codes {
		if errors.Is(err, known.sentinel) {
			return known.code, true
		}
	}
	var mismatch mcp.HeaderMismatchError
	var version mcp.UnsupportedProtocolVersionError
	var capability mcp.MissingRequiredClientCapabilityError
	var elicitation mcp.URLElicitationRequiredError
	switch {
	case errors.As(err, &mismatch):
		return mcp.HEADER_MISMATCH, true
	case errors.As(err, &version):
		return mcp.UNSUPPORTED_PROTOCOL_VERSION, true
	case errors.As(err, &capability):
		return mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, true
	case errors.As(err, &elicitation):
		return mcp.URL_ELICITATION_REQUIRED, true
	}
	return 0, false
}

func (row) Error(err error, call *contract.Call) contract.Observation {
	detail := err.Error()
	var op *net.OpError
	var urlError *url.Error
	var auth *transport.AuthorizationRequiredError
	var oauth *transport.OAuthAuthorizationRequiredError
	var syntax *json.SyntaxError
	var shape *json.UnmarshalTypeError
	var at contract.Step
	var wrapped *transport.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return contract.Observe("TIMEOUT", detail)
	case errors.As(err, &op) && op.Op == "dial",
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &urlError) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return contract.Observe("CONNECTION_ERROR", detail)
	case call.Transport == "stdio" && (errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		// The server's stdout ended: the process exited, was killed or closed it.
		return contract.Observe("CONNECTION_ERROR", detail)
	case errors.Is(err, transport.ErrSessionTerminated):
		// "session terminated (404). need to re-initialize": the sentinel of a 404 in a session.
		return contract.Observe("HTTP_ERROR", detail).WithStatus(404)
	case errors.Is(err, transport.ErrUnauthorized), errors.As(err, &auth), errors.As(err, &oauth):
		return contract.Observe("HTTP_ERROR", detail).WithStatus(401)
	case errors.As(err, &syntax):
		return contract.Observe("MALFORMED_JSON", detail)
	case errors.As(err, &shape) && errors.As(err, &at) && at.Name == "tools/call" && !errors.As(err, &wrapped):
		// The envelope decoded, the result did not fit CallToolResult (content not an array,
		// isError not a boolean): the result is no valid tool result.
		return contract.Observe("INVALID_TOOL_RESULT", detail)
	}
	if known, ok := code(err); ok {
		return contract.Observe("JSONRPC_ERROR", detail).WithCode(known)
	}
	return contract.Observe("UNCLASSIFIED_ERROR", detail)
}

func (row) Close(c *client.Client) (string, error) {
	if err := c.Close(); err != nil {
		return "", err
	}
	return "client closed", nil
}

// version is the SDK's version as the build recorded it.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	os.Exit(contract.Main(contract.SDK{Name: module, Version: version()}, contract.Options{},
		func(args []string) (contract.Row[*client.Client], error) {
			if len(args) > 0 {
				return nil, fmt.Errorf("unknown arguments %q", args)
			}
			return row{}, nil
		}))
}
