package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// agentFunc scripts the agent: given the session and the text it was sent,
// it appends entries (fs.say, fs.tool, fs.finish) or leaves the turn running.
type agentFunc func(h *fakeHost, s *fakeSession, text string)

type fakeSession struct {
	id          session.ID
	opts        session.StartOptions
	entries     []json.RawMessage
	turnRunning bool
	archived    bool
	pending     []session.PermissionRequest
	asked       string // the phase of the last "ASK" prompt
	n           int
}

// fakeHost is an in-memory session.Host that records every call.
type fakeHost struct {
	mu       sync.Mutex
	sessions map[session.ID]*fakeSession
	order    []session.ID
	notices  chan session.Notice
	agent    agentFunc
	push     bool

	starts     []session.StartOptions
	sends      []string
	interrupts []session.ID
	archives   []session.ID
	live       int // sessions started and neither interrupted nor finished
	maxLive    int
	startErr   func(opts session.StartOptions) error
	responses  []string
	opaque     bool // errors about unknown sessions do not wrap ErrNoSession
	onRespond  func(s *fakeSession)
	onStart    func(opts session.StartOptions)
	// reads counts the Reads of each session; readTo is where the last one
	// ended.
	reads  map[session.ID]int
	readTo map[session.ID]int
	// startDelay holds Start back after the agent answered, like a host
	// whose start call returns late.
	startDelay time.Duration
}

func newFakeHost(agent agentFunc, push bool) *fakeHost {
	return &fakeHost{sessions: map[session.ID]*fakeSession{}, notices: make(chan session.Notice, 4096), agent: agent, push: push}
}

func (h *fakeHost) notify(id session.ID, k session.NoticeKind) {
	if !h.push {
		return
	}
	select {
	case h.notices <- session.Notice{SessionID: id, Kind: k}:
	default:
	}
}

func (h *fakeHost) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	if h.onStart != nil {
		h.onStart(opts)
	}
	h.mu.Lock()
	h.starts = append(h.starts, opts)
	if h.startErr != nil {
		if err := h.startErr(opts); err != nil {
			h.mu.Unlock()
			return "", err
		}
	}
	id := opts.ID
	if id == "" {
		id = session.ID(fmt.Sprintf("local_main_%d", len(h.order)))
	}
	if _, dup := h.sessions[id]; dup {
		h.mu.Unlock()
		return "", fmt.Errorf("session %s already exists", id)
	}
	s := &fakeSession{id: id, opts: opts, turnRunning: true}
	h.sessions[id] = s
	h.order = append(h.order, id)
	if strings.Contains(string(id), "_worker_") {
		h.live++
		if h.live > h.maxLive {
			h.maxLive = h.live
		}
	}
	s.user(opts.Message)
	h.agent(h, s, opts.Message)
	delay := h.startDelay
	h.mu.Unlock()
	time.Sleep(delay)
	h.notify(id, session.NoticeMessage)
	return id, nil
}

func (h *fakeHost) Send(ctx context.Context, id session.ID, text string) error {
	h.mu.Lock()
	s, ok := h.sessions[id]
	if !ok {
		h.mu.Unlock()
		return fmt.Errorf("no session %s", id)
	}
	h.sends = append(h.sends, text)
	s.turnRunning = true
	s.user(text)
	h.agent(h, s, text)
	h.mu.Unlock()
	h.notify(id, session.NoticeMessage)
	return nil
}

func (h *fakeHost) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.sessions[id]
	if !ok {
		return session.Batch{}, fmt.Errorf("no session %s", id)
	}
	if c.Index > len(s.entries) {
		c.Index = len(s.entries)
	}
	out := append([]json.RawMessage(nil), s.entries[c.Index:]...)
	if h.reads == nil {
		h.reads, h.readTo = map[session.ID]int{}, map[session.ID]int{}
	}
	h.reads[id]++
	h.readTo[id] = len(s.entries)
	return session.Batch{Entries: out, Next: session.Cursor{Index: len(s.entries)}, Total: len(s.entries)}, nil
}

func (h *fakeHost) Session(ctx context.Context, id session.ID) (session.Info, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.sessions[id]
	if !ok {
		if h.opaque {
			return session.Info{}, errors.New("the page did not answer")
		}
		return session.Info{}, fmt.Errorf("session %s: %w", id, session.ErrNoSession)
	}
	return session.Info{ID: id, Running: true, TurnRunning: s.turnRunning, Archived: s.archived,
		Pending: append([]session.PermissionRequest(nil), s.pending...)}, nil
}

func (h *fakeHost) Interrupt(ctx context.Context, id session.ID) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.interrupts = append(h.interrupts, id)
	if s, ok := h.sessions[id]; ok && s.turnRunning {
		s.turnRunning = false
		if strings.Contains(string(id), "_worker_") {
			h.live--
		}
	}
	return nil
}

