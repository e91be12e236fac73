// Package contract is the adapter contract (docs/adapters.md) for the Go adapters here, in one
// place: a row keeps only what is its SDK's (how to open its client, make a call on it, map what
// the SDK returned, and close it). Standard library only.
//
// A row is a [Row]; [Main] runs it in the mode the runner asked for:
//
//   - One process per call: the [Call] comes in the last argument (the endpoint URL, or the word
//     `stdio`) and the MCP_ERROR_LAYERS_* variables; the row opens its client, makes the call,
//     closes the client, and the [Observation] goes to stdout as the one JSON line.
//   - Persistent (MCP_ERROR_LAYERS_MODE=persistent): announce {"persistent": 1, "concurrent":
//     16, "name": ..., "version": ...}, then serve every request line as it comes, many at once,
//     each answered with one line that carries its request's id. The calls of a case run on one
//     client (docs/adapters.md, "One client per case"): opened at the case's first call, kept by
//     the request's `client` id, closed after call `calls - 1`. Stdin closing means no more
//     calls: the calls in flight finish, the clients kept between calls are closed, then the
//     process exits.
//
// Each client lives on a goroutine of its own (serve.go), which opens it and makes its calls one
// after another as they come, so that what its SDK runs in the background (a session's reader,
// a GET stream) goes on between the calls as it does in an application.
//
// Errors: Go has no exception groups. An SDK returns one error value, and what an application
// branches on is what errors.As and errors.Is find in its chain (%w wrapping and errors.Join
// included): that is the documented surface a row maps. Its text goes to `detail`
// ([Describe]).
//
// Everything else goes to stderr. Calls at once share it: [Call.Note] prefixes each line with
// the id of the request it belongs to, `[7] ...`.
package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxDetail is how many characters of the SDK's own text `detail` keeps (whitespace collapsed).
const MaxDetail = 600

// NoTasks is what an adapter that makes no task calls says to a call that asks for a task.
const NoTasks = "this adapter uses no task API of its client, so it cannot run a call as a task (docs/adapters.md, \"Tasks\")"

// NoStdio is what a row that drives its client over HTTP only says to a stdio call.
const NoStdio = "this adapter drives its client over HTTP only, so it cannot make a call over stdio (docs/adapters.md; the stdio transport)"

// Call is one call the runner asks for.
type Call struct {
	// Transport is how the client reaches the server: "http" (Endpoint) or "stdio" (Command).
	Transport string
	// Endpoint is the MCP endpoint URL over HTTP; empty over stdio.
	Endpoint string
	// Command is the stdio server's command line, program first (an absolute path); nil over
	// HTTP. The client starts it with its SDK's own stdio client.
	Command []string
	Tool    string
	// Arguments of the tool call (an empty map when none).
	Arguments map[string]any
	// ProtocolVersion is the version the client should prefer (docs/adapters.md).
	ProtocolVersion string
	// Timeout is the client's own timeout for the call.
	Timeout time.Duration
	// Annotations are the tool's annotations as tools/list advertises them.
	Annotations map[string]any
	// ListTools: list the tools first, as an application does to learn the tool's schemas.
	ListTools bool
	// Task is the task the application asks for ({} or {"ttl_ms": N}); nil for an ordinary call.
	Task map[string]any
	// Auth is the client's start credentials in an authorization case; nil otherwise
	// ([Call.Credentials] reads them).
	Auth map[string]any
	// Client names the client the call runs on (the same for every call of a case); nil for a
	// call with a client of its own (one-shot mode).
	Client *uint64
	// Index is this call's place among the client's calls, from 0.
	Index uint64
	// Calls is how many calls the client makes: it is closed after call Calls-1.
	Calls uint64
	// ID is the persistent request's id (nil in one-shot mode): the prefix of its stderr lines.
	ID *uint64
}

// IsLast says whether the client is closed after this call.
func (c *Call) IsLast() bool { return c.Index+1 >= c.Calls }

// Note writes a line to stderr, prefixed with the call's request id in persistent mode (calls
// at once share stderr).
func (c *Call) Note(format string, args ...any) {
	var id *uint64
	if c != nil {
		id = c.ID
	}
	note(id, fmt.Sprintf(format, args...))
}

