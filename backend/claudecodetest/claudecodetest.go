// Package claudecodetest runs the real Claude Code CLI in tests: the copy
// pinned in tools/claude-code (installed by make test-deps), each run with
// its own temporary HOME, no non-essential traffic, and its model at a
// loopback ANTHROPIC_BASE_URL (baton model-sim). It also loads the
// transcripts recorded from that CLI (testdata/recordings), which other
// packages' tests read as the real shapes of Claude Code's output, with
// the CLI's own text (system prompt, tool descriptions, reminders) replaced
// by placeholders (Redact) and every shape kept.
//
// A missing CLI fails the test; only under go test -short is it skipped.
//
// # The host permission channel of the pinned CLI (2.1.328)
//
// Permission prompts reach the program on the CLI's stdin/stdout only with
// `-p --input-format stream-json --output-format stream-json --verbose
// --permission-prompt-tool stdio` (a flag --help does not list).
// `--permission-prompts host` (listed, and the default) alone is not
// enough: without --permission-prompt-tool the CLI denies what would
// prompt at once (a system event of subtype permission_denied, an error
// tool_result, and the call in the result's permission_denials).
//
// The CLI asks (one line on stdout):
//
//	{"type":"control_request","request_id":"<uuid>","request":{"subtype":"can_use_tool",
//	 "tool_name":"Bash","display_name":"Bash","input":{"command":"go test ./...","description":"…"},
//	 "description":"…","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash",
//	 "ruleContent":"go test *"}],"behavior":"allow","destination":"localSettings"}],
//	 "decision_reason":"This command requires approval","decision_reason_type":"other",
//	 "blocked_path":"…","tool_use_id":"toolu_…"}}
//
// (blocked_path, decision_reason and server_policy_ask_only appear
// depending on the tool; suggestions may also be addDirectories or setMode.)
// An AskUserQuestion call comes the same way, with
// "requires_user_interaction":true and input {"questions":[{"question",
// "header","options":[{"label","description"}],"multiSelect"}]}.
//
// The program answers (one line on stdin), with Allow or Deny:
//
//	{"type":"control_response","response":{"subtype":"success","request_id":"<uuid>",
//	 "response":{"behavior":"allow","updatedInput":{…the input to run…}}}}
//	{"type":"control_response","response":{"subtype":"success","request_id":"<uuid>",
//	 "response":{"behavior":"deny","message":"…told to the model…"}}}
//
// An AskUserQuestion is answered by allowing it with updatedInput = the
// input plus "answers": {"<question text>": "<chosen label>"}; the model
// then gets the tool_result `Your questions have been answered:
// "<question>"="<label>". …`. User messages are sent as
// {"type":"user","message":{"role":"user","content":"…"}}; each turn ends
// with a result event, and the process waits for the next message until
// its stdin closes. TestRecordings keeps real examples of all of this in
// testdata/recordings (input.jsonl beside stream.jsonl).
package claudecodetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the CLI version pinned in tools/claude-code/package.json.
const Version = "2.1.328"

// APIKey is the API key every CLI run gets; model-sim accepts any key.
const APIKey = "sk-ant-baton-test"

// EnvBinary names an environment variable that, when set, is the path of
// the CLI to run instead of the pinned copy.
const EnvBinary = "BATON_CLAUDE_CODE"

// EnvParallel names an environment variable with the number of CLI
// processes one test binary runs at once (default 2: each takes about
// 210 MB and a core for a second).
const EnvParallel = "BATON_CLI_PARALLEL"

// Root is the root folder of the Baton module (the folder of go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "..", "..")
		}
	}
}

// PinnedPath is where make test-deps installs the pinned CLI.
func PinnedPath() string {
	return filepath.Join(Root(), "tools", "claude-code", "node_modules", ".bin", "claude")
}

var (
	versionOnce sync.Once
	versionErr  error
)

// Binary returns the path of the CLI the tests run. It fails the test when
// the CLI is missing or is not the pinned version, and skips it only under
// go test -short.
func Binary(t testing.TB) string {
	t.Helper()
	path := os.Getenv(EnvBinary)
	pinned := path == ""
	if pinned {
		path = PinnedPath()
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("the Claude Code CLI the tests run is not installed at %s: run make test-deps (it runs npm ci in tools/claude-code)", path)
		if !pinned {
			msg = fmt.Sprintf("%s=%s: %v", EnvBinary, path, err)
		}
		if testing.Short() {
			t.Skip(msg + " (skipped under -short)")
		}
		t.Fatal(msg)
	}
	if pinned {
		versionOnce.Do(func() { versionErr = checkVersion(path) })
		if versionErr != nil {
			t.Fatal(versionErr)
		}
	}
	return path
}