func (h *fakeHost) Archive(ctx context.Context, id session.ID) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.archives = append(h.archives, id)
	if s, ok := h.sessions[id]; ok {
		s.archived = true
	}
	return nil
}

// List and RespondPermission make the fake a session.Browser.
func (h *fakeHost) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	return nil, nil
}

func (h *fakeHost) RespondPermission(ctx context.Context, requestID string, d session.PermissionDecision, input json.RawMessage) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.responses = append(h.responses, requestID+":"+string(d))
	for _, s := range h.sessions {
		for i, p := range s.pending {
			if p.RequestID == requestID {
				s.pending = append(s.pending[:i], s.pending[i+1:]...)
				if h.onRespond != nil {
					h.onRespond(s)
				}
				return nil
			}
		}
	}
	return fmt.Errorf("no request %s", requestID)
}

func (h *fakeHost) Notices() <-chan session.Notice {
	if !h.push {
		return nil
	}
	return h.notices
}

// finishTurn ends a turn started earlier (for scripted slow workers).
func (h *fakeHost) finishTurn(id session.ID, text string) {
	h.mu.Lock()
	s := h.sessions[id]
	s.say(text)
	s.endTurn(h)
	h.mu.Unlock()
	h.notify(id, session.NoticeResult)
}

func (h *fakeHost) workerStarts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for _, s := range h.starts {
		if m := workerRe.FindStringSubmatch(string(s.ID)); m != nil {
			out[m[1]]++
		}
	}
	return out
}

var workerRe = regexp.MustCompile(`_worker_(.+?)(?:-r\d+)?$`)

func (s *fakeSession) add(v any) {
	b, _ := json.Marshal(v)
	s.entries = append(s.entries, b)
}

func (s *fakeSession) user(text string) {
	s.n++
	s.add(map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", len(s.entries)),
		"message": map[string]any{"role": "user", "content": text}})
}

func (s *fakeSession) say(text string) {
	s.n++
	s.add(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", len(s.entries)),
		"message": map[string]any{"id": fmt.Sprintf("m%d", s.n), "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": 100, "output_tokens": 10}}})
}

func (s *fakeSession) tool(name string, input map[string]any) {
	s.n++
	s.add(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", len(s.entries)),
		"message": map[string]any{"id": fmt.Sprintf("m%d", s.n), "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", s.n), "name": name, "input": input}},
			"usage":   map[string]any{"input_tokens": 50, "output_tokens": 5}}})
}

func (s *fakeSession) endTurn(h *fakeHost) {
	s.add(map[string]any{"type": "result", "subtype": "success", "total_cost_usd": 0.01, "uuid": fmt.Sprintf("r%d", len(s.entries))})
	if s.turnRunning && strings.Contains(string(s.id), "_worker_") {
		h.live--
	}
	s.turnRunning = false
}

const (
	startDelim = "<<<ORCHESTRATOR_RESPONSE>>>"
	endDelim   = "<<<END_ORCHESTRATOR_RESPONSE>>>"
)

func block(phase string, data any) string {
	b, _ := json.Marshal(map[string]any{"phase": phase, "data": data})
	return "Here it is.\n" + startDelim + "\n" + string(b) + "\n" + endDelim
}

var askRe = regexp.MustCompile(`ASK (\w+)(?: (\S+))?`)

// planned is a task of the scripted planner.
type planned struct {
	id       string
	priority int
	deps     []string
}

func plan(ts ...planned) []map[string]any {
	var out []map[string]any
	for _, t := range ts {
		deps := t.deps
		if deps == nil {
			deps = []string{}
		}
		out = append(out, map[string]any{"id": t.id, "title": "Do " + t.id, "description": "Work on " + t.id,
			"priority": t.priority, "dependencies": deps, "scope": []string{"src/" + t.id}})
	}
	return out
}