// Credentials reads the call's start credentials; nil outside an authorization case.
func (c *Call) Credentials() (*Credentials, error) {
	if c.Auth == nil {
		return nil, nil
	}
	return CredentialsFrom(c.Auth)
}

var stderrLock sync.Mutex

// note writes text to stderr, each line prefixed `[id] ` when id is set, in one write.
func note(id *uint64, text string) {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if id != nil {
			fmt.Fprintf(&b, "[%d] ", *id)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	stderrLock.Lock()
	defer stderrLock.Unlock()
	_, _ = os.Stderr.WriteString(b.String())
}

// Note writes a line to stderr that belongs to no call.
func Note(format string, args ...any) { note(nil, fmt.Sprintf(format, args...)) }

// lookup reads one variable of a one-shot call; ok is false when it is not set.
type lookup func(name string) (value string, ok bool)

// callFromVars reads a one-shot call from its variables, with last the last argument (the
// endpoint URL, or the word stdio).
func callFromVars(last string, get lookup) (*Call, error) {
	number := func(name string, fallback uint64) (uint64, error) {
		text, ok := get(name)
		if !ok {
			return fallback, nil
		}
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", name, err)
		}
		return n, nil
	}
	object := func(name string) (map[string]any, error) {
		text, ok := get(name)
		if !ok {
			return map[string]any{}, nil
		}
		var value map[string]any
		if err := json.Unmarshal([]byte(text), &value); err != nil || value == nil {
			return nil, fmt.Errorf("%s is not a JSON object: %s", name, text)
		}
		return value, nil
	}
	call := &Call{}
	switch transport, _ := get("MCP_ERROR_LAYERS_TRANSPORT"); transport {
	case "", "http":
		if !isURL(last) {
			return nil, fmt.Errorf("the last argument %q is no endpoint URL (http:// or https://)", last)
		}
		call.Transport, call.Endpoint = "http", last
	case "stdio":
		if last != "stdio" {
			return nil, fmt.Errorf("MCP_ERROR_LAYERS_TRANSPORT is stdio but the last argument is %q, not the word stdio", last)
		}
		text, ok := get("MCP_ERROR_LAYERS_STDIO_COMMAND")
		if !ok {
			return nil, errors.New("MCP_ERROR_LAYERS_STDIO_COMMAND is not set")
		}
		var value any
		if err := json.Unmarshal([]byte(text), &value); err != nil {
			return nil, fmt.Errorf("MCP_ERROR_LAYERS_STDIO_COMMAND is not JSON: %v", err)
		}
		command, err := commandOf("MCP_ERROR_LAYERS_STDIO_COMMAND", value)
		if err != nil {
			return nil, err
		}
		call.Transport, call.Command = "stdio", command
	default:
		return nil, fmt.Errorf("MCP_ERROR_LAYERS_TRANSPORT %q is neither http nor stdio", transport)
	}
	var ok bool
	var err error
	if call.Tool, ok = get("MCP_ERROR_LAYERS_TOOL"); !ok {
		return nil, errors.New("MCP_ERROR_LAYERS_TOOL is not set")
	}
	if call.Arguments, err = object("MCP_ERROR_LAYERS_ARGUMENTS"); err != nil {
		return nil, err
	}
	if call.ProtocolVersion, ok = get("MCP_ERROR_LAYERS_PROTOCOL_VERSION"); !ok {
		call.ProtocolVersion = "2026-07-28"
	}
	ms, err := number("MCP_ERROR_LAYERS_TIMEOUT_MS", 5000)
	if err != nil {
		return nil, err
	}
	call.Timeout = time.Duration(max(ms, 1)) * time.Millisecond
	if call.Annotations, err = object("MCP_ERROR_LAYERS_TOOL_ANNOTATIONS"); err != nil {
		return nil, err
	}
	list, _ := get("MCP_ERROR_LAYERS_LIST_TOOLS")
	call.ListTools = list == "1"
	if _, ok := get("MCP_ERROR_LAYERS_TASK"); ok {
		if call.Task, err = object("MCP_ERROR_LAYERS_TASK"); err != nil {
			return nil, err
		}
	}
	if _, ok := get("MCP_ERROR_LAYERS_AUTH"); ok {
		if call.Auth, err = object("MCP_ERROR_LAYERS_AUTH"); err != nil {
			return nil, err
		}
	}
	if call.Index, err = number("MCP_ERROR_LAYERS_CALL_INDEX", 0); err != nil {
		return nil, err
	}
	if call.Calls, err = number("MCP_ERROR_LAYERS_CALLS", 1); err != nil {
		return nil, err
	}
	call.Calls = max(call.Calls, 1)
	return call, nil
}

