// Package modelsim is "baton model-sim": a loopback stand-in for the
// Anthropic Messages API, so the real Claude Code CLI (ANTHROPIC_BASE_URL
// pointed at it) runs its real tools on real files while only the model's
// words are scripted.
//
// Its replies come from the scripted agent's model face (backend/agent,
// agent.Answer): the same decisions as on the simulator page, played
// through the CLI's tools; it links no browser code (no chromedp, which a
// test holds). The server adds what a model API adds: Server-Sent Events
// framed as the real API frames them (message_start, content_block_start /
// content_block_delta (text_delta, input_json_delta) / content_block_stop,
// message_delta with the stop reason and usage, message_stop, ping), the
// non-streaming JSON reply, count_tokens, the model list, usage on every
// reply, and the faults of the scenarios (see Scenarios).
//
// # Choosing a scenario
//
// As on the simulator page, first match wins:
//
//  1. a marker in a user message of the conversation,
//     [[sim:scenario=NAME k=v …]] (the last one counts);
//  2. a rule (Server.SetScenario, or --scenario-for match=NAME): the last
//     rule whose match is a substring of the CLI's session id, of the
//     working directory or of the session's first prompt;
//  3. Options.Scenario, "happy" when empty.
//
// The API faults (overloaded, server-error, rate-limited, usage-limit,
// cut-stream, garbage, no-answer) hit every request of the session, or only its first
// N with the parameter times=N (e.g. [[sim:scenario=overloaded times=1]]),
// so a retry can be seen to succeed.
package modelsim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/agent"
)

// Scenario is one named behaviour of the stand-in.
type Scenario struct {
	Name, Help string
}

// Scenarios are the behaviours model-sim plays, in the order --help lists
// them.
var Scenarios = []Scenario{
	{"happy", "valid answers for every phase: explore with the CLI's tools, write and edit the task's files, run the tests, end with the phase's block"},
	{"slow", "like happy, with a pause before every stream event (parameter delay=MS, default 400)"},
	{"cut-stream", "the stream stops in the middle of a text block: no content_block_stop, no message_stop, the connection closes"},
	{"no-answer", "the request is accepted and never answered (until the client gives up)"},
	{"garbage", "HTTP 200 with an event stream that is not the Messages API: broken JSON and stray lines"},
	{"overloaded", "HTTP 529 with the API's overloaded_error body"},
	{"server-error", "HTTP 500 with the API's api_error body (a server-side outage, which the CLI retries as it retries a connection that fails)"},
	{"rate-limited", "HTTP 429 with the API's rate_limit_error body and retry-after (parameter after=SECONDS, default 1)"},
	{"usage-limit", "a subscription's usage limit: HTTP 429 with the anthropic-ratelimit-unified headers (rejected, reset at the next full hour); logged in as a subscriber (CLAUDE_CODE_OAUTH_TOKEN=any instead of ANTHROPIC_API_KEY) the CLI shows \"You've hit your 5-hour limit · resets <hour> (<time zone>)\", with an API key \"API Error: Request rejected (429)\""},
	{"needs-permission", "before answering, runs a Bash command that changes the folder (touch .baton-model-sim), which the CLI's default permission mode asks about"},
	{"asks-question", "calls AskUserQuestion before answering"},
	{"out-of-scope", "as worker, also writes a file outside its task's scope (OUT-OF-SCOPE.md in another folder)"},
	{"worker-hangs", "after exploring, never answers the next request"},
	{"worker-fails", "as worker, runs a failing command and reports status failed"},
	{"malformed-json", "the first answer of each phase has broken JSON"},
	{"no-delimiters", "the first answer of each phase has no <<<…>>> delimiters"},
	{"missing-fields", "the first answer of each phase lacks required fields"},
	{"rejected-once", "as reviewer, rejects the first review of each task, then approves"},
	{"clarification", "as worker, first answers needs_input with a question, then completes once answered"},
	{"qa-fails", "as verifier, fails the first verification, then passes"},
	{"conflict", "as worker, reports a conflict with another agent over a file of its scope"},
	{"wrong-task-id", "as worker, does its work and reports it under another task's id (task_001's, or task_002's for task_001); times=N lies in the first N reports only"},
	{"claims-without-writing", "as worker, writes nothing and reports success naming the files it would have written; times=N lies in the first N reports only"},
	{"verification-lies", "as worker, also writes a file that breaks the project's build (or a failing test) and runs no check; as verifier, says \"pass\" whatever the tests say; times=N lies in the first N answers only"},
}