func checkVersion(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %v: run make test-deps again", path, err)
	}
	got := strings.Fields(string(out))
	if len(got) == 0 || got[0] != Version {
		return fmt.Errorf("%s is Claude Code %q, and the tests pin %s: run make test-deps (npm ci in tools/claude-code)", path, strings.TrimSpace(string(out)), Version)
	}
	return nil
}

var slots = make(chan struct{}, parallel())

func parallel() int {
	if n, err := strconv.Atoi(os.Getenv(EnvParallel)); err == nil && n > 0 {
		return n
	}
	return 2
}

// acquire waits for a free CLI slot; the returned function frees it.
func acquire(ctx context.Context) (func(), error) {
	select {
	case slots <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-slots }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var (
	goEnvOnce sync.Once
	goEnv     []string
)

// goCaches keeps the Go caches of the test's user for the commands the
// CLI runs: with HOME moved, go build and go test would start from an empty
// build cache and take a minute.
func goCaches() []string {
	goEnvOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
		if err != nil {
			return
		}
		vals := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if i < len(vals) && vals[i] != "" && os.Getenv(k) == "" {
				goEnv = append(goEnv, k+"="+vals[i])
			}
		}
	})
	return goEnv
}

// Env is the environment of one CLI: the test's own environment without
// anything that would reach a real account or change the CLI's behaviour
// (ANTHROPIC_*, CLAUDE*, proxies of the Bedrock/Vertex kind), plus its own
// HOME, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, the model at baseURL,
// and the test user's Go caches (for the go commands the agent runs).
func Env(home, baseURL string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "XDG_CONFIG_HOME", k == "XDG_CACHE_HOME", k == "XDG_DATA_HOME", k == "XDG_STATE_HOME":
			continue
		case strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "AWS_"),
			strings.HasPrefix(k, "GOOGLE_"), strings.HasPrefix(k, "VERTEX_"), k == "DISABLE_AUTOUPDATER":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+home,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"ANTHROPIC_BASE_URL="+baseURL,
		"ANTHROPIC_API_KEY="+APIKey,
	)
	env = append(env, goCaches()...)
	return append(env, extra...)
}

// CLI is the pinned CLI with its own HOME, talking to one model server.
type CLI struct {
	Path    string
	Home    string
	BaseURL string
	// Env is added to the environment of every run (KEY=VALUE).
	Env []string
	// Timeout bounds one run (default 4 minutes: a run takes seconds, but a
	// loaded machine can stretch it a lot).
	Timeout time.Duration
	t       testing.TB
}

// New returns the pinned CLI with a fresh temporary HOME, its model at
// baseURL (http://127.0.0.1:PORT).
func New(t testing.TB, baseURL string) *CLI {
	t.Helper()
	path := Binary(t)
	home := t.TempDir()
	return &CLI{Path: path, Home: home, BaseURL: baseURL, Timeout: 4 * time.Minute, t: t}
}

// Result is what one CLI run left: its stdout (stream-json events), stderr,
// exit code, session id and on-disk transcript.
type Result struct {
	Args      []string
	Stdout    []byte
	Stderr    []byte
	ExitCode  int
	SessionID string
	// Transcript is $HOME/.claude/projects/<folder>/<session>.jsonl, nil
	// when the CLI wrote none.
	Transcript     []byte
	TranscriptPath string
	Duration       time.Duration
}

// Events decodes Stdout.
func (r *Result) Events() ([]Event, error) { return DecodeEvents(r.Stdout) }

