package contract

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Concurrent is how many calls one process serves at once: the cases of a matrix row that run
// at once.
const Concurrent = 16

// NextCallWait is how long a client waits for its case's next call before it closes itself
// (the runner sends a case's calls one after another; this bounds a case it gave up on).
const NextCallWait = 120 * time.Second

// Teardown is how long a client's own close (it DELETEs a 2025 session) may take once its last
// call is observed; past that it is abandoned.
const Teardown = 2 * time.Second

// Row is how a row's SDK client is opened, called, read and closed; C is the client object an
// application keeps between its calls. The contract keeps one client per case
// (docs/adapters.md, "One client per case"):
//
//   - the case's first call opens it ([Row.Open]); a failed open is that call's observation
//     ([Row.Error]), nothing is kept, and the next call opens one again, as an application
//     that never got a client tries again;
//   - every call of the case goes through it ([Row.Call]); an error the call returns is the
//     application's to handle, mapped by [Row.Error], and the client stays: whatever state a
//     fault left it in, the next call goes through the same object. The contract never reopens
//     a client on its own;
//   - after the case's last call it is closed ([Row.Close], for at most [Teardown]) before that
//     call's answer goes out, so that what closing sends (a session's DELETE) is in the call's
//     record.
//
// ctx is the client's own context: cancelled once the client is closed (after Close returns or
// is abandoned), never while it is in use. A row bounds each call itself (the call's Timeout).
type Row[C any] interface {
	// Refuse says why the row cannot make call (a transport its SDK has no client for), or ""
	// for every call it can make: a refused call is answered unsupported before any client is
	// opened for it.
	Refuse(call *Call) string
	// Open opens the client for call, as an application does before its first call: connects
	// (over stdio: starts the server's command with the SDK's stdio client) and makes the
	// handshake the SDK leaves to it. On failure it closes what it made.
	Open(ctx context.Context, call *Call) (C, error)
	// Call makes call on the open client and returns its observation, or the error the SDK
	// returned for [Row.Error] to map.
	Call(ctx context.Context, client C, call *Call) (Observation, error)
	// Error is the observation of an error the application got from Open or Call.
	Error(err error, call *Call) Observation
	// Close closes the client after the case's last call: how it ended, or what went wrong
	// (both go to stderr; the observation stands either way).
	Close(client C) (string, error)
}

// SDK is the SDK as its registry names it and its pinned version, for the announcement.
type SDK struct {
	Name    string
	Version string
}

// Options says what a row's program takes besides its calls.
type Options struct {
	// Usage is the synopsis of the row's own arguments, for the usage line.
	Usage string
	// Tasks: the row runs task calls itself; without it a call that asks for a task is answered
	// unsupported ([NoTasks]) without the row.
	Tasks bool
}

// Main runs an adapter in the mode the runner asked for and returns its exit status (pass it
// to os.Exit). prepare gets the row's own arguments (one-shot: those before the endpoint URL;
// persistent: all of them) and returns the row, or an error for arguments it does not take.
func Main[C any](sdk SDK, options Options, prepare func(args []string) (Row[C], error)) int {
	return run(os.Args, os.LookupEnv, os.Stdin, sdk, options, prepare)
}

func run[C any](argv []string, get lookup, stdin io.Reader, sdk SDK, options Options, prepare func([]string) (Row[C], error)) int {
	usage := usageLine(argv, options.Usage)
	if mode, _ := get("MCP_ERROR_LAYERS_MODE"); mode == "persistent" {
		row, err := prepare(argv[1:])
		if err != nil {
			return fail(fmt.Sprintf("%v; %s", err, usage))
		}
		persistent(row, sdk, options, stdin)
		return 0
	}
	if len(argv) < 2 {
		return fail(usage)
	}
	last := argv[len(argv)-1]
	call, err := callFromVars(last, get)
	if err != nil {
		return fail(fmt.Sprintf("%v; %s", err, usage))
	}
	row, err := prepare(argv[1 : len(argv)-1])
	if err != nil {
		return fail(fmt.Sprintf("%v; %s", err, usage))
	}
	if refused := refusal(row, call, options); refused != nil {
		writeLine(refused.Line())
		return 0
	}
	jobs := make(chan job, 1)
	jobs <- job{call: call, answer: newAnswer(nil), closes: true}
	close(jobs)
	keep(row, jobs)
	return 0
}

// refusal is the unsupported answer to a task call of a row without tasks, or to a call the row
// refuses; nil for a call the row makes.
func refusal[C any](row Row[C], call *Call, options Options) *Observation {
	if call.Task != nil && !options.Tasks {
		refused := Unsupported(NoTasks)
		return &refused
	}
	if why := row.Refuse(call); why != "" {
		refused := Unsupported(why)
		return &refused
	}
	return nil
}

