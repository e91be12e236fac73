// The go-sdk row: the official Go SDK (github.com/modelcontextprotocol/go-sdk) driven through
// its documented client, with default settings: mcp.NewClient, Client.Connect over
// mcp.StreamableClientTransport (or mcp.CommandTransport for a stdio case), then
// ClientSession.CallTool. The contract (../contract-go) reads the calls, keeps one client per
// case and prints the observations; this file says how to open, call, map and close.
//
// The mapping reads only what an application can branch on without parsing text: errors.As
// and errors.Is on the error the SDK returned (its *jsonrpc.Error, its sentinels
// mcp.ErrConnectionClosed and mcp.ErrSessionMissing, the context's deadline, and the standard
// library's typed network errors it wraps with %w), and CallToolResult.IsError. Everything else
// is UNCLASSIFIED_ERROR with the SDK's words in detail (README.md has the table).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime/debug"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"mcp-error-layers.local/contract"
)

const module = "github.com/modelcontextprotocol/go-sdk"

// row is the go-sdk row; it takes no arguments.
type row struct{}

// client is what an application keeps: its session (the Client is made per session here, as
// the SDK's examples do).
type client struct {
	session *mcp.ClientSession
}

func (row) Refuse(*contract.Call) string { return "" }

func (row) Open(ctx context.Context, call *contract.Call) (*client, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "mcp-error-layers-go-sdk", Version: "1.0.0"}, nil)
	var transport mcp.Transport
	if call.Transport == "stdio" {
		transport = &mcp.CommandTransport{Command: exec.Command(call.Command[0], call.Command[1:]...)}
	} else {
		streamable := &mcp.StreamableClientTransport{Endpoint: call.Endpoint}
		if call.Auth != nil {
			handler, err := oauthHandler(call)
			if err != nil {
				return nil, contract.Step{Name: "auth", Err: err}
			}
			streamable.OAuthHandler = handler
		}
		transport = streamable
	}
	// Connect negotiates the era itself (server/discover first, the initialize handshake when the
	// server answers as a 2025 server): the SDK's default, so the case's protocol version is not
	// forced on it. The application's deadline bounds the handshake as it bounds the call.
	ctx, cancel := context.WithTimeout(ctx, call.Timeout)
	defer cancel()
	session, err := c.Connect(ctx, transport, nil)
	if err != nil {
		return nil, contract.Step{Name: "connect", Err: err}
	}
	return &client{session: session}, nil
}

func (row) Call(ctx context.Context, c *client, call *contract.Call) (contract.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, call.Timeout)
	defer cancel()
	if call.ListTools {
		if _, err := c.session.ListTools(ctx, nil); err != nil {
			return contract.Observation{}, contract.Step{Name: "tools/list", Err: err}
		}
	}
	result, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: call.Tool, Arguments: call.Arguments})
	if err != nil {
		return contract.Observation{}, contract.Step{Name: "tools/call", Err: err}
	}
	text := content(result)
	if result.IsError {
		return contract.Observe("TOOL_ERROR", "CallToolResult.IsError: "+text), nil
	}
	return contract.Observe("TOOL_SUCCESS", text), nil
}

// oauthHandler is the SDK's documented auth entry point over an authorization case's start
// credentials (docs/adapters.md, "Credentials"): an auth.AuthorizationCodeHandler for the
// pre-registered client, its InitialTokenSource the stored token as golang.org/x/oauth2 keeps
// one (an oauth2.Config naming the token endpoint the sign-in used, and the oauth2.Token, which
// the token source refreshes when it has expired). Its AuthorizationCodeFetcher is the browser
// nobody signs in with: one GET to the authorization URL, then an error.
func oauthHandler(call *contract.Call) (*auth.AuthorizationCodeHandler, error) {
	credentials, err := call.Credentials()
	if err != nil {
		return nil, err
	}
	client := &oauthex.ClientCredentials{ClientID: credentials.ClientID}
	if credentials.ClientSecret != "" {
		client.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: credentials.ClientSecret}
	}
	config := &oauth2.Config{
		ClientID:     credentials.ClientID,
		ClientSecret: credentials.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: credentials.TokenEndpoint},
		RedirectURL:  credentials.RedirectURI,
		Scopes:       credentials.Scopes(),
	}
	token := &oauth2.Token{
		AccessToken:  credentials.AccessToken,
		RefreshToken: credentials.RefreshToken,
		TokenType:    "Bearer",
		Expiry:       credentials.Expiry(),
	}
	var source oauth2.TokenSource
	if token.AccessToken != "" || token.RefreshToken != "" {
		source = config.TokenSource(context.Background(), token)
	}
	return auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: client,
		RedirectURL:         credentials.RedirectURI,
		InitialTokenSource:  source,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			call.Note("the SDK asks for an interactive authorization: one GET to it, nobody signs in")
			if request, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil); err == nil {
				noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				if response, err := noRedirects.Do(request); err == nil {
					_ = response.Body.Close()
				}
			}
			return nil, errors.New("the user did not complete the authorization (nobody signs in here)")
		},
	})
}

// content is the result's text content, for detail.
func content(result *mcp.CallToolResult) string {
	var text string
	for _, item := range result.Content {
		if t, ok := item.(*mcp.TextContent); ok {
			text += t.Text
		} else {
			text += fmt.Sprintf("[%T]", item)
		}
	}
	return text
}

func (row) Error(err error, call *contract.Call) contract.Observation {
	detail := err.Error()
	var wire *jsonrpc.Error
	var op *net.OpError
	var urlError *url.Error
	var syntax *json.SyntaxError
	var shape *json.UnmarshalTypeError
	var at contract.Step
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return contract.Observe("TIMEOUT", detail)
	// The standard library's typed network errors, which the transport wraps with %w beside its
	// own "rejected by transport" error (-32005): read first, as they name the layer.
	case errors.As(err, &op) && op.Op == "dial",
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &urlError) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return contract.Observe("CONNECTION_ERROR", detail)
	case call.Transport == "stdio" && (errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		// The server's stdout ended: the process exited, was killed or closed it.
		return contract.Observe("CONNECTION_ERROR", detail)
	case errors.Is(err, mcp.ErrSessionMissing):
		// The SDK's sentinel for a 404 to a request that carried the session id.
		return contract.Observe("HTTP_ERROR", detail).WithStatus(404)
	case errors.As(err, &syntax):
		return contract.Observe("MALFORMED_JSON", detail)
	case errors.As(err, &shape) && errors.As(err, &at) && at.Name == "tools/call":
		// The envelope decoded, the result did not fit CallToolResult (content not an array,
		// isError not a boolean): the result is no valid tool result.
		return contract.Observe("INVALID_TOOL_RESULT", detail)
	case errors.As(err, &wire):
		return contract.Observe("JSONRPC_ERROR", detail).WithCode(wire.Code)
	}
	return contract.Observe("UNCLASSIFIED_ERROR", detail)
}

func (row) Close(c *client) (string, error) {
	if err := c.session.Close(); err != nil {
		return "", err
	}
	return "session closed", nil
}

// version is the SDK's version as the build recorded it.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				if dep.Replace != nil {
					return dep.Replace.Version
				}
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	os.Exit(contract.Main(contract.SDK{Name: module, Version: version()}, contract.Options{},
		func(args []string) (contract.Row[*client], error) {
			if len(args) > 0 {
				return nil, fmt.Errorf("unknown arguments %q", args)
			}
			return row{}, nil
		}))
}
