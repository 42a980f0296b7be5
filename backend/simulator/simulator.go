// Package simulator is Baton's embedded stand-in for Claude Desktop: a Go
// loopback HTTP server that owns session state and plays the scripted
// agent (backend/agent) in them, and an embedded page that exposes the
// same window['claude.web'].LocalSessions surface as Claude Desktop (see
// CLAUDE_DESKTOP_API.md) on top of it. Baton drives the page through real
// Chromium with the very adapter it uses for Claude Desktop (Launch starts
// the server and a browser on its page).
//
// # Scenarios
//
// A scenario decides how the scripted agent of a session behaves (see
// backend/agent for what each does). It is chosen, first match wins, by:
//
//  1. a marker in a message of the session: [[sim:scenario=NAME]] (optionally
//     followed by parameters, e.g. [[sim:scenario=flood entries=10000]]); it
//     applies from that message on;
//  2. a rule set with Simulator.SetScenario(match, NAME) (or "baton sim
//     --scenario-for match=NAME"): the first rule whose match is a substring
//     of the session id;
//  3. Options.Scenario, the simulator-wide default ("happy" when empty).
//
// The names are listed in Scenarios. Besides the agent's, the page plays
// slow (every delay ten times longer), flood (thousands of tool calls
// before the answer), page-reload (the page reloads in the middle of the
// first turn), needs-permission (a Write that waits for the page's
// permission answer), asks-question (an AskUserQuestion) and worker-hangs
// (a turn that never ends until interrupted).
//
// # How a turn is played
//
// The agent runs on the Go side, one turn per user message, so a reload of
// the page loses nothing. A turn (turn.go) is the page's face of the
// agent: it lists, reads and writes the session's cwd through the server's
// loopback endpoint /fs/{session}/list, /read and /write (served through an
// os.Root of that folder only: no "..", no absolute paths, no symlinks
// out), asks git which files it does not track (/fs/{session}/untracked)
// when it plans, and writes Claude Code transcript entries: tool_use and
// tool_result pairs (Glob, Bash, Read, Write, Edit), assistant text with
// the <<<ORCHESTRATOR_RESPONSE>>> block the agent decided, usage on
// assistant entries, and a result entry with cost at the end of each turn.
// Its workers write their work into the session's folder (a worker's
// worktree in a worktree run) without asking, except in plan mode, where
// they write nothing. Options.Speed divides every delay.
//
// # The page
//
// The page lives at /baton-simulator/ and implements LocalSessions with
// fetch calls to /api/… and an EventSource on /api/events for onOnEvent and
// onOnToolPermissionRequest. The server answers only requests whose Host is
// its own loopback address, and its /api and /fs endpoints only requests
// that carry the per-launch token the page gets in its URL's fragment.
package simulator

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/recording"
	contract "github.com/baton-app/baton/backend/session"
)

//go:embed web
var webFS embed.FS

// Scenarios are the names of the scripted agent's behaviours.
var Scenarios = []string{
	"happy",            // valid answers for every phase
	"slow",             // like happy, ten times slower
	"malformed-json",   // the first answer of each phase has broken JSON (trailing comma)
	"no-delimiters",    // the first answer of each phase has no <<<…>>> delimiters
	"missing-fields",   // the first answer of each phase lacks required fields
	"worker-fails",     // a worker reports status failed and its turn ends in error
	"worker-hangs",     // the turn never ends until interrupted
	"needs-permission", // asks permission for a Write before answering
	"asks-question",    // asks an AskUserQuestion before answering
	"page-reload",      // the page reloads in the middle of the first turn
	"flood",            // thousands of entries (parameter entries=N, default 3000) before the answer
	"rejected-once",    // as reviewer, rejects the first review of each task with required changes, then approves
	"clarification",    // as worker, first answers needs_input with a question, then completes once answered
	"qa-fails",         // as verifier, fails the first verification with one issue per task id it names, then passes
	"conflict",         // as worker, reports a conflict with another agent over a file of its scope, with a suggested resolution
	"deadlock",         // at the slow pace, plans a chain (task 2 after task 1) beside an independent task 3; task 1 fails, so a retry of the skipped task 2 meets the dependency deadlock check
	// The scenarios that lie (times=N: only the first N answers of the phase):
	"wrong-task-id",          // as worker, does its work and reports it under another task's id (task_001's, or task_002's for task_001)
	"claims-without-writing", // as worker, writes nothing and reports success naming the files it would have written
	"verification-lies",      // as worker, also writes a file that breaks the build (or a failing test); as verifier, says "pass" anyway
}