// ValidScenario reports whether name is a scenario of model-sim.
func ValidScenario(name string) bool {
	return slices.ContainsFunc(Scenarios, func(s Scenario) bool { return s.Name == name })
}

func scenarioNames() string {
	var names []string
	for _, s := range Scenarios {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// Options configure a Server.
type Options struct {
	// Addr is the listen address, "127.0.0.1:0" when empty. Only loopback
	// addresses are accepted.
	Addr string
	// Scenario is the default scenario, "happy" when empty.
	Scenario string
	// Logger receives a line per request; slog.Default when nil.
	Logger *slog.Logger
	// Log, if set, receives one JSON line per request: the request as sent
	// and what the server answered (for learning the CLI's shapes).
	Log io.Writer
}

// Server is the Messages API stand-in.
type Server struct {
	opts Options
	log  *slog.Logger
	ln   net.Listener
	srv  *http.Server
	ctx  context.Context
	stop context.CancelFunc

	mu     sync.Mutex
	rules  []rule
	faults map[string]int // session → faults served so far
	logMu  sync.Mutex
}

type rule struct {
	match, scenario string
	params          map[string]string
}

// CheckLoopback refuses a listen address that is not a loopback one.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("the listen address %q is not host:port: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("model-sim listens on this machine only: %q is not a loopback address (use 127.0.0.1:PORT or [::1]:PORT)", addr)
	}
	return nil
}

// New makes a Server; Start makes it listen.
func New(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Scenario == "" {
		opts.Scenario = "happy"
	}
	if !ValidScenario(opts.Scenario) {
		return nil, fmt.Errorf("unknown scenario %q (known: %s)", opts.Scenario, scenarioNames())
	}
	if err := CheckLoopback(opts.Addr); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Server{opts: opts, log: log.With("component", "model-sim"), faults: map[string]int{}}, nil
}

// SetScenario makes sessions that match use scenario: the CLI's session
// id, the working directory or the first prompt contains match. The
// scenario may carry parameters as a marker does ("slow delay=50"). A later
// rule wins over an earlier one; a rule with the same match replaces it.
func (s *Server) SetScenario(match, scenario string) error {
	fields := strings.Fields(scenario)
	if len(fields) == 0 || !ValidScenario(fields[0]) {
		return fmt.Errorf("unknown scenario %q (known: %s)", scenario, scenarioNames())
	}
	params := map[string]string{}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("scenario %q: %q is not NAME=VALUE", scenario, f)
		}
		params[k] = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = slices.DeleteFunc(s.rules, func(r rule) bool { return r.match == match })
	s.rules = append(s.rules, rule{match, fields[0], params})
	return nil
}

// Start listens and serves until Shutdown.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s.ln = ln
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.srv = &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return s.ctx }}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
	return nil
}

// URL is the base URL to give the CLI as ANTHROPIC_BASE_URL, such as
// "http://127.0.0.1:41234".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Shutdown stops the server; requests held open (no-answer) end at once.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	s.stop()
	return s.srv.Shutdown(ctx)
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.countTokens)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id}", s.model)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "not_found_error", "model-sim does not serve "+r.Method+" "+r.URL.Path)
	})
	return s.guard(mux)
}

// guard answers only requests addressed to this server by a loopback name
// (no DNS rebinding) and from no web page.
func (s *Server) guard(next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	allowed := map[string]bool{"127.0.0.1:" + port: true, "localhost:" + port: true, "[::1]:" + port: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[r.Host] {
			apiError(w, http.StatusForbidden, "permission_error", "wrong host "+r.Host)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			apiError(w, http.StatusForbidden, "permission_error", "requests from web pages are refused")
			return
		}
		w.Header().Set("request-id", "req_"+randomID(24))
		next.ServeHTTP(w, r)
	})
}

// request is the part of a Messages API request model-sim reads.
type request struct {
	Model    string               `json:"model"`
	System   json.RawMessage      `json:"system"`
	Messages []agent.ModelMessage `json:"messages"`
	Tools    json.RawMessage      `json:"tools"`
	Stream   bool                 `json:"stream"`
	Metadata struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
}

func (s *Server) decode(w http.ResponseWriter, r *http.Request) (request, []byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	var req request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Messages API request: "+err.Error())
		return req, body, false
	}
	if len(req.Messages) == 0 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "messages: at least one message is required")
		return req, body, false
	}
	return req, body, true
}