// Print runs `claude -p PROMPT --output-format stream-json --verbose ARGS`
// in dir and waits for it to exit.
func (c *CLI) Print(dir, prompt string, args ...string) *Result {
	c.t.Helper()
	full := append([]string{"-p", prompt, "--output-format", "stream-json", "--verbose"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout())
	defer cancel()
	release, err := acquire(ctx)
	if err != nil {
		c.t.Fatalf("wait for a CLI slot: %v", err)
	}
	defer release()
	cmd := c.command(ctx, dir, full)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	res := &Result{Args: full, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start)}
	res.ExitCode = exitCode(err)
	if ctx.Err() != nil {
		c.t.Fatalf("claude %s: no exit within %s; stderr: %s", strings.Join(quoteArgs(full), " "), c.timeout(), stderr.Bytes())
	}
	if err != nil && res.ExitCode < 0 {
		c.t.Fatalf("claude: %v", err)
	}
	c.finish(res)
	return res
}

func (c *CLI) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 4 * time.Minute
}

func (c *CLI) command(ctx context.Context, dir string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.Path, args...)
	cmd.Dir = dir
	cmd.Env = Env(c.Home, c.BaseURL, c.Env...)
	// Its own process group, so the tools it starts end with it.
	groupKill(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// finish fills the session id and transcript of a finished run.
func (c *CLI) finish(res *Result) {
	if evs, err := DecodeEvents(res.Stdout); err == nil {
		for _, e := range evs {
			if e.SessionID != "" {
				res.SessionID = e.SessionID
				break
			}
		}
	}
	if res.SessionID == "" {
		return
	}
	if p, err := c.TranscriptPath(res.SessionID); err == nil {
		res.TranscriptPath = p
		res.Transcript, _ = os.ReadFile(p)
	}
}

// TranscriptPath finds the on-disk transcript of a session under HOME.
func (c *CLI) TranscriptPath(sessionID string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(c.Home, ".claude", "projects", "*", sessionID+".jsonl"))
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("no transcript of session %s under %s", sessionID, filepath.Join(c.Home, ".claude", "projects"))
	}
	return matches[0], nil
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 60 {
			a = a[:57] + "..."
		}
		if strings.ContainsAny(a, " \n\"'") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return out
}

// Event is one line of the CLI's stream-json output (or input), with the
// fields that say what it is decoded; Raw keeps it verbatim.
type Event struct {
	Raw       json.RawMessage `json:"-"`
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	UUID      string          `json:"uuid,omitempty"`
	// RequestID and Request are set on a control_request.
	RequestID string          `json:"request_id,omitempty"`
	Request   *ControlRequest `json:"request,omitempty"`
	// Response is set on a control_response.
	Response json.RawMessage `json:"response,omitempty"`
}