// ValidScenario reports whether name is a known scenario.
func ValidScenario(name string) bool { return slices.Contains(Scenarios, name) }

// Options configure a Simulator.
type Options struct {
	// Addr is the listen address; "127.0.0.1:0" when empty. Only loopback
	// addresses are accepted.
	Addr string
	// Scenario is the default scenario; "happy" when empty.
	Scenario string
	// Speed divides every delay of the scripted agent: 1 is lifelike (a
	// turn takes a few seconds), 100 makes tests fast. 1 when zero.
	Speed float64
	// StateDir, when set, is where the simulator keeps its sessions and
	// their transcripts (see persist.go): a simulator started again on it
	// has them back, as Claude Desktop keeps its sessions across restarts.
	StateDir string
	// Logger receives logs; slog.Default when nil.
	Logger *slog.Logger
	// OnEntry, if set, is called with the time each transcript entry is
	// published to the pages (for latency measurements). It must not block.
	OnEntry func(sessionID string, at time.Time)
	// Shapes make the page and transcripts take the real app's reported
	// shapes (see Shapes); none by default.
	Shapes Shapes
	// Replay, when set, makes the page serve a "baton probe" recording
	// (its methods, sessions and transcripts, its events replayed in time)
	// instead of the scripted agent.
	Replay *recording.Recording
}

// Simulator is the loopback server with the sessions and their agents.
type Simulator struct {
	opts Options
	log  *slog.Logger
	ln   net.Listener
	srv  *http.Server
	base string
	// token is the per-launch secret every /api and /fs request must carry
	// (header X-Baton-Token; a token query parameter for the EventSource).
	// Only the page knows it: URL gives it to the page in its fragment,
	// which the browser never sends to a server.
	token string
	// fs is the agents' client for the folder endpoint. It has its own
	// transport: a connection the process-wide one dials and never uses
	// would keep Shutdown waiting for it.
	fs *http.Client

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*session
	order    []string
	rules    []rule
	perms    map[string]*permission
	subs     map[chan []byte]struct{}
}

type rule struct{ match, scenario string }

// New makes a Simulator; Start makes it listen.
func New(opts Options) (*Simulator, error) {
	if opts.Scenario == "" {
		opts.Scenario = "happy"
	}
	if !ValidScenario(opts.Scenario) {
		return nil, fmt.Errorf("unknown scenario %q (known: %s)", opts.Scenario, strings.Join(Scenarios, ", "))
	}
	if opts.Speed <= 0 {
		opts.Speed = 1
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, fmt.Errorf("simulator token: %w", err)
	}
	return &Simulator{
		token:    hex.EncodeToString(tok[:]),
		opts:     opts,
		fs:       &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}},
		log:      log.With("component", "simulator"),
		sessions: map[string]*session{},
		perms:    map[string]*permission{},
		subs:     map[chan []byte]struct{}{},
	}, nil
}

// Start listens on the loopback address and serves until Shutdown.
func (s *Simulator) Start() error {
	host, _, err := net.SplitHostPort(s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", s.opts.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("listen address %q is not loopback", s.opts.Addr)
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s.ln = ln
	s.base = "http://" + ln.Addr().String()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.persistent() {
		resume, err := s.load()
		if err != nil {
			s.cancel()
			return errors.Join(fmt.Errorf("load the simulator's sessions: %w", err), ln.Close())
		}
		defer s.resumeTurns(resume)
	}
	s.srv = &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	s.wg.Go(func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	})
	return nil
}