// callFromRequest reads a persistent request line, parsed.
func callFromRequest(request map[string]any) (*Call, error) {
	text := func(key string) (string, error) {
		if value, ok := request[key].(string); ok {
			return value, nil
		}
		return "", fmt.Errorf("request key %q is not a string: %s", key, show(request[key]))
	}
	object := func(key string) (map[string]any, error) {
		switch value := request[key].(type) {
		case nil:
			return nil, nil
		case map[string]any:
			return value, nil
		default:
			return nil, fmt.Errorf("request key %q is not an object: %s", key, show(value))
		}
	}
	number := func(key string, fallback uint64) (uint64, error) {
		switch value := request[key].(type) {
		case nil:
			return fallback, nil
		case float64:
			if value >= 0 && value == float64(uint64(value)) {
				return uint64(value), nil
			}
		}
		return 0, fmt.Errorf("request key %q is not a count: %s", key, show(request[key]))
	}
	call := &Call{}
	var err error
	switch transport := request["transport"].(type) {
	case nil:
		call.Transport = "http"
	case string:
		if transport != "http" && transport != "stdio" {
			return nil, fmt.Errorf("request key \"transport\" is neither \"http\" nor \"stdio\": %s", show(transport))
		}
		call.Transport = transport
	default:
		return nil, fmt.Errorf("request key \"transport\" is neither \"http\" nor \"stdio\": %s", show(transport))
	}
	if call.Transport == "http" {
		if call.Endpoint, err = text("endpoint"); err != nil {
			return nil, err
		}
	} else {
		if endpoint, ok := request["endpoint"]; ok && endpoint != nil {
			return nil, fmt.Errorf("a stdio request has an endpoint (%s); it should be null", show(endpoint))
		}
		value, ok := request["command"]
		if !ok {
			return nil, errors.New("a stdio request has no \"command\"")
		}
		if call.Command, err = commandOf("request key \"command\"", value); err != nil {
			return nil, err
		}
	}
	if call.Tool, err = text("tool"); err != nil {
		return nil, err
	}
	if call.Arguments, err = object("arguments"); err != nil {
		return nil, err
	}
	if call.Arguments == nil {
		call.Arguments = map[string]any{}
	}
	if call.ProtocolVersion, err = text("protocol_version"); err != nil {
		return nil, err
	}
	ms, err := number("timeout_ms", 5000)
	if err != nil {
		return nil, err
	}
	call.Timeout = time.Duration(max(ms, 1)) * time.Millisecond
	if call.Annotations, err = object("annotations"); err != nil {
		return nil, err
	}
	if call.Annotations == nil {
		call.Annotations = map[string]any{}
	}
	call.ListTools = request["list_tools"] == true
	if call.Task, err = object("task"); err != nil {
		return nil, err
	}
	if call.Auth, err = object("auth"); err != nil {
		return nil, err
	}
	if request["client"] != nil {
		client, err := number("client", 0)
		if err != nil {
			return nil, err
		}
		call.Client = &client
	}
	if call.Index, err = number("call", 0); err != nil {
		return nil, err
	}
	if call.Calls, err = number("calls", 1); err != nil {
		return nil, err
	}
	call.Calls = max(call.Calls, 1)
	return call, nil
}

// commandOf reads a stdio command: a JSON array of strings, the program first (not empty).
func commandOf(what string, value any) ([]string, error) {
	items, ok := value.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a JSON array of strings: %s", what, show(value))
	}
	words := make([]string, 0, len(items))
	for _, item := range items {
		word, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("%s is not a JSON array of strings: %s", what, show(value))
		}
		words = append(words, word)
	}
	if len(words) == 0 || words[0] == "" {
		return nil, fmt.Errorf("%s names no program: %s", what, show(value))
	}
	return words, nil
}