// ControlRequest is the request of a control_request event. A permission
// prompt has Subtype "can_use_tool".
type ControlRequest struct {
	Subtype     string          `json:"subtype"`
	ToolName    string          `json:"tool_name,omitempty"`
	DisplayName string          `json:"display_name,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	Description string          `json:"description,omitempty"`
	ToolUseID   string          `json:"tool_use_id,omitempty"`
	BlockedPath string          `json:"blocked_path,omitempty"`
	// PermissionSuggestions are the rules the CLI offers to remember
	// ("Always allow").
	PermissionSuggestions json.RawMessage `json:"permission_suggestions,omitempty"`
	// RequiresUserInteraction is true for AskUserQuestion.
	RequiresUserInteraction bool `json:"requires_user_interaction,omitempty"`
}

// DecodeEvents reads stream-json output: one JSON object per line. A line
// that is not JSON is an error naming its number.
func DecodeEvents(data []byte) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := decodeEvent(line)
		if err != nil {
			return out, fmt.Errorf("stream-json line %d: %w", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func decodeEvent(line []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		return Event{}, err
	}
	e.Raw = append(json.RawMessage(nil), line...)
	return e, nil
}

// UserMessage is the stream-json input line that sends text as the user.
func UserMessage(text string) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
}

// Allow is the control_response that allows a can_use_tool request, with
// the tool input to run (for AskUserQuestion: the questions plus "answers",
// a map from question text to the chosen label).
func Allow(requestID string, updatedInput json.RawMessage) map[string]any {
	return controlResponse(requestID, map[string]any{"behavior": "allow", "updatedInput": updatedInput})
}

// Deny is the control_response that denies a can_use_tool request; message
// is what the model is told.
func Deny(requestID, message string) map[string]any {
	return controlResponse(requestID, map[string]any{"behavior": "deny", "message": message})
}

func controlResponse(requestID string, response map[string]any) map[string]any {
	return map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": requestID, "response": response,
	}}
}

// Session is a CLI started with --input-format stream-json: the test sends
// user messages and control responses on its stdin and reads its events.
type Session struct {
	c       *CLI
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	events  chan Event
	stderr  lockedBuffer
	mu      sync.Mutex
	stdout  bytes.Buffer // every line read, verbatim
	input   bytes.Buffer // every line sent, verbatim
	done    chan struct{}
	waitErr error
	release func()
	cancel  context.CancelFunc
	start   time.Time
	args    []string
}

// Start starts `claude -p --input-format stream-json --output-format
// stream-json --verbose ARGS` in dir. Close it (or let the test's cleanup
// kill it).
func (c *CLI) Start(dir string, args ...string) *Session {
	c.t.Helper()
	full := append([]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout())
	release, err := acquire(ctx)
	if err != nil {
		cancel()
		c.t.Fatalf("wait for a CLI slot: %v", err)
	}
	s := &Session{c: c, events: make(chan Event, 256), done: make(chan struct{}), release: release, cancel: cancel, start: time.Now(), args: full}
	s.cmd = c.command(ctx, dir, full)
	s.cmd.Stderr = &s.stderr
	s.stdin, err = s.cmd.StdinPipe()
	if err != nil {
		s.abort()
		c.t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		s.abort()
		c.t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		s.abort()
		c.t.Fatalf("start claude: %v", err)
	}
	go s.read(stdout)
	c.t.Cleanup(func() { s.abort(); <-s.done })
	return s
}

func (s *Session) abort() {
	s.cancel()
	s.release()
}

func (s *Session) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		s.mu.Lock()
		s.stdout.Write(line)
		s.stdout.WriteByte('\n')
		s.mu.Unlock()
		e, err := decodeEvent(bytes.TrimSpace(line))
		if err != nil {
			e = Event{Type: "not-json", Raw: json.RawMessage(strconv.Quote(string(line)))}
		}
		s.events <- e
	}
	_, _ = io.Copy(io.Discard, r)
	s.waitErr = s.cmd.Wait()
	close(s.events)
	close(s.done)
}

// Send writes one stream-json input line (a user message or a control
// response).
func (s *Session) Send(v any) {
	s.c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		s.c.t.Fatal(err)
	}
	s.mu.Lock()
	s.input.Write(b)
	s.input.WriteByte('\n')
	s.mu.Unlock()
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.c.t.Fatalf("write to claude's stdin: %v (stderr: %s)", err, s.Stderr())
	}
}

// Next returns the next event, or false when the CLI closed its output or
// nothing came within timeout (the test fails then).
func (s *Session) Next(timeout time.Duration) (Event, bool) {
	s.c.t.Helper()
	select {
	case e, ok := <-s.events:
		return e, ok
	case <-time.After(timeout):
		s.c.t.Errorf("no event from claude within %s; stderr: %s", timeout, s.Stderr())
		return Event{}, false
	}
}

// Until reads events until one for which stop returns true, and returns it.
func (s *Session) Until(timeout time.Duration, stop func(Event) bool) (Event, bool) {
	s.c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			s.c.t.Errorf("no matching event from claude within %s; stderr: %s", timeout, s.Stderr())
			return Event{}, false
		}
		e, ok := s.Next(left)
		if !ok {
			return Event{}, false
		}
		if stop(e) {
			return e, true
		}
	}
}

// Stderr is what the CLI wrote to stderr so far.
func (s *Session) Stderr() string {
	return string(s.stderr.Bytes())
}

// lockedBuffer is a buffer one goroutine writes while another reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// Input is every line the test sent, verbatim.
func (s *Session) Input() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.input.Bytes())
}

// Close ends the input, waits for the CLI to exit and returns its result.
func (s *Session) Close() *Result {
	s.c.t.Helper()
	_ = s.stdin.Close()
	// Drain what is left.
	for range s.events {
	}
	<-s.done
	s.abort()
	s.mu.Lock()
	res := &Result{Args: s.args, Stdout: bytes.Clone(s.stdout.Bytes()), Stderr: s.stderr.Bytes(), Duration: time.Since(s.start)}
	s.mu.Unlock()
	res.ExitCode = exitCode(s.waitErr)
	s.c.finish(res)
	return res
}
