// Tests of the Go contract: `go test` in this folder (`cargo test --test adapter_scripts` runs
// them). The same ground as test_contract.mjs covers for contract.mjs: a one-shot call and a
// request line over HTTP and stdio, credentials in both modes, an error and what it holds,
// one client per case through a fault, and whole runs of an echo row in both modes.
package contract

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var server = []string{"/usr/bin/mcp-error-layers", "stdio-server", "--session", "/tmp/mcp-error-layers-stdio-1/session.json"}

func serverJSON() string { data, _ := json.Marshal(server); return string(data) }

// vars is a one-shot environment: the tool and timeout, beside extra.
func vars(extra map[string]string) lookup {
	all := map[string]string{"MCP_ERROR_LAYERS_TOOL": "synthetic", "MCP_ERROR_LAYERS_TIMEOUT_MS": "1500"}
	for k, v := range extra {
		all[k] = v
	}
	return func(name string) (string, bool) { v, ok := all[name]; return v, ok }
}

func mustContain(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want an error containing %q, got %v", want, err)
	}
}

func TestAOneShotCallOverHTTPIsTheURLLastWithOrWithoutTheTransportVariable(t *testing.T) {
	for _, extra := range []map[string]string{{}, {"MCP_ERROR_LAYERS_TRANSPORT": "http"}} {
		call, err := callFromVars("http://127.0.0.1:4000/mcp", vars(extra))
		if err != nil {
			t.Fatal(err)
		}
		if call.Transport != "http" || call.Endpoint != "http://127.0.0.1:4000/mcp" || call.Command != nil || call.Timeout != 1500*time.Millisecond {
			t.Fatalf("%+v", call)
		}
		if call.Client != nil || !call.IsLast() || call.Auth != nil || call.Task != nil {
			t.Fatalf("%+v", call)
		}
	}
	_, err := callFromVars("stdio", vars(nil))
	mustContain(t, err, "no endpoint URL")
}

func TestAnAuthorizationCallCarriesItsCredentialsInBothModesAndEveryOtherCallNone(t *testing.T) {
	auth := `{"access_token": "mel_at_1_0123456789abcdef", "refresh_token": null, "expires_in": 3600, "expires_at": 1796650000, "scope": "mcp:tools mcp:write", "client_id": "mel-client", "client_secret": null, "authorization_server": "http://127.0.0.1:4100", "redirect_uri": "http://127.0.0.1:4100/callback"}`
	call, err := callFromVars("http://127.0.0.1:4000/mcp", vars(map[string]string{"MCP_ERROR_LAYERS_AUTH": auth}))
	if err != nil {
		t.Fatal(err)
	}
	credentials, err := call.Credentials()
	if err != nil || credentials.AccessToken != "mel_at_1_0123456789abcdef" || credentials.RefreshToken != "" || *credentials.ExpiresAt != 1796650000 {
		t.Fatalf("%v %v", credentials, err)
	}
	if got := credentials.Scopes(); !reflect.DeepEqual(got, []string{"mcp:tools", "mcp:write"}) {
		t.Fatal(got)
	}
	if !credentials.Expiry().Equal(time.Unix(1796650000, 0)) {
		t.Fatal(credentials.Expiry())
	}
	if shown := fmt.Sprintf("%v %#v %+v", credentials, credentials, credentials); strings.Contains(shown, "mel_at_1") {
		t.Fatalf("a token is shown: %s", shown)
	}
	plain, _ := callFromVars("http://127.0.0.1:4000/mcp", vars(nil))
	if none, err := plain.Credentials(); none != nil || err != nil {
		t.Fatal(none, err)
	}
	line := `{"endpoint": "http://127.0.0.1:1/mcp", "tool": "t", "arguments": {}, "protocol_version": "2025-11-25", "timeout_ms": 400`
	for _, tc := range []struct {
		text string
		auth bool
	}{{line + "}", false}, {line + `, "auth": null}`, false}, {line + `, "auth": ` + auth + "}", true}} {
		var request map[string]any
		_ = json.Unmarshal([]byte(tc.text), &request)
		call, err := callFromRequest(request)
		if err != nil || (call.Auth != nil) != tc.auth {
			t.Fatalf("%s: %+v %v", tc.text, call, err)
		}
	}
	_, err = CredentialsFrom(map[string]any{"access_token": "t"})
	mustContain(t, err, "client_id")
	_, err = CredentialsFrom(map[string]any{"client_id": "c", "expires_in": "soon"})
	mustContain(t, err, "not a whole number")
}