// scripted returns an agent that answers every phase at once; worker
// overrides the worker's behaviour for some tasks (return true when handled).
func scripted(tasks []map[string]any, worker func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool) agentFunc {
	return func(h *fakeHost, s *fakeSession, text string) {
		m := askRe.FindStringSubmatch(text)
		reprompt := m == nil
		phase, arg := s.asked, ""
		if m != nil {
			phase, arg = m[1], m[2]
			s.asked = phase
			if arg != "" {
				s.asked = phase + " " + arg
			}
		} else if i := strings.Index(s.asked, " "); i > 0 {
			phase, arg = s.asked[:i], s.asked[i+1:]
		}
		switch phase {
		case "analysis":
			s.tool("Read", map[string]any{"file_path": "/p/README.md"})
			s.say(block("analysis", map[string]any{"summary": "A project.", "recommended_splits": len(tasks)}))
		case "task_list":
			s.say(block("task_list", map[string]any{"tasks": tasks}))
		case "completion":
			if worker != nil && worker(h, s, arg, reprompt) {
				return
			}
			s.tool("Read", map[string]any{"file_path": s.opts.Cwd + "/src/" + arg + "/a.go"})
			s.tool("Write", map[string]any{"file_path": s.opts.Cwd + "/docs/" + arg + ".md", "content": "x"})
			// The worker writes what it reports: Baton checks it.
			writeOutput(s.opts.Cwd, "docs/"+arg+".md", "# "+arg+"\n")
			s.tool("Grep", map[string]any{"pattern": "func"})
			s.say(block("completion", map[string]any{"task_id": arg, "status": "success", "summary": "Did " + arg,
				"output_files": []string{"docs/" + arg + ".md"}}))
		case "aggregation":
			s.say(block("aggregation", map[string]any{"status": "success", "summary": "All merged."}))
		case "verification":
			s.say(block("verification", map[string]any{"status": "pass", "summary": "All good."}))
		}
		s.endTurn(h)
	}
}

// writeOutput writes a worker's file rel into its folder cwd, as the real
// agent's Write tool would.
func writeOutput(cwd, rel, body string) {
	if cwd == "" || strings.HasPrefix(cwd, "/p") {
		return
	}
	p := filepath.Join(cwd, filepath.FromSlash(rel))
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	_ = os.WriteFile(p, []byte(body), 0o644)
}

func testTemplate(mut func(*template.Template)) template.Template {
	t := template.Template{ID: "test", Name: "Test"}
	t.Config = template.Config{MaxWorkers: 2, WorkerTimeout: 600, InactivityTimeout: 300, MaxRetries: 2,
		PollInterval: 0.01, MaxTasks: 50, AutoConfirm: true, PermissionMode: "acceptEdits",
		Models: template.Models{Main: "sonnet", Easy: "haiku", Normal: "sonnet", Complex: "opus"}}
	t.Phases.Analysis = template.PhaseSettings{Enabled: true, Timeout: 600}
	t.Phases.TaskPlanning = template.PhaseSettings{Enabled: true, Timeout: 600}
	t.Phases.WorkerExecution = template.PhaseSettings{Enabled: true}
	t.Phases.Aggregation = template.PhaseSettings{Enabled: true, Timeout: 600}
	t.Phases.Verification = template.Verification{Enabled: true, Timeout: 600}
	t.Prompts.ResponseFormat = template.ResponseFormat{StartDelimiter: startDelim, EndDelimiter: endDelim, Dialect: "orchestrator"}
	t.Prompts.Analysis = template.Prompt{System: "You lead.", User: "ASK analysis\n{USER_REQUEST} in {CWD}"}
	t.Prompts.TaskPlanning = template.Prompt{User: "ASK task_list\nat most {MAX_TASKS}"}
	t.Prompts.WorkerExecution = template.Prompt{User: "ASK completion {TASK_ID}\n{TASK_TITLE}: {TASK_DESCRIPTION} ({TASK_SCOPE})"}
	t.Prompts.Aggregation = template.Prompt{User: "ASK aggregation\n{WORKER_OUTPUTS}"}
	t.Prompts.Verification = template.Prompt{User: "ASK verification"}
	if mut != nil {
		mut(&t)
	}
	return t
}

type templateMap map[string]template.Template

func (m templateMap) Get(id string) (template.Template, error) {
	t, ok := m[id]
	if !ok {
		return template.Template{}, fmt.Errorf("template %s: %w", id, template.ErrNotFound)
	}
	return t, nil
}

// recorder is an Emitter that checks each event against the store: the
// change it describes must already be committed.
type recorder struct {
	t     *testing.T
	st    *store.Store
	mu    sync.Mutex
	names []string
	byRun map[string][]Payload
	bad   []string
	ch    chan string
}

func newRecorder(t *testing.T, st *store.Store) *recorder {
	return &recorder{t: t, st: st, byRun: map[string][]Payload{}, ch: make(chan string, 10000)}
}

func (r *recorder) Emit(name string, p Payload) {
	if name != EventWorkerProgress && name != EventProgress {
		run, err := r.st.Run(context.Background(), p.RunID)
		switch {
		case err != nil:
			r.fail(fmt.Sprintf("%s: run not in store: %v", name, err))
		case run.Status != p.Status:
			r.fail(fmt.Sprintf("%s: store says run is %s, event says %s", name, run.Status, p.Status))
		}
		if p.Worker != nil {
			ws, _ := r.st.Workers(context.Background(), p.RunID)
			found := false
			for _, w := range ws {
				if w.TaskID == p.Worker.TaskID {
					found = true
					if w.Status != p.Worker.Status {
						r.fail(fmt.Sprintf("%s %s: store says %s, event says %s", name, w.TaskID, w.Status, p.Worker.Status))
					}
				}
			}
			if !found {
				r.fail(fmt.Sprintf("%s: worker %s not in store", name, p.Worker.TaskID))
			}
		}
		evs, _ := r.st.Events(context.Background(), p.RunID, 0, 10000)
		if len(evs) == 0 || !hasEvent(evs, name) {
			r.fail(fmt.Sprintf("%s: no event row in store", name))
		}
	}
	r.mu.Lock()
	r.names = append(r.names, name)
	r.byRun[p.RunID] = append(r.byRun[p.RunID], p)
	r.mu.Unlock()
	select {
	case r.ch <- name:
	default:
	}
}