func isURL(word string) bool {
	return strings.HasPrefix(word, "http://") || strings.HasPrefix(word, "https://")
}

// show is a value as JSON text, for messages.
func show(value any) string {
	text, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	return string(text)
}

// Observation is one observation, as the contract prints it: an outcome (with its status,
// code and detail), or Unsupported.
type Observation struct {
	Outcome string
	Status  *int
	Code    *int64
	Detail  string
	// Unsupported, when set, says why the adapter cannot run this call (a skip, never a pass);
	// the other fields are then not printed.
	Unsupported string
}

// Observe is an observation of outcome with the client's own words as its detail (whitespace
// collapsed, cut at MaxDetail characters).
func Observe(outcome, detail string) Observation {
	return Observation{Outcome: outcome, Detail: Tidy(detail)}
}

// Unsupported is the answer to a call the adapter cannot run.
func Unsupported(why string) Observation { return Observation{Unsupported: why} }

// WithStatus sets the HTTP status the client saw.
func (o Observation) WithStatus(status int) Observation { o.Status = &status; return o }

// WithCode sets the JSON-RPC error code.
func (o Observation) WithCode(code int64) Observation { o.Code = &code; return o }

// Line is the contract's JSON line (one-shot mode).
func (o Observation) Line() string { return o.answerLine(nil) }

func (o Observation) answerLine(id *uint64) string {
	var b strings.Builder
	b.WriteByte('{')
	if id != nil {
		fmt.Fprintf(&b, `"id": %d, `, *id)
	}
	if o.Unsupported != "" {
		fmt.Fprintf(&b, `"unsupported": %s}`, quote(o.Unsupported))
		return b.String()
	}
	status, code := "null", "null"
	if o.Status != nil {
		status = strconv.Itoa(*o.Status)
	}
	if o.Code != nil {
		code = strconv.FormatInt(*o.Code, 10)
	}
	fmt.Fprintf(&b, `"outcome": %s, "status": %s, "code": %s, "detail": %s}`, quote(o.Outcome), status, code, quote(o.Detail))
	return b.String()
}

func quote(text string) string {
	data, _ := json.Marshal(text)
	return string(data)
}

// Tidy collapses whitespace and cuts text at MaxDetail characters (with an ellipsis).
func Tidy(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= MaxDetail {
		return text
	}
	return string([]rune(text)[:MaxDetail]) + "…"
}

// Step is an error a row's client returned, with the step it came from ("connect",
// "initialize", "tools/call"): its text names the step and the error's types (Describe), and
// errors.As still reaches the client's own error through it.
type Step struct {
	Name string
	Err  error
}

func (s Step) Error() string { return s.Name + ": " + Describe(s.Err) }
func (s Step) Unwrap() error { return s.Err }

// Describe is an error as text: its message, then the types in its chain (what errors.As
// finds), outermost first, as `message [*url.Error <- *net.OpError]`. A joined error
// (errors.Join, an Unwrap() []error) names every error it holds. Wrappers that add nothing but
// text (fmt's) are left out of the types.
func Describe(err error) string {
	if err == nil {
		return "<nil>"
	}
	var types []string
	var walk func(error, int)
	walk = func(e error, depth int) {
		if e == nil || depth > 8 || len(types) >= 8 {
			return
		}
		name := reflect.TypeOf(e).String()
		if name != "*fmt.wrapError" && name != "*fmt.wrapErrors" && name != "*errors.errorString" && name != "*errors.joinError" {
			types = append(types, name)
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap(), depth+1)
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner, depth+1)
			}
		}
	}
	walk(err, 0)
	text := err.Error()
	if joined, ok := err.(interface{ Unwrap() []error }); ok && reflect.TypeOf(err).String() == "*errors.joinError" {
		parts := []string{}
		for _, inner := range joined.Unwrap() {
			if inner != nil {
				parts = append(parts, inner.Error())
			}
		}
		text = fmt.Sprintf("%d errors joined: %s", len(parts), strings.Join(parts, " | "))
	}
	if len(types) == 0 {
		return text
	}
	return fmt.Sprintf("%s [%s]", text, strings.Join(types, " <- "))
}