// job is one call for a client, and where its observation goes.
type job struct {
	call   *Call
	answer *answer
	// closes: close the client after this call (its case's last, or a call with a client of
	// its own).
	closes bool
}

// keep serves one client's calls as they come from jobs: opens it for the first (and again
// after an open that failed), closes it after the one that closes, or when no next call comes
// within NextCallWait.
func keep[C any](row Row[C], jobs <-chan job) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var client C
	open := false
	wait := time.Duration(0)
	for {
		next, ok := receive(jobs, wait)
		if !ok {
			break
		}
		wait = NextCallWait
		call := next.call
		var seen Observation
		if open {
			seen = one(ctx, row, client, call)
		} else if opened, err := guard(call, func() (C, error) { return row.Open(ctx, call) }); err != nil {
			if !next.closes {
				call.Note("the client did not open: the next call opens one again")
			}
			seen = mapped(row, err, call)
		} else {
			client, open = opened, true
			seen = one(ctx, row, client, call)
		}
		if next.closes {
			if open {
				closeClient(row, client, call)
				open = false
			}
			next.answer.send(seen)
			return
		}
		next.answer.send(seen)
	}
	if open {
		closeClient(row, client, nil)
	}
}

// receive is the next job; false when no more come (the channel closed) or when wait passes
// first (wait 0: no bound).
func receive(jobs <-chan job, wait time.Duration) (job, bool) {
	if wait == 0 {
		next, ok := <-jobs
		return next, ok
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case next, ok := <-jobs:
		return next, ok
	case <-timer.C:
		Note("no next call within %v: the client is closed", wait)
		return job{}, false
	}
}

// one is a call on the open client; an error it returns is the application's to handle.
func one[C any](ctx context.Context, row Row[C], client C, call *Call) Observation {
	var seen Observation
	_, err := guard(call, func() (struct{}, error) {
		var err error
		seen, err = row.Call(ctx, client, call)
		return struct{}{}, err
	})
	if err != nil {
		return mapped(row, err, call)
	}
	return seen
}

// mapped is the row's observation of err; a panic is none (an empty outcome, which answer.send
// turns into an error line).
func mapped[C any](row Row[C], err error, call *Call) Observation {
	if _, ok := err.(panicked); ok {
		return Observation{}
	}
	return row.Error(err, call)
}

// panicked is a panic in a row or its SDK, recovered: the call gets no observation (the
// runner's adapter-error), and the process goes on serving the others.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// guard runs work, turning a panic into a [panicked] error: the call is answered with an error
// line (no observation), and the process goes on serving the others.
func guard[T any](call *Call, work func() (T, error)) (result T, err error) {
	defer func() {
		if value := recover(); value != nil {
			call.Note("panicked: %v\n%s", value, debug.Stack())
			err = panicked{value}
		}
	}()
	return work()
}

// closeClient closes the client, for at most Teardown.
func closeClient[C any](row Row[C], client C, call *Call) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if value := recover(); value != nil {
				call.Note("close panicked: %v", value)
			}
		}()
		how, err := row.Close(client)
		if err != nil {
			call.Note("close failed: %v", err)
		} else {
			call.Note("close: %s", how)
		}
	}()
	select {
	case <-done:
	case <-time.After(Teardown):
		call.Note("close took longer than %v; abandoned", Teardown)
	}
}

// persistent serves request lines until stdin closes.
func persistent[C any](row Row[C], sdk SDK, options Options, stdin io.Reader) {
	announce, _ := json.Marshal(map[string]any{"persistent": 1, "concurrent": Concurrent, "name": sdk.Name, "version": sdk.Version})
	writeLine(string(announce))
	clients := newClients(row)
	lines := bufio.NewReader(stdin)
	for {
		line, err := lines.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			serveLine(row, clients, line, options)
		}
		if err != nil {
			if err != io.EOF {
				Note("cannot read stdin: %v", err)
			}
			break
		}
	}
	// No more calls: those in flight finish, the clients kept for a next call are closed.
	clients.closeAll()
}

// serveLine sends a request line's call to the client it names (answered there), or answers
// it here when it cannot be made.
func serveLine[C any](row Row[C], clients *clients[C], line string, options Options) {
	var request map[string]any
	if err := json.Unmarshal([]byte(line), &request); err != nil || request == nil {
		Note("adapter error: a request line that is no JSON object: %s", strings.TrimSpace(line))
		newAnswer(nil).fail("a request line that is no JSON object")
		return
	}
	var id *uint64
	if number, ok := request["id"].(float64); ok && number >= 0 {
		n := uint64(number)
		id = &n
	}
	reply := newAnswer(id)
	call, err := callFromRequest(request)
	if err != nil {
		note(id, "adapter error: "+err.Error())
		reply.fail(err.Error())
		return
	}
	call.ID = id
	if refused := refusal(row, call, options); refused != nil {
		// The runner ends a case at an unsupported call: its client goes.
		clients.forget(call.Client)
		reply.send(*refused)
		return
	}
	clients.submit(job{call: call, answer: reply, closes: call.Client == nil || call.IsLast()})
}