// pagePath is where the page lives. It contains chrome.SimulatorPattern, one
// of the default page patterns, so "baton sim" is found like Claude Desktop.
const pagePath = "/baton-simulator/"

// URL returns the address to open the page at, such as
// "http://127.0.0.1:41234/baton-simulator/#token=…": the fragment carries
// the per-launch token that the page's API calls need.
func (s *Simulator) URL() string { return s.base + pagePath + "#token=" + s.token }

// PageURL returns the page's address without the token, to find the page
// among a browser's targets.
func (s *Simulator) PageURL() string { return s.base + pagePath }

// Token returns the per-launch token, for clients in this process (tests,
// tools); it is never printed or served.
func (s *Simulator) Token() string { return s.token }

// TokenHeader is the request header that carries the simulator's token.
const TokenHeader = "X-Baton-Token"

// authorized reports whether a request carries the per-launch token.
func (s *Simulator) authorized(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	if got == "" && r.Method == http.MethodGet && r.URL.Path == "/api/events" {
		got = r.URL.Query().Get("token") // EventSource cannot set headers
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// SetScenario makes sessions whose id contains match use scenario (see the
// package documentation for the order of choice). A later rule with the
// same match replaces the earlier one.
func (s *Simulator) SetScenario(match, scenario string) error {
	if !ValidScenario(scenario) {
		return fmt.Errorf("unknown scenario %q (known: %s)", scenario, strings.Join(Scenarios, ", "))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = slices.DeleteFunc(s.rules, func(r rule) bool { return r.match == match })
	s.rules = append(s.rules, rule{match, scenario})
	return nil
}

// Reload asks every open simulator page to reload itself.
func (s *Simulator) Reload() { s.broadcast(map[string]any{"kind": "reload"}) }

// Shutdown stops the agents and the server, waiting up to ctx.
func (s *Simulator) Shutdown(ctx context.Context) error {
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	s.mu.Lock()
	for ch := range s.subs {
		delete(s.subs, ch)
		close(ch)
	}
	s.mu.Unlock()
	s.fs.CloseIdleConnections()
	err := s.srv.Shutdown(ctx)
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		err = errors.Join(err, ctx.Err())
	}
	return err
}

func (s *Simulator) handler() http.Handler {
	mux := http.NewServeMux()
	web, _ := fs.Sub(webFS, "web")
	mux.Handle("GET "+pagePath, http.StripPrefix(pagePath[:len(pagePath)-1], http.FileServerFS(web)))
	mux.Handle("GET /{$}", http.RedirectHandler(pagePath, http.StatusFound))
	mux.HandleFunc("GET "+pagePath+"shapes.js", s.shapesJS)
	mux.HandleFunc("GET /api/sessions", s.apiSessions)
	mux.HandleFunc("GET /api/session", s.apiSession)
	mux.HandleFunc("POST /api/start", s.apiStart)
	mux.HandleFunc("POST /api/send", s.apiSend)
	mux.HandleFunc("GET /api/transcript", s.apiTranscript)
	mux.HandleFunc("POST /api/{action}", s.apiAction)
	mux.HandleFunc("GET /api/events", s.apiEvents)
	mux.HandleFunc("GET /fs/{session}/list", s.fsList)
	mux.HandleFunc("GET /fs/{session}/read", s.fsRead)
	mux.HandleFunc("POST /fs/{session}/write", s.fsWrite)
	mux.HandleFunc("GET /fs/{session}/untracked", s.fsUntracked)
	return s.guard(s.replayHandler(mux))
}

// guard refuses requests whose Host is not this server (DNS rebinding) or
// that come from another origin, and sets headers that keep the page to
// itself.
func (s *Simulator) guard(next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	allowed := map[string]bool{"127.0.0.1:" + port: true, "localhost:" + port: true, "[::1]:" + port: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[r.Host] {
			http.Error(w, "wrong host", http.StatusForbidden)
			return
		}
		// Other web pages may send requests to 127.0.0.1 too: accept no
		// foreign Origin, and JSON bodies only (which a foreign page cannot
		// send without a preflight this server never grants).
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			http.Error(w, "foreign origin", http.StatusForbidden)
			return
		}
		// The API and the folder endpoint answer only the page (and the
		// agents), which hold the per-launch token; any other local
		// process can reach the port but does not know it.
		if (strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/fs/")) && !s.authorized(r) {
			http.Error(w, "missing or wrong token", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, "want application/json", http.StatusUnsupportedMediaType)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 16<<20))
	return dec.Decode(v)
}

func (s *Simulator) apiSessions(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	out := make([]map[string]any, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.sessions[id].object())
	}
	s.mu.Unlock()
	writeJSON(w, out)
}