// sessionID is the CLI's session id: its header, else the session_id in
// metadata.user_id (a JSON text), else "".
func sessionID(r *http.Request, req request) string {
	if id := r.Header.Get("X-Claude-Code-Session-Id"); id != "" {
		return id
	}
	var meta struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(req.Metadata.UserID), &meta) == nil && meta.SessionID != "" {
		return meta.SessionID
	}
	if _, after, ok := strings.Cut(req.Metadata.UserID, "_session_"); ok {
		return after
	}
	return ""
}

// scenario chooses the session's scenario and its parameters (see the
// package documentation).
func (s *Server) scenario(mr agent.ModelRequest) (string, map[string]string) {
	prompts := mr.Prompts()
	if name, params, ok := agent.Marker(strings.Join(prompts, "\n"), ValidScenario); ok {
		return name, params
	}
	first := ""
	if len(prompts) > 0 {
		first = prompts[0]
	}
	cwd := mr.WorkingDirectory()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range slices.Backward(s.rules) {
		if mr.SessionID != "" && strings.Contains(mr.SessionID, r.match) || cwd != "" && strings.Contains(cwd, r.match) || strings.Contains(first, r.match) {
			return r.scenario, maps.Clone(r.params)
		}
	}
	return s.opts.Scenario, map[string]string{}
}

// faultDue counts a fault against the session and reports whether it is
// served: always, or the first times=N requests.
func (s *Server) faultDue(session string, params map[string]string) bool {
	n, err := strconv.Atoi(params["times"])
	if err != nil || n <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[session]++
	return s.faults[session] <= n
}

// exchange is what one request was answered with, for the log.
type exchange struct {
	Time     string          `json:"time"`
	Path     string          `json:"path"`
	Session  string          `json:"session,omitempty"`
	Scenario string          `json:"scenario,omitempty"`
	Phase    string          `json:"phase,omitempty"`
	Step     int             `json:"step"`
	Status   int             `json:"status"`
	Request  json.RawMessage `json:"request,omitempty"`
	Reply    any             `json:"reply,omitempty"`
}

func (s *Server) record(e exchange) {
	s.log.Info("request", "path", e.Path, "session", e.Session, "scenario", e.Scenario, "phase", e.Phase, "step", e.Step, "status", e.Status)
	if s.opts.Log == nil {
		return
	}
	e.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = s.opts.Log.Write(append(b, '\n'))
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	req, body, ok := s.decode(w, r)
	if !ok {
		s.record(exchange{Path: r.URL.Path, Status: http.StatusBadRequest, Request: json.RawMessage(validJSON(body))})
		return
	}
	mr := agent.ModelRequest{System: req.System, Messages: req.Messages, SessionID: sessionID(r, req)}
	var tools []struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(req.Tools, &tools)
	for _, t := range tools {
		mr.Tools = append(mr.Tools, t.Name)
	}
	name, params := s.scenario(mr)
	mr.Scenario, mr.Params = name, params
	ex := exchange{Path: r.URL.Path, Session: mr.SessionID, Scenario: name, Request: body, Status: http.StatusOK}
	defer func() { s.record(ex) }()

	if fault := s.fault(w, r, name, params, mr.SessionID, &ex); fault {
		return
	}
	reply := agent.Answer(mr)
	ex.Phase, ex.Step = reply.Phase, reply.Step
	if reply.Hang {
		ex.Reply = "held open: the agent never answers"
		hold(r.Context())
		return
	}
	msg := newMessage(req, reply)
	ex.Reply = msg.json()
	if !req.Stream {
		writeJSON(w, http.StatusOK, msg.json())
		return
	}
	delay := time.Duration(0)
	if name == "slow" {
		delay = 400 * time.Millisecond
		if ms, err := strconv.Atoi(params["delay"]); err == nil && ms >= 0 {
			delay = time.Duration(ms) * time.Millisecond
		}
	}
	if err := stream(r.Context(), w, msg, delay, -1); err != nil {
		s.log.Debug("stream", "err", err)
	}
}