// maxClients is the most clients one process keeps between calls: the runner takes each back
// at its case's next call, so this bounds only clients whose case the runner gave up on.
const maxClients = 1024

// clients are the clients of a persistent process: the job channel of each client's goroutine,
// by the `client` id its requests carry.
type clients[C any] struct {
	row  Row[C]
	mu   sync.Mutex
	kept map[uint64]chan job
	all  sync.WaitGroup
}

func newClients[C any](row Row[C]) *clients[C] {
	return &clients[C]{row: row, kept: map[uint64]chan job{}}
}

// submit sends a job to its client's goroutine, starting one for a client not yet kept.
func (cs *clients[C]) submit(next job) {
	if next.call.Client == nil {
		jobs := make(chan job, 1)
		jobs <- next
		close(jobs)
		cs.start(jobs)
		return
	}
	id := *next.call.Client
	cs.mu.Lock()
	jobs, ok := cs.kept[id]
	if !ok {
		if len(cs.kept) >= maxClients {
			for old, waiting := range cs.kept {
				close(waiting)
				delete(cs.kept, old)
				break
			}
		}
		jobs = make(chan job, 64)
		cs.kept[id] = jobs
		cs.start(jobs)
	}
	if next.closes {
		delete(cs.kept, id)
	}
	cs.mu.Unlock()
	jobs <- next
	if next.closes {
		close(jobs)
	}
}

func (cs *clients[C]) start(jobs chan job) {
	cs.all.Add(1)
	go func() {
		defer cs.all.Done()
		keep(cs.row, jobs)
	}()
}

// forget lets a client go (closed by its goroutine) without a further call.
func (cs *clients[C]) forget(client *uint64) {
	if client == nil {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if jobs, ok := cs.kept[*client]; ok {
		close(jobs)
		delete(cs.kept, *client)
	}
}

// closeAll lets every kept client go and waits for every goroutine: the calls in flight finish,
// each kept client is closed.
func (cs *clients[C]) closeAll() {
	cs.mu.Lock()
	for id, jobs := range cs.kept {
		close(jobs)
		delete(cs.kept, id)
	}
	cs.mu.Unlock()
	cs.all.Wait()
}

// answer is the one answer a request gets: its observation, or, when the call ends without one
// (a panic in the row or the SDK), an error line that makes it the runner's adapter-error.
type answer struct {
	id   *uint64
	once sync.Once
}

func newAnswer(id *uint64) *answer { return &answer{id: id} }

func (a *answer) send(seen Observation) {
	if seen.Outcome == "" && seen.Unsupported == "" {
		a.fail("the call ended without an observation (a panic? see stderr)")
		return
	}
	a.once.Do(func() { writeLine(seen.answerLine(a.id)) })
}

// fail answers with a line that is no observation: the runner makes the call an adapter-error
// and shows the line.
func (a *answer) fail(why string) {
	a.once.Do(func() {
		line := map[string]any{"error": "the adapter failed: " + why}
		if a.id != nil {
			line["id"] = *a.id
		}
		text, _ := json.Marshal(line)
		writeLine(string(text))
	})
}

var stdoutLock sync.Mutex

// output is where answer lines go (the tests keep them).
var output io.Writer = os.Stdout

// writeLine writes one line on stdout, in one piece (calls at once answer from goroutines of
// their own).
func writeLine(line string) {
	stdoutLock.Lock()
	defer stdoutLock.Unlock()
	_, _ = io.WriteString(output, line+"\n")
}

// usageLine is the usage line: the program's file name, the row's options, the endpoint URL
// (or stdio).
func usageLine(argv []string, options string) string {
	program := "adapter"
	if len(argv) > 0 {
		program = filepath.Base(argv[0])
	}
	words := []string{program}
	if options != "" {
		words = append(words, options)
	}
	words = append(words, "<endpoint-url | stdio>")
	return fmt.Sprintf("usage: %s (the call comes in MCP_ERROR_LAYERS_* variables; `stdio` with "+
		"MCP_ERROR_LAYERS_TRANSPORT=stdio and the server's command in "+
		"MCP_ERROR_LAYERS_STDIO_COMMAND), or with MCP_ERROR_LAYERS_MODE=persistent and no URL "+
		"(request lines on stdin)", strings.Join(words, " "))
}

func fail(message string) int {
	Note("adapter error: %s", message)
	return 2
}