func (s *Simulator) apiSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ss := s.sessions[r.URL.Query().Get("id")]
	var obj map[string]any
	if ss != nil {
		obj = ss.object()
	}
	s.mu.Unlock()
	writeJSON(w, obj)
}

// startInfo is the argument of LocalSessions.start.
type startInfo struct {
	Cwd            string `json:"cwd"`
	Message        string `json:"message"`
	Title          string `json:"title"`
	SessionID      string `json:"sessionId"`
	Model          string `json:"model"`
	PermissionMode string `json:"permissionMode"`
	UseWorktree    *bool  `json:"useWorktree"`
	Effort         string `json:"effort"`
	SystemPrompt   string `json:"systemPrompt"`
}

var sessionIDPattern = regexp.MustCompile(`^local_[A-Za-z0-9_-]{1,200}$`)

func (s *Simulator) apiStart(w http.ResponseWriter, r *http.Request) {
	var info startInfo
	if err := readJSON(r, &info); err != nil {
		http.Error(w, "start: "+err.Error(), http.StatusBadRequest)
		return
	}
	id, err := s.start(info)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, map[string]string{"sessionId": id})
}

func (s *Simulator) start(info startInfo) (string, error) {
	if info.Message == "" {
		return "", errors.New("start: message is empty")
	}
	if err := checkDir(info.Cwd); err != nil {
		return "", fmt.Errorf("start: %w", err)
	}
	if info.PermissionMode != "" && !contract.ValidPermissionMode(info.PermissionMode) {
		return "", fmt.Errorf("start: unknown permission mode %q", info.PermissionMode)
	}
	id := info.SessionID
	if id == "" {
		id = "local_" + newUUID()
	} else if !sessionIDPattern.MatchString(id) {
		return "", fmt.Errorf("start: invalid session id %q", id)
	}
	title := info.Title
	if title == "" {
		title = firstLine(info.Message, 60)
	}
	now := time.Now()
	s.mu.Lock()
	if s.sessions[id] != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("start: session %s already exists", id)
	}
	ss := &session{
		id: id, cwd: info.Cwd, title: title, model: info.Model, permissionMode: info.PermissionMode,
		initialMessage: info.Message, createdAt: now, lastActivity: now, running: true,
		allowed: map[string]bool{}, phaseCount: map[string]int{}, dialects: map[string]string{},
	}
	if ss.permissionMode == "" {
		ss.permissionMode = "default"
	}
	if ss.model == "" {
		ss.model = "claude-sonnet-4-5"
	}
	s.shapeStartLocked(ss, info)
	s.sessions[id] = ss
	s.order = append(s.order, id)
	s.mu.Unlock()
	s.publishUpdate(ss)
	s.enqueue(ss, info.Message)
	return id, nil
}