func hasEvent(evs []store.Event, name string) bool {
	for _, e := range evs {
		if e.Name == name {
			return true
		}
	}
	return false
}

// spawned returns the tasks in the order the engine spawned their workers.
func (r *recorder) spawned(runID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.byRun[runID] {
		if p.Worker != nil && p.Worker.Status == "spawning" {
			out = append(out, p.TaskID)
		}
	}
	return out
}

func (r *recorder) fail(msg string) {
	r.mu.Lock()
	r.bad = append(r.bad, msg)
	r.mu.Unlock()
}

func (r *recorder) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.names {
		if x == name {
			n++
		}
	}
	return n
}

func (r *recorder) check() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bad {
		r.t.Error(b)
	}
}

// fakeClock is a clock tests move forward.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type harness struct {
	t     *testing.T
	dir   string
	path  string
	st    *store.Store
	host  *fakeHost
	rec   *recorder
	clock *fakeClock
	eng   *Engine
	tmpl  template.Template
	// storeOpts are added when the store is opened (by open).
	storeOpts []store.Option
	// engineHost, when set, is the engine's host instead of host (a
	// wrapper of it); engineOpts change the engine's options.
	engineHost session.Host
	engineOpts func(*Options)
	// autoResume is the engine's AutoResumeAfterLimit (nil: on).
	autoResume func() bool
	// worktreeRoot is the engine's (isolation_test.go).
	worktreeRoot string
}

func newHarness(t *testing.T, tmpl template.Template, agent agentFunc, push bool) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, path: dir + "/baton.db", host: newFakeHost(agent, push), tmpl: tmpl,
		clock: &fakeClock{t: time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)}}
	h.open()
	t.Cleanup(func() { h.close() })
	return h
}

func (h *harness) open() {
	h.t.Helper()
	st, err := store.Open(h.path, append([]store.Option{store.WithLogger(quiet)}, h.storeOpts...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	h.st = st
	h.rec = newRecorder(h.t, st)
	n := 0
	var host session.Host = h.host
	if h.engineHost != nil {
		host = h.engineHost
	}
	opts := Options{Store: st, Host: host, Templates: templateMap{"test": h.tmpl}, Emitter: h.rec,
		Now: h.clock.Now, NewID: func() string { n++; return fmt.Sprintf("orch_t%d", n) },
		ProgressInterval: 5 * time.Millisecond, Logger: quiet, Home: h.dir + "/home", AutoResumeAfterLimit: h.autoResume, WorktreeRoot: h.worktreeRoot}
	if h.engineOpts != nil {
		h.engineOpts(&opts)
	}
	eng, err := New(opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.eng = eng
}

func (h *harness) close() {
	if h.eng != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.eng.Shutdown(ctx); err != nil {
			h.t.Errorf("Shutdown: %v", err)
		}
		h.eng = nil
	}
	if h.st != nil {
		h.rec.check()
		_ = h.st.Close()
		h.st = nil
	}
}

func (h *harness) create() string {
	h.t.Helper()
	run, err := h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: h.dir, Request: "Document everything"})
	if err != nil {
		h.t.Fatal(err)
	}
	return run.ID
}

// until polls cond (bounded) and fails with msg.
func (h *harness) until(msg string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting: %s", msg)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// untilf is until with a message computed when it fails.
func (h *harness) untilf(msg func() string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting: %s", msg())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (h *harness) status(id string) string {
	snap, err := h.eng.Snapshot(context.Background(), id)
	if err != nil {
		return "error: " + err.Error()
	}
	return snap.Run.Status
}

func (h *harness) wait(id string) store.Run {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run, err := h.eng.Wait(ctx, id)
	if err != nil {
		snap, _ := h.eng.Snapshot(context.Background(), id)
		h.t.Fatalf("Wait: %v (run is %s: %s)", err, snap.Run.Status, snap.Run.Message)
	}
	return run
}

func (h *harness) workers(id string) map[string]store.Worker {
	ws, err := h.st.Workers(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]store.Worker{}
	for _, w := range ws {
		out[w.TaskID] = w
	}
	return out
}

var errBoom = errors.New("boom")

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