// fault serves the scenario's API fault, if it has one and it is due, and
// reports whether it did.
func (s *Server) fault(w http.ResponseWriter, r *http.Request, name string, params map[string]string, session string, ex *exchange) bool {
	switch name {
	case "overloaded", "server-error", "rate-limited", "usage-limit", "cut-stream", "garbage", "no-answer":
	default:
		return false
	}
	if !s.faultDue(session, params) {
		return false
	}
	switch name {
	case "overloaded":
		ex.Status = 529
		w.Header().Set("x-should-retry", "true")
		apiError(w, 529, "overloaded_error", "Overloaded")
	case "server-error":
		ex.Status = http.StatusInternalServerError
		w.Header().Set("x-should-retry", "true")
		apiError(w, http.StatusInternalServerError, "api_error", "Internal server error")
	case "rate-limited":
		after := "1"
		if n, err := strconv.Atoi(params["after"]); err == nil && n >= 0 {
			after = strconv.Itoa(n)
		}
		w.Header().Set("retry-after", after)
		w.Header().Set("anthropic-ratelimit-requests-limit", "50")
		w.Header().Set("anthropic-ratelimit-requests-remaining", "0")
		w.Header().Set("anthropic-ratelimit-requests-reset", time.Now().Add(time.Duration(atoi(after))*time.Second).UTC().Format(time.RFC3339))
		ex.Status = http.StatusTooManyRequests
		w.Header().Set("x-should-retry", "true")
		apiError(w, http.StatusTooManyRequests, "rate_limit_error", "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.")
	case "usage-limit":
		reset := UsageLimitReset(time.Now())
		h := w.Header()
		h.Set("anthropic-ratelimit-unified-status", "rejected")
		h.Set("anthropic-ratelimit-unified-reset", strconv.FormatInt(reset.Unix(), 10))
		h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
		h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
		h.Set("anthropic-ratelimit-unified-5h-reset", strconv.FormatInt(reset.Unix(), 10))
		h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
		h.Set("anthropic-ratelimit-unified-fallback", "unavailable")
		h.Set("anthropic-ratelimit-unified-overage-status", "rejected")
		h.Set("anthropic-ratelimit-unified-overage-disabled-reason", "org_level_disabled")
		ex.Status = http.StatusTooManyRequests
		apiError(w, http.StatusTooManyRequests, "rate_limit_error", "This request would exceed your account's rate limit. Please try again later.")
	case "no-answer":
		ex.Reply = "held open: no answer"
		hold(r.Context())
	case "garbage":
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\n\n"+
			"this is not an event stream\n\u0000\u00ff\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"mystery\"}}\n\n"+
			"data: ]]]\n\n")
		ex.Reply = "garbage"
	case "cut-stream":
		msg := &message{ID: "msg_" + randomID(24), Model: Models[1].ID, Content: []agent.ModelBlock{{Type: "text", Text: "I am reading the project and will answer with the block once I have looked at every file of the scope."}}, StopReason: "end_turn", usage: usage{Input: 10, Output: 30}}
		ex.Reply = "cut in the middle of a text block"
		_ = stream(r.Context(), w, msg, 0, 1)
		// end the response without the chunked terminator: the client sees
		// the connection close in the middle of the body
		panic(http.ErrAbortHandler)
	}
	return true
}

// UsageLimitReset is the reset time usage-limit reports: the next full
// hour after now.
func UsageLimitReset(now time.Time) time.Time {
	return now.Truncate(time.Hour).Add(time.Hour)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// hold waits until the client goes away or the server stops.
func hold(ctx context.Context) { <-ctx.Done() }

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	req, body, ok := s.decode(w, r)
	if !ok {
		return
	}
	u := countUsage(req)
	n := u.Input + u.CacheCreation + u.CacheRead
	s.record(exchange{Path: r.URL.Path, Status: http.StatusOK, Reply: map[string]any{"input_tokens": n}, Request: body})
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
}

// Models are the models /v1/models lists. Any model name is accepted in
// a request, and echoed in the reply.
var Models = []struct{ ID, Name string }{
	{"claude-opus-4-5", "Claude Opus 4.5"},
	{"claude-sonnet-4-5", "Claude Sonnet 4.5"},
	{"claude-haiku-4-5", "Claude Haiku 4.5"},
}

func modelObject(id, name string) map[string]any {
	return map[string]any{"type": "model", "id": id, "display_name": name, "created_at": "2025-09-29T00:00:00Z"}
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var data []any
	for _, m := range Models {
		data = append(data, modelObject(m.ID, m.Name))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": false, "first_id": Models[0].ID, "last_id": Models[len(Models)-1].ID})
}

func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, m := range Models {
		if m.ID == id {
			writeJSON(w, http.StatusOK, modelObject(m.ID, m.Name))
			return
		}
	}
	apiError(w, http.StatusNotFound, "not_found_error", "model: "+id)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes an error in the API's shape:
// {"type":"error","error":{"type":…,"message":…},"request_id":…}.
func apiError(w http.ResponseWriter, status int, kind, msg string) {
	id := w.Header().Get("request-id")
	if id == "" {
		id = "req_" + randomID(24)
		w.Header().Set("request-id", id)
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}, "request_id": id})
}

func randomID(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

func validJSON(b []byte) []byte {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}