func (s *Simulator) apiSend(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionID string `json:"sessionId"`
		Message   string `json:"message"`
		UUID      string `json:"uuid"`
	}
	if err := readJSON(r, &req); err != nil {
		http.Error(w, "send: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	ss := s.sessions[req.SessionID]
	s.mu.Unlock()
	if ss == nil {
		http.Error(w, "send: no session "+req.SessionID, http.StatusNotFound)
		return
	}
	if req.Message == "" {
		http.Error(w, "send: message is empty", http.StatusBadRequest)
		return
	}
	s.enqueueUUID(ss, req.Message, req.UUID)
	writeJSON(w, nil)
}

func (s *Simulator) apiTranscript(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from, _ := strconv.Atoi(q.Get("from"))
	s.mu.Lock()
	ss := s.sessions[q.Get("id")]
	if ss == nil {
		s.mu.Unlock()
		http.Error(w, "transcript: no session "+q.Get("id"), http.StatusNotFound)
		return
	}
	if limit, err := strconv.Atoi(q.Get("tail")); err == nil {
		entries, total := ss.tailLocked(limit)
		s.mu.Unlock()
		writeJSON(w, map[string]any{"total": total, "entries": entries})
		return
	}
	total := len(ss.transcript)
	from = max(0, min(from, total))
	entries := slices.Clone(ss.transcript[from:])
	s.mu.Unlock()
	if entries == nil {
		entries = []json.RawMessage{}
	}
	writeJSON(w, map[string]any{"total": total, "from": from, "entries": entries})
}

func (s *Simulator) apiAction(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionID    string          `json:"sessionId"`
		RequestID    string          `json:"requestId"`
		Decision     string          `json:"decision"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
		Value        string          `json:"value"`
	}
	if err := readJSON(r, &req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	action := r.PathValue("action")
	if action == "respond" {
		if err := s.respond(req.RequestID, req.Decision, req.UpdatedInput); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, nil)
		return
	}
	s.mu.Lock()
	ss := s.sessions[req.SessionID]
	if ss == nil {
		s.mu.Unlock()
		http.Error(w, action+": no session "+req.SessionID, http.StatusNotFound)
		return
	}
	var err error
	switch action {
	case "interrupt":
		ss.interruptLocked()
	case "stop":
		ss.interruptLocked()
		ss.running = false
	case "archive":
		ss.archived = true
	case "unarchive":
		ss.archived = false
	case "delete":
		ss.interruptLocked()
		s.removeLocked(ss.id)
		delete(s.sessions, ss.id)
		s.order = slices.DeleteFunc(s.order, func(id string) bool { return id == ss.id })
	case "model":
		ss.model = req.Value
	case "mode":
		if contract.ValidPermissionMode(req.Value) {
			ss.permissionMode = req.Value
		} else {
			err = fmt.Errorf("unknown permission mode %q", req.Value)
		}
	default:
		err = fmt.Errorf("unknown action %q", action)
	}
	s.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.publishUpdate(ss)
	writeJSON(w, nil)
}

// apiEvents streams events to the page (server-sent events).
func (s *Simulator) apiEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := make(chan []byte, 8192)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if _, ok := s.subs[ch]; ok {
			delete(s.subs, ch)
			close(ch)
		}
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(": hello\n\n"))
	fl.Flush()
	var feed <-chan []byte
	if r.URL.Query().Get("replay") == "1" {
		feed = s.replayFeed(r.Context())
	}
	for {
		select {
		case msg, ok := <-feed:
			if !ok {
				feed = nil
				continue
			}
			_, _ = w.Write([]byte("data: "))
			_, _ = w.Write(msg)
			_, _ = w.Write([]byte("\n\n"))
			fl.Flush()
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			_, _ = w.Write([]byte("data: "))
			_, _ = w.Write(msg)
			_, _ = w.Write([]byte("\n\n"))
			// write what is queued before flushing
			for n := len(ch); n > 0; n-- {
				m, ok := <-ch
				if !ok {
					fl.Flush()
					return
				}
				_, _ = w.Write([]byte("data: "))
				_, _ = w.Write(m)
				_, _ = w.Write([]byte("\n\n"))
			}
			fl.Flush()
		}
	}
}

// broadcast sends one event to every page. A page that is too far behind
// is dropped; its EventSource reconnects.
func (s *Simulator) broadcast(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encode event", "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- b:
		default:
			delete(s.subs, ch)
			close(ch)
		}
	}
}

func (s *Simulator) publishUpdate(ss *session) {
	s.mu.Lock()
	obj := ss.object()
	s.saveLocked(ss)
	s.mu.Unlock()
	s.broadcast(map[string]any{"kind": "event", "event": map[string]any{"type": "session_updated", "sessionId": ss.id, "session": obj}})
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