func TestAOneShotCallOverStdioHasTheCommandFromItsVariableAndTheWordStdioLast(t *testing.T) {
	call, err := callFromVars("stdio", vars(map[string]string{
		"MCP_ERROR_LAYERS_TRANSPORT": "stdio", "MCP_ERROR_LAYERS_STDIO_COMMAND": serverJSON(),
		"MCP_ERROR_LAYERS_CALL_INDEX": "1", "MCP_ERROR_LAYERS_CALLS": "2",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if call.Transport != "stdio" || call.Endpoint != "" || !reflect.DeepEqual(call.Command, server) || call.Tool != "synthetic" || !call.IsLast() {
		t.Fatalf("%+v", call)
	}
}

func TestAOneShotStdioCallWithoutAUsableCommandIsRefusedWithItsReason(t *testing.T) {
	stdio := func(command *string, last string) error {
		extra := map[string]string{"MCP_ERROR_LAYERS_TRANSPORT": "stdio"}
		if command != nil {
			extra["MCP_ERROR_LAYERS_STDIO_COMMAND"] = *command
		}
		_, err := callFromVars(last, vars(extra))
		return err
	}
	text := func(s string) *string { return &s }
	mustContain(t, stdio(nil, "stdio"), "MCP_ERROR_LAYERS_STDIO_COMMAND is not set")
	mustContain(t, stdio(text("/bin/server --flag"), "stdio"), "is not JSON")
	mustContain(t, stdio(text(`{"command": "x"}`), "stdio"), "not a JSON array")
	mustContain(t, stdio(text(`["/bin/server", 1]`), "stdio"), "not a JSON array")
	mustContain(t, stdio(text(`[]`), "stdio"), "names no program")
	mustContain(t, stdio(text(`[""]`), "stdio"), "names no program")
	mustContain(t, stdio(text(serverJSON()), "http://127.0.0.1:1/mcp"), "not the word stdio")
	_, err := callFromVars("stdio", vars(map[string]string{"MCP_ERROR_LAYERS_TRANSPORT": "websocket"}))
	mustContain(t, err, "neither http nor stdio")
}

// request is a persistent request line's fields, beside extra.
func request(extra map[string]any) map[string]any {
	line := map[string]any{"tool": "synthetic", "arguments": map[string]any{}, "protocol_version": "2025-11-25", "timeout_ms": 1500.0, "annotations": map[string]any{}, "list_tools": false, "client": 3.0, "call": 0.0, "calls": 2.0}
	for k, v := range extra {
		if v == "<absent>" {
			delete(line, k)
		} else {
			line[k] = v
		}
	}
	// Through JSON, as the runner sends it.
	data, _ := json.Marshal(line)
	var parsed map[string]any
	_ = json.Unmarshal(data, &parsed)
	return parsed
}

func TestAPersistentRequestNamesItsTransport(t *testing.T) {
	for _, extra := range []map[string]any{{"endpoint": "http://127.0.0.1:4000/mcp"}, {"transport": "http", "endpoint": "http://127.0.0.1:4000/mcp"}} {
		call, err := callFromRequest(request(extra))
		if err != nil || call.Transport != "http" || call.Endpoint != "http://127.0.0.1:4000/mcp" || call.Command != nil {
			t.Fatalf("%+v %v", call, err)
		}
	}
	call, err := callFromRequest(request(map[string]any{"transport": "stdio", "command": server, "endpoint": nil, "list_tools": true, "arguments": map[string]any{"n": 1}}))
	if err != nil || call.Transport != "stdio" || call.Endpoint != "" || !reflect.DeepEqual(call.Command, server) || !call.ListTools || call.Arguments["n"] != 1.0 {
		t.Fatalf("%+v %v", call, err)
	}
	if *call.Client != 3 || call.Index != 0 || call.Calls != 2 || call.IsLast() {
		t.Fatalf("%+v", call)
	}
	// endpoint may also be left out.
	if call, err := callFromRequest(request(map[string]any{"transport": "stdio", "command": server})); err != nil || call.Transport != "stdio" {
		t.Fatal(call, err)
	}
	_, err = callFromRequest(request(map[string]any{"transport": "http", "endpoint": nil}))
	mustContain(t, err, `"endpoint" is not a string`)
	_, err = callFromRequest(request(map[string]any{"transport": "stdio", "endpoint": nil}))
	mustContain(t, err, `no "command"`)
	_, err = callFromRequest(request(map[string]any{"transport": "stdio", "command": "/bin/server"}))
	mustContain(t, err, "not a JSON array")
	_, err = callFromRequest(request(map[string]any{"transport": "stdio", "command": []any{}}))
	mustContain(t, err, "names no program")
	_, err = callFromRequest(request(map[string]any{"transport": "stdio", "command": server, "endpoint": "http://127.0.0.1:1/mcp"}))
	mustContain(t, err, "should be null")
	_, err = callFromRequest(request(map[string]any{"transport": "pipe", "endpoint": nil}))
	mustContain(t, err, "neither")
	_, err = callFromRequest(request(map[string]any{"transport": 1, "command": server}))
	mustContain(t, err, "neither")
	_, err = callFromRequest(request(map[string]any{"endpoint": "http://127.0.0.1:1/mcp", "client": -1}))
	mustContain(t, err, "not a count")
}

func TestAnObservationLineHasTheContractsKeysAndATidyDetail(t *testing.T) {
	seen := Observe("HTTP_ERROR", "  Service\n\tUnavailable  ").WithStatus(503).WithCode(-32000)
	if got := seen.Line(); got != `{"outcome": "HTTP_ERROR", "status": 503, "code": -32000, "detail": "Service Unavailable"}` {
		t.Fatal(got)
	}
	id := uint64(7)
	if got := Unsupported("no \"stdio\"").answerLine(&id); got != `{"id": 7, "unsupported": "no \"stdio\""}` {
		t.Fatal(got)
	}
	if got := Observe("TIMEOUT", "").Line(); got != `{"outcome": "TIMEOUT", "status": null, "code": null, "detail": ""}` {
		t.Fatal(got)
	}
	long := Observe("TOOL_SUCCESS", strings.Repeat("é", 700)).Detail
	if n := len([]rune(long)); n != MaxDetail+1 || !strings.HasSuffix(long, "…") {
		t.Fatal(n)
	}
}

func TestDescribeNamesTheTypesInAnErrorsChainAndEveryErrorAJoinHolds(t *testing.T) {
	op := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	wrapped := fmt.Errorf("calling %q: %w", "tools/call", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: op})
	if got := Describe(wrapped); got != `calling "tools/call": Post "http://127.0.0.1:1/mcp": dial tcp: connection refused [*url.Error <- *net.OpError]` {
		t.Fatal(got)
	}
	joined := errors.Join(context.DeadlineExceeded, errors.New("cancel not sent"))
	if got := Describe(joined); got != "2 errors joined: context deadline exceeded | cancel not sent [context.deadlineExceededError]" {
		t.Fatal(got)
	}
	// What an application finds with errors.As and errors.Is, a row finds too.
	var opError *net.OpError
	if !errors.As(wrapped, &opError) || !errors.Is(joined, context.DeadlineExceeded) {
		t.Fatal("errors.As / errors.Is")
	}
	if Describe(nil) != "<nil>" {
		t.Fatal(Describe(nil))
	}
}

// countingRow is a row whose client counts its opens and calls; arguments.fail fails the call,
// arguments.refuse the open, arguments.panic panics in the call.
type countingRow struct {
	mu     sync.Mutex
	opened int
	closed []int
	stdio  bool
}

type counted struct{ number, calls int }

func (r *countingRow) Refuse(call *Call) string {
	if call.Transport == "stdio" && !r.stdio {
		return NoStdio
	}
	return ""
}

func (r *countingRow) Open(_ context.Context, call *Call) (*counted, error) {
	if call.Arguments["refuse"] == true {
		return nil, errors.New("refused")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opened++
	return &counted{number: r.opened}, nil
}

func (r *countingRow) Call(_ context.Context, client *counted, call *Call) (Observation, error) {
	client.calls++
	if call.Arguments["panic"] == true {
		panic("the SDK panicked")
	}
	if call.Arguments["fail"] == true {
		return Observation{}, fmt.Errorf("call %d failed", client.calls)
	}
	how := call.Endpoint
	if call.Transport == "stdio" {
		how = strings.Join(call.Command, " ")
	}
	return Observe("TOOL_SUCCESS", fmt.Sprintf("client %d call %d %s %s", client.number, client.calls, call.Transport, how)), nil
}

func (r *countingRow) Error(err error, _ *Call) Observation {
	return Observe("UNCLASSIFIED_ERROR", err.Error())
}

func (r *countingRow) Close(client *counted) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = append(r.closed, client.number)
	return "closed", nil
}

// captured runs serve with stdout kept; returns the lines written.
func captured(t *testing.T, work func()) []string {
	t.Helper()
	var b strings.Builder
	stdoutLock.Lock()
	old := output
	output = &lockedWriter{b: &b}
	stdoutLock.Unlock()
	defer func() { stdoutLock.Lock(); output = old; stdoutLock.Unlock() }()
	work()
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

type lockedWriter struct{ b *strings.Builder }

func (w *lockedWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

// byID parses answer lines by their id.
func byID(t *testing.T, lines []string) map[uint64]map[string]any {
	t.Helper()
	found := map[uint64]map[string]any{}
	for _, line := range lines {
		var answer map[string]any
		if err := json.Unmarshal([]byte(line), &answer); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if id, ok := answer["id"].(float64); ok {
			found[uint64(id)] = answer
		}
	}
	return found
}

// persistentLines is the request lines of calls, each a map of extra fields.
func persistentLines(calls ...map[string]any) string {
	var b strings.Builder
	for _, extra := range calls {
		data, _ := json.Marshal(request(extra))
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestTheCallsOfACaseRunOnOneClientThroughAFaultAndItIsClosedAfterTheLast(t *testing.T) {
	row := &countingRow{}
	input := persistentLines(
		map[string]any{"id": 1, "endpoint": "http://127.0.0.1:1/mcp", "client": 7, "call": 0, "calls": 3},
		map[string]any{"id": 2, "endpoint": "http://127.0.0.1:1/mcp", "client": 7, "call": 1, "calls": 3, "arguments": map[string]any{"fail": true}},
		map[string]any{"id": 3, "endpoint": "http://127.0.0.1:1/mcp", "client": 7, "call": 2, "calls": 3},
	)
	lines := captured(t, func() {
		persistent[*counted](row, SDK{"echo", "0"}, Options{}, strings.NewReader(input))
	})
	var announce map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &announce); err != nil || announce["persistent"] != 1.0 || announce["concurrent"] != 16.0 || announce["name"] != "echo" {
		t.Fatal(lines[0])
	}
	answers := byID(t, lines[1:])
	want := map[uint64]string{1: "client 1 call 1 http http://127.0.0.1:1/mcp", 2: "call 2 failed", 3: "client 1 call 3 http http://127.0.0.1:1/mcp"}
	for id, detail := range want {
		if answers[id]["detail"] != detail {
			t.Fatalf("answer %d: %v", id, answers[id])
		}
	}
	if !reflect.DeepEqual(row.closed, []int{1}) {
		t.Fatal(row.closed)
	}
}

func TestAClientThatDidNotOpenIsOpenedAgainForTheNextCall(t *testing.T) {
	row := &countingRow{}
	input := persistentLines(
		map[string]any{"id": 1, "endpoint": "http://127.0.0.1:1/mcp", "client": 9, "call": 0, "calls": 2, "arguments": map[string]any{"refuse": true}},
		map[string]any{"id": 2, "endpoint": "http://127.0.0.1:1/mcp", "client": 9, "call": 1, "calls": 2},
	)
	answers := byID(t, captured(t, func() {
		persistent[*counted](row, SDK{"echo", "0"}, Options{}, strings.NewReader(input))
	})[1:])
	if answers[1]["detail"] != "refused" || answers[2]["detail"] != "client 1 call 1 http http://127.0.0.1:1/mcp" {
		t.Fatal(answers)
	}
}

func TestStdioAndHTTPRequestsSideBySideEachCaseOnItsClientABadRequestOrAPanicThatCallsFailureOnly(t *testing.T) {
	row := &countingRow{stdio: true}
	input := persistentLines(
		map[string]any{"id": 1, "transport": "stdio", "command": server, "endpoint": nil, "client": 1, "call": 0, "calls": 2},
		map[string]any{"id": 2, "endpoint": "http://127.0.0.1:4000/mcp", "client": 2, "call": 0, "calls": 1},
		map[string]any{"id": 3, "transport": "stdio", "endpoint": nil, "client": 3, "call": 0, "calls": 1},
		map[string]any{"id": 5, "endpoint": "http://127.0.0.1:4000/mcp", "client": 5, "call": 0, "calls": 1, "arguments": map[string]any{"panic": true}},
		map[string]any{"id": 6, "endpoint": "http://127.0.0.1:4000/mcp", "client": 6, "call": 0, "calls": 1, "task": map[string]any{}},
		map[string]any{"id": 4, "transport": "stdio", "command": server, "endpoint": nil, "client": 1, "call": 1, "calls": 2},
	) + "not json\n"
	lines := captured(t, func() {
		persistent[*counted](row, SDK{"echo", "0"}, Options{}, strings.NewReader(input))
	})
	answers := byID(t, lines[1:])
	stdio := "stdio " + strings.Join(server, " ")
	first, second := clientOf(answers[1]["detail"], "call 1 "+stdio), clientOf(answers[4]["detail"], "call 2 "+stdio)
	if first == "" || first != second {
		t.Fatal("the second call of the case runs on the client of its first:", answers[1], answers[4])
	}
	if !strings.HasSuffix(answers[2]["detail"].(string), "call 1 http http://127.0.0.1:4000/mcp") {
		t.Fatal(answers[2])
	}
	if !strings.Contains(fmt.Sprint(answers[3]["error"]), `no "command"`) {
		t.Fatal(answers[3])
	}
	if !strings.Contains(fmt.Sprint(answers[5]["error"]), "without an observation") {
		t.Fatal(answers[5])
	}
	if answers[6]["unsupported"] != NoTasks {
		t.Fatal(answers[6])
	}
	if !strings.Contains(strings.Join(lines, "\n"), `{"error":"the adapter failed: a request line that is no JSON object"}`) {
		t.Fatal(lines)
	}
	// A row without stdio answers a stdio call unsupported.
	refused := byID(t, captured(t, func() {
		persistent[*counted](&countingRow{}, SDK{"echo", "0"}, Options{}, strings.NewReader(persistentLines(map[string]any{"id": 1, "transport": "stdio", "command": server})))
	})[1:])
	if refused[1]["unsupported"] != NoStdio {
		t.Fatal(refused)
	}
}

// clientOf is the client number of an echo detail `client N <rest>`; "" when it is not one.
func clientOf(detail any, rest string) string {
	text, _ := detail.(string)
	number, found := strings.CutSuffix(strings.TrimPrefix(text, "client "), " "+rest)
	if !found || !strings.HasPrefix(text, "client ") {
		return ""
	}
	return number
}

// The echo row as a program: this test binary run again with CONTRACT_GO_ECHO_ROW set.
func TestMain(m *testing.M) {
	if os.Getenv("CONTRACT_GO_ECHO_ROW") == "1" {
		os.Exit(Main(SDK{"echo", "0"}, Options{Usage: "[--stdio]"}, func(args []string) (Row[*counted], error) {
			row := &countingRow{}
			for _, arg := range args {
				if arg != "--stdio" {
					return nil, fmt.Errorf("unknown argument %q", arg)
				}
				row.stdio = true
			}
			return row, nil
		}))
	}
	os.Exit(m.Run())
}

// runRow runs the echo row with args and env (without this process's MCP_ERROR_LAYERS_*
// variables), stdin input; its stdout lines.
func runRow(t *testing.T, args []string, env map[string]string, input string) []string {
	t.Helper()
	command := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCP_ERROR_LAYERS_") {
			command.Env = append(command.Env, kv)
		}
	}
	command.Env = append(command.Env, "CONTRACT_GO_ECHO_ROW=1")
	for k, v := range env {
		command.Env = append(command.Env, k+"="+v)
	}
	command.Stdin = strings.NewReader(input)
	command.Stderr = os.Stderr
	out, err := command.Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	var lines []string
	scanner := bufio.NewScanner(strings.NewReader(string(out)))
	for scanner.Scan() {
		lines = append(lines, scanner.Text())
	}
	return lines
}

func TestOneShotARowThatSpeaksStdioGetsTheCommandOneThatDoesNotAnswersUnsupported(t *testing.T) {
	env := map[string]string{"MCP_ERROR_LAYERS_TOOL": "synthetic", "MCP_ERROR_LAYERS_TRANSPORT": "stdio", "MCP_ERROR_LAYERS_STDIO_COMMAND": serverJSON()}
	speaks := runRow(t, []string{"--stdio", "stdio"}, env, "")
	if len(speaks) != 1 || !strings.Contains(speaks[0], `"detail": "client 1 call 1 stdio `+strings.Join(server, " ")+`"`) {
		t.Fatal(speaks)
	}
	refuses := runRow(t, []string{"stdio"}, env, "")
	if len(refuses) != 1 || refuses[0] != Unsupported(NoStdio).Line() {
		t.Fatal(refuses)
	}
	http := runRow(t, []string{"--stdio", "http://127.0.0.1:4000/mcp"}, map[string]string{"MCP_ERROR_LAYERS_TOOL": "synthetic"}, "")
	if len(http) != 1 || !strings.Contains(http[0], `"detail": "client 1 call 1 http http://127.0.0.1:4000/mcp"`) {
		t.Fatal(http)
	}
	if none := runRow(t, []string{"--bogus", "http://127.0.0.1:4000/mcp"}, map[string]string{"MCP_ERROR_LAYERS_TOOL": "synthetic"}, ""); len(none) != 0 {
		t.Fatal(none)
	}
}

func TestPersistentAsAProgramAnnouncesThenAnswersEachRequestByItsID(t *testing.T) {
	input := persistentLines(
		map[string]any{"id": 1, "transport": "stdio", "command": server, "endpoint": nil, "client": 1, "call": 0, "calls": 2},
		map[string]any{"id": 2, "endpoint": "http://127.0.0.1:4000/mcp", "client": 2, "call": 0, "calls": 1},
		map[string]any{"id": 3, "transport": "stdio", "command": server, "endpoint": nil, "client": 1, "call": 1, "calls": 2},
	)
	lines := runRow(t, []string{"--stdio"}, map[string]string{"MCP_ERROR_LAYERS_MODE": "persistent"}, input)
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"concurrent":16,"name":"echo","persistent":1`) {
		t.Fatal(lines)
	}
	answers := byID(t, lines[1:])
	stdio := "stdio " + strings.Join(server, " ")
	first, second := clientOf(answers[1]["detail"], "call 1 "+stdio), clientOf(answers[3]["detail"], "call 2 "+stdio)
	if first == "" || first != second || answers[2]["outcome"] != "TOOL_SUCCESS" {
		t.Fatal(answers)
	}
}
