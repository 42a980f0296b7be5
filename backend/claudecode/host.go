// Package claudecode is the Claude Code CLI host: it implements
// engine.SessionHost and engine.SessionBrowser over child processes of the
// real `claude` command, without Claude Desktop.
//
// Each session is one child
//
//	claude -p --input-format stream-json --output-format stream-json --verbose
//	       --permission-prompt-tool stdio --session-id <uuid> [--permission-mode M] [--model M]
//
// started in the session's folder with Baton's environment (API key,
// ANTHROPIC_BASE_URL, proxies, Bedrock/Vertex variables and the user's login
// all reach it unchanged). The first message and every later one (re-prompts,
// answers, review rejections) go to its stdin as stream-json user lines; its
// stdout is read as it comes and each event is kept in memory and appended to
// a stream log in the state folder, so Read hands out only entries after a
// cursor without re-reading anything, and a notice goes out for every event.
// Permission prompts come as control_request lines of subtype can_use_tool
// and are answered with a control_response (allow with the tool input, with
// the CLI's suggested rules for "always", or deny); an AskUserQuestion call is
// such a prompt too, answered with the answers in the input.
//
// Children run in their own process group and die with Baton (on Linux even
// when Baton is killed). A child that exits during a turn is noticed from its
// exit at once: the session gets an error result, which the engine handles
// like any failed turn. A session whose child is gone (it exited, Baton
// restarted, or it sat idle) goes on with `claude --resume <uuid>` from the
// CLI's own on-disk transcript when the next message is sent.
package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baton-app/baton/backend/atomicfile"
	"github.com/baton-app/baton/backend/engine"
)

// Label is how the UI names this host.
const Label = "Claude Code (CLI)"

// ErrNoSession is returned for a session id the host does not know.
var ErrNoSession = engine.ErrNoSession

// ErrClosed is returned after Close.
var ErrClosed = errors.New("the Claude Code host is closed")

// Options configure a Host.
type Options struct {
	// Path is the claude binary; "claude" on PATH when empty.
	Path string
	// Env is added to the base environment of every child (KEY=VALUE; a
	// key given here replaces the base's value).
	Env []string
	// BaseEnv is the environment children start from; Baton's own
	// (os.Environ) when nil.
	BaseEnv []string
	// StateDir keeps one small metadata file and one stream log per
	// session, so sessions outlive Baton. Required.
	StateDir string
	// Args are added to every child's arguments.
	Args []string
	// StartTimeout bounds the wait for a new child's first event; 2
	// minutes when zero.
	StartTimeout time.Duration
	// IdleStop ends a child that has had no turn running and no prompt
	// waiting for this long (the next message resumes it): a finished or
	// cancelled run's main session, or one waiting through a long worker
	// phase, holds no process. One minute when zero, never when negative.
	IdleStop time.Duration
	// StopGrace is how long a child that is asked to end (its input
	// closed, then SIGTERM) has before it is killed; 3 seconds when zero.
	StopGrace time.Duration
	// ReadLimit is the most entries one Read returns; 2000 when zero.
	ReadLimit int
	// Notices receives the sessions' notices; when nil the Host makes its
	// own channel, which Notices returns.
	Notices chan<- engine.Notice
	// Logger; slog.Default when nil.
	Logger *slog.Logger
}

// Host runs Claude Code sessions as child processes. It is safe for
// concurrent use.
type Host struct {
	opts    Options
	path    string
	log     *slog.Logger
	notices chan<- engine.Notice
	own     chan engine.Notice // notices when Options.Notices is nil

	mu       sync.Mutex
	sessions map[engine.SessionID]*session
	closed   bool

	readers sync.WaitGroup
	ctrlSeq atomic.Int64
}

var (
	_ engine.SessionHost    = (*Host)(nil)
	_ engine.SessionBrowser = (*Host)(nil)
)

// New makes a Host; no child starts until a session does. It fails when
// the binary cannot be found or the state folder cannot be made.
func New(opts Options) (*Host, error) {
	if opts.StateDir == "" {
		return nil, errors.New("claude code host: no state folder given")
	}
	if err := os.MkdirAll(opts.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("claude code host: make the state folder: %w", err)
	}
	path, err := FindBinary(opts.Path)
	if err != nil {
		return nil, err
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	if opts.IdleStop == 0 {
		opts.IdleStop = time.Minute
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 3 * time.Second
	}
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = 2000
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	h := &Host{opts: opts, path: path, log: log.With("component", "claudecode"), notices: opts.Notices,
		sessions: map[engine.SessionID]*session{}}
	if h.notices == nil {
		h.own = make(chan engine.Notice, 1024)
		h.notices = h.own
	}
	return h, nil
}

// FindBinary returns the path of the claude binary: path itself when it is
// given (it must exist), else "claude" on PATH.
func FindBinary(path string) (string, error) {
	if path == "" {
		p, err := exec.LookPath("claude")
		if err != nil {
			return "", errors.New("the Claude Code CLI (claude) is not on PATH: install it (npm install -g @anthropic-ai/claude-code) or give its path")
		}
		return p, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("the Claude Code CLI is not at %s: install it there or give the right path", path)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a folder, not the Claude Code CLI: give the path of the claude binary", path)
	}
	return path, nil
}

// Path is the binary the host runs.
func (h *Host) Path() string { return h.path }

// Notices implements engine.SessionHost: one notice per event a child
// writes, one per permission prompt, one when a child exits.
func (h *Host) Notices() <-chan engine.Notice { return h.own }

func (h *Host) notify(id engine.SessionID, kind engine.NoticeKind) {
	select {
	case h.notices <- engine.Notice{SessionID: id, Kind: kind}:
	default:
		// Nobody is keeping up: the engine's poll finds the change.
		h.log.Debug("notice dropped", "session", id, "kind", kind)
	}
}

// meta is what the state folder keeps of a session besides its events.
type meta struct {
	ID             engine.SessionID `json:"id"`
	UUID           string           `json:"uuid"`
	Cwd            string           `json:"cwd"`
	Title          string           `json:"title,omitempty"`
	Model          string           `json:"model,omitempty"`
	PermissionMode string           `json:"permissionMode,omitempty"`
	CreatedAt      time.Time        `json:"createdAt"`
	Archived       bool             `json:"archived,omitempty"`
}

type session struct {
	meta    meta
	entries []json.RawMessage
	uuids   []string
	turn    bool // a turn is running
	pending []pendingRequest
	proc    *proc
	spawns  int // children started in this Host
	logf    *os.File
	last    time.Time
	idle    *time.Timer
	// held is an assistant entry with only text, kept back until the
	// child's next line (or holdFor): the text that ends a turn then shows
	// together with the turn's result, so an answer read from it is never
	// read before the turn ended (a prompt sent on it would otherwise see
	// that result as its own, and a worker's cost would be missed).
	held     json.RawMessage
	heldUUID string
	holdT    *time.Timer
}

// holdFor bounds how long a text entry is kept back.
const holdFor = 3 * time.Second

type pendingRequest struct {
	req         engine.PermissionRequest
	suggestions []json.RawMessage
}

// Start implements engine.SessionHost: it starts the child in opts.Cwd,
// sends opts.Message and returns once the child answered with its first
// event. The session id is opts.ID (a worker's id such as
// local___orch_run_worker_task, mapped to a UUID for the CLI), or a new UUID.
// Starting an id that exists goes on with that session.
func (h *Host) Start(ctx context.Context, opts engine.StartOptions) (engine.SessionID, error) {
	if opts.Cwd == "" || opts.Message == "" {
		return "", errors.New("start session: cwd and message are required")
	}
	if st, err := os.Stat(opts.Cwd); err != nil || !st.IsDir() {
		return "", fmt.Errorf("start session: %s is not a folder", opts.Cwd)
	}
	id := opts.ID
	if id == "" {
		id = engine.SessionID(newUUID())
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return "", ErrClosed
	}
	s, err := h.sessionLocked(id)
	if err == nil {
		// Known already (a start retried after a crash): go on with it.
		running := s.proc != nil && s.turn
		h.mu.Unlock()
		if running {
			return id, nil
		}
		return id, h.Send(ctx, id, opts.Message)
	}
	if !errors.Is(err, ErrNoSession) {
		h.mu.Unlock()
		return "", err
	}
	s = &session{meta: meta{
		ID: id, UUID: uuidFor(id), Cwd: opts.Cwd, Title: opts.Title, Model: opts.Model,
		PermissionMode: opts.PermissionMode, CreatedAt: time.Now().UTC(),
	}}
	if s.meta.Title == "" {
		s.meta.Title = firstLine(opts.Message, 80)
	}
	if err := h.saveMeta(s); err != nil {
		h.mu.Unlock()
		return "", fmt.Errorf("start session: %w", err)
	}
	h.sessions[id] = s
	p, err := h.spawnLocked(s)
	if err != nil {
		h.mu.Unlock()
		return "", fmt.Errorf("start session: %w", err)
	}
	line := h.addInputLocked(s, opts.Message)
	h.mu.Unlock()
	h.notify(id, engine.NoticeMessage)
	if err := p.write(line); err != nil {
		return "", fmt.Errorf("start session: write to claude: %w (%s)", err, p.stderr.tail())
	}
	select {
	case <-p.first:
		return id, nil
	case <-p.done:
		return "", fmt.Errorf("start session: claude exited at once: %s", p.exitReason())
	case <-ctx.Done():
		return "", fmt.Errorf("start session: %w", ctx.Err())
	case <-time.After(h.opts.StartTimeout):
		return "", fmt.Errorf("start session: claude wrote nothing within %s (%s)", h.opts.StartTimeout, p.stderr.tail())
	}
}

// Send implements engine.SessionHost: it writes text to the session's
// child as a user message, resuming the session in a new child first when
// its child is gone. The message is in the transcript when Send returns.
func (h *Host) Send(ctx context.Context, id engine.SessionID, text string) error {
	if text == "" {
		return errors.New("send: message is empty")
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	s, err := h.sessionLocked(id)
	if err != nil {
		h.mu.Unlock()
		return fmt.Errorf("send to %s: %w", id, err)
	}
	if s.meta.Archived {
		s.meta.Archived = false
		if err := h.saveMeta(s); err != nil {
			h.log.Warn("unarchive session", "session", id, "err", err)
		}
	}
	p := s.proc
	if p == nil {
		if p, err = h.spawnLocked(s); err != nil {
			h.mu.Unlock()
			return fmt.Errorf("send to %s: %w", id, err)
		}
	}
	line := h.addInputLocked(s, text)
	h.mu.Unlock()
	h.notify(id, engine.NoticeMessage)
	if err := p.write(line); err != nil {
		return fmt.Errorf("send to %s: write to claude: %w (%s)", id, err, p.stderr.tail())
	}
	return ctx.Err()
}

// addInputLocked records a user message in the transcript and returns the
// stream-json line that sends it.
func (h *Host) addInputLocked(s *session, text string) []byte {
	u := newUUID()
	entry, _ := json.Marshal(map[string]any{
		"type": "user", "message": map[string]any{"role": "user", "content": text},
		"session_id": s.meta.UUID, "uuid": u, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"parent_tool_use_id": nil, batonInput: true,
	})
	h.appendLocked(s, entry, u)
	s.turn = true
	h.stopIdleLocked(s)
	line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return line
}

// batonInput marks the user entries Baton sent, so a stream log read back
// tells whether its last turn finished.
const batonInput = "baton_input"

func (h *Host) appendLocked(s *session, entry json.RawMessage, u string) {
	s.entries = append(s.entries, entry)
	s.uuids = append(s.uuids, u)
	s.last = time.Now()
	if s.logf != nil {
		if _, err := s.logf.Write(append(slices.Clip(entry), '\n')); err != nil {
			h.log.Warn("write the stream log", "session", s.meta.ID, "err", err)
		}
	}
}

// Read implements engine.SessionHost: the entries after cursor, from
// memory. Entries are the child's stream-json events (system, assistant,
// user, result) and the user messages Baton sent.
func (h *Host) Read(ctx context.Context, id engine.SessionID, cursor engine.Cursor) (engine.Batch, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked(id)
	if err != nil {
		return engine.Batch{}, fmt.Errorf("read %s: %w", id, err)
	}
	total := len(s.entries)
	start, reset := cursor.Index, false
	if start < 0 || start > total || (start > 0 && cursor.UUID != "" && s.uuids[start-1] != cursor.UUID) {
		start, reset = 0, true
	}
	end := min(total, start+h.opts.ReadLimit)
	out := append([]json.RawMessage{}, s.entries[start:end]...)
	next := engine.Cursor{Index: end}
	if end > 0 {
		next.UUID = s.uuids[end-1]
	}
	return engine.Batch{Entries: out, Next: next, Total: total, Reset: reset}, nil
}

// Session implements engine.SessionHost.
func (h *Host) Session(ctx context.Context, id engine.SessionID) (engine.SessionInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked(id)
	if err != nil {
		return engine.SessionInfo{}, fmt.Errorf("session %s: %w", id, err)
	}
	return s.info(), nil
}

func (s *session) info() engine.SessionInfo {
	si := engine.SessionInfo{
		ID: s.meta.ID, Title: s.meta.Title, Cwd: s.meta.Cwd, Model: s.meta.Model, PermissionMode: s.meta.PermissionMode,
		Running: s.proc != nil, TurnRunning: s.turn, Archived: s.meta.Archived,
		Hidden: engine.IsHidden(s.meta.ID, s.meta.Title), CreatedAt: s.meta.CreatedAt, LastActivityAt: s.last,
		Pending: []engine.PermissionRequest{},
	}
	for _, p := range s.pending {
		si.Pending = append(si.Pending, p.req)
	}
	return si
}

// List implements engine.SessionBrowser: every session of the state
// folder, the newest activity first.
func (h *Host) List(ctx context.Context, includeHidden bool) ([]engine.SessionInfo, error) {
	files, err := filepath.Glob(filepath.Join(h.opts.StateDir, "*.json"))
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[engine.SessionID]bool{}
	var out []engine.SessionInfo
	add := func(si engine.SessionInfo) {
		if seen[si.ID] || (si.Hidden && !includeHidden) {
			return
		}
		seen[si.ID] = true
		out = append(out, si)
	}
	for _, s := range h.sessions {
		add(s.info())
	}
	for _, f := range files {
		m, err := readMeta(f)
		if err != nil || seen[m.ID] {
			continue
		}
		s := &session{meta: m}
		if st, err := os.Stat(strings.TrimSuffix(f, ".json") + ".jsonl"); err == nil {
			s.last = st.ModTime()
		}
		add(s.info())
	}
	slices.SortFunc(out, func(a, b engine.SessionInfo) int { return b.LastActivityAt.Compare(a.LastActivityAt) })
	return out, nil
}

// Pending returns the permission prompts waiting in every running session
// (hidden ones included).
func (h *Host) Pending(ctx context.Context) ([]engine.PermissionRequest, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []engine.PermissionRequest
	for _, s := range h.sessions {
		for _, p := range s.pending {
			out = append(out, p.req)
		}
	}
	return out, nil
}

// RespondPermission implements engine.SessionBrowser: once allows the call
// (with updatedInput when given, such as an AskUserQuestion's answers),
// always allows it and adds the rules the CLI suggested (as its own "don't
// ask again" does), deny refuses it.
func (h *Host) RespondPermission(ctx context.Context, requestID string, decision engine.PermissionDecision, updatedInput json.RawMessage) error {
	if !decision.Valid() {
		return fmt.Errorf("respond to %s: unknown decision %q", requestID, decision)
	}
	h.mu.Lock()
	var (
		s  *session
		pr pendingRequest
		at = -1
	)
	for _, cand := range h.sessions {
		for i, p := range cand.pending {
			if p.req.RequestID == requestID {
				s, pr, at = cand, p, i
			}
		}
	}
	if s == nil || s.proc == nil {
		h.mu.Unlock()
		return fmt.Errorf("respond to %s: no such permission request is waiting", requestID)
	}
	p := s.proc
	s.pending = slices.Delete(s.pending, at, at+1)
	h.mu.Unlock()
	var resp map[string]any
	switch decision {
	case engine.Deny:
		msg := "The user denied this tool use."
		if pr.req.ToolName == "AskUserQuestion" {
			msg = "The user declined to answer."
		}
		resp = map[string]any{"behavior": "deny", "message": msg}
	default:
		input := pr.req.Input
		if len(updatedInput) > 0 {
			input = updatedInput
		}
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		resp = map[string]any{"behavior": "allow", "updatedInput": input}
		if decision == engine.AllowAlways {
			if rules := alwaysRules(pr.suggestions); len(rules) > 0 {
				resp["updatedPermissions"] = rules
			}
		}
	}
	line, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": requestID, "response": resp,
	}})
	err := p.write(line)
	h.notify(s.meta.ID, engine.NoticeUpdated)
	if err != nil {
		return fmt.Errorf("respond to %s: %w", requestID, err)
	}
	return nil
}

// alwaysRules are the suggestions that remember an answer: the CLI's
// addRules suggestions, else all it offered.
func alwaysRules(sugg []json.RawMessage) []json.RawMessage {
	var rules []json.RawMessage
	for _, s := range sugg {
		var k struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(s, &k) == nil && k.Type == "addRules" {
			rules = append(rules, s)
		}
	}
	if len(rules) == 0 {
		return sugg
	}
	return rules
}

// Interrupt implements engine.SessionHost: it asks the child to stop the
// turn in progress (a control_request of subtype interrupt) and waits for
// its answer. A session without a running turn is left alone.
func (h *Host) Interrupt(ctx context.Context, id engine.SessionID) error {
	h.mu.Lock()
	s, err := h.sessionLocked(id)
	if err != nil {
		h.mu.Unlock()
		return fmt.Errorf("interrupt %s: %w", id, err)
	}
	p := s.proc
	turn := s.turn
	s.pending = nil
	h.mu.Unlock()
	if p == nil || !turn {
		return nil
	}
	if _, err := h.control(ctx, p, map[string]any{"subtype": "interrupt"}); err != nil {
		return fmt.Errorf("interrupt %s: %w", id, err)
	}
	return nil
}

// Archive implements engine.SessionHost: the session is marked archived
// and its child ends (a later message resumes it).
func (h *Host) Archive(ctx context.Context, id engine.SessionID) error {
	h.mu.Lock()
	s, err := h.sessionLocked(id)
	if err != nil {
		h.mu.Unlock()
		return fmt.Errorf("archive %s: %w", id, err)
	}
	s.meta.Archived = true
	err = h.saveMeta(s)
	p := s.proc
	h.mu.Unlock()
	if p != nil {
		p.stop(ctx, h.opts.StopGrace)
	}
	if err != nil {
		return fmt.Errorf("archive %s: %w", id, err)
	}
	h.notify(id, engine.NoticeUpdated)
	return nil
}

// Unarchive shows an archived session again.
func (h *Host) Unarchive(ctx context.Context, id engine.SessionID) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked(id)
	if err != nil {
		return fmt.Errorf("unarchive %s: %w", id, err)
	}
	s.meta.Archived = false
	return h.saveMeta(s)
}

// Stop ends the session's child (Running becomes false); the next message
// resumes it.
func (h *Host) Stop(ctx context.Context, id engine.SessionID) error {
	h.mu.Lock()
	s, err := h.sessionLocked(id)
	if err != nil {
		h.mu.Unlock()
		return fmt.Errorf("stop %s: %w", id, err)
	}
	p := s.proc
	h.mu.Unlock()
	if p != nil {
		p.stop(ctx, h.opts.StopGrace)
	}
	return nil
}

// Running returns the process ids of the children that run now.
func (h *Host) Running() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for _, s := range h.sessions {
		if s.proc != nil {
			out = append(out, s.proc.cmd.Process.Pid)
		}
	}
	slices.Sort(out)
	return out
}

// PID is the process id of the session's child, 0 when none runs.
func (h *Host) PID(id engine.SessionID) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.sessions[id]; ok && s.proc != nil {
		return s.proc.cmd.Process.Pid
	}
	return 0
}

// Close ends every child (and the tools they run) and waits for them;
// later calls fail with ErrClosed. Sessions stay in the state folder: a
// turn that Close cut off is ended with an error result when the session
// is next read, and goes on with --resume when next sent to.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	var procs []*proc
	for _, s := range h.sessions {
		if s.proc != nil {
			s.proc.closing.Store(true)
			procs = append(procs, s.proc)
		}
		h.stopIdleLocked(s)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.stop(ctx, min(h.opts.StopGrace, time.Second)) })
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { h.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var errs []error
	for _, s := range h.sessions {
		if s.logf != nil {
			errs = append(errs, s.logf.Close())
			s.logf = nil
		}
	}
	return errors.Join(errs...)
}

// sessionLocked returns the session, from memory or from the state folder.
func (h *Host) sessionLocked(id engine.SessionID) (*session, error) {
	if s, ok := h.sessions[id]; ok {
		return s, nil
	}
	if id == "" {
		return nil, ErrNoSession
	}
	u := uuidFor(id)
	m, err := readMeta(h.metaPath(u))
	if errors.Is(err, os.ErrNotExist) || (err == nil && m.ID != id) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	s := &session{meta: m}
	if err := h.loadLog(s); err != nil {
		return nil, err
	}
	h.sessions[id] = s
	return s, nil
}

// loadLog reads a session's stream log back after a restart. A turn the
// log shows unfinished was cut off with Baton: it gets an error result.
func (h *Host) loadLog(s *session) error {
	data, err := os.ReadFile(h.logPath(s.meta.UUID))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if st, err := os.Stat(h.logPath(s.meta.UUID)); err == nil {
		s.last = st.ModTime()
	}
	turn := false
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e struct {
			Type  string `json:"type"`
			UUID  string `json:"uuid"`
			Input bool   `json:"baton_input"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue // a line cut by a crash
		}
		s.entries = append(s.entries, json.RawMessage(bytes.Clone(line)))
		s.uuids = append(s.uuids, e.UUID)
		switch {
		case e.Type == "user" && e.Input:
			turn = true
		case e.Type == "result":
			turn = false
		}
	}
	if err := h.openLogLocked(s); err != nil {
		return err
	}
	if turn && !s.meta.Archived {
		h.endTurnLocked(s, "Baton stopped while this turn ran; the session goes on from its transcript when it is sent a message")
	}
	return nil
}

func (h *Host) openLogLocked(s *session) error {
	if s.logf != nil {
		return nil
	}
	f, err := os.OpenFile(h.logPath(s.meta.UUID), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the stream log: %w", err)
	}
	s.logf = f
	return nil
}

// endTurnLocked ends a turn that no result ended (its child exited or
// Baton stopped) with a result of subtype error_during_execution. Its
// is_error stays false: the session is not broken, only cut, so the engine
// asks it again, which resumes it (claude --resume) where it stopped,
// instead of failing a task that has not answered yet.
func (h *Host) endTurnLocked(s *session, reason string) {
	u := newUUID()
	entry, _ := json.Marshal(map[string]any{
		"type": "result", "subtype": "error_during_execution", "is_error": false, "result": reason,
		"session_id": s.meta.UUID, "uuid": u, "baton_cut": true,
	})
	h.appendLocked(s, entry, u)
	s.turn = false
	s.pending = nil
}

func (h *Host) metaPath(u string) string { return filepath.Join(h.opts.StateDir, u+".json") }
func (h *Host) logPath(u string) string  { return filepath.Join(h.opts.StateDir, u+".jsonl") }

func (h *Host) saveMeta(s *session) error {
	b, err := json.MarshalIndent(s.meta, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(h.metaPath(s.meta.UUID), b, 0o600)
}

func readMeta(path string) (meta, error) {
	var m meta
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", path, err)
	}
	if !uuidRE.MatchString(m.UUID) || m.ID == "" {
		return m, fmt.Errorf("read %s: no session id", path)
	}
	return m, nil
}

// ---- children ----

type proc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	wmu     sync.Mutex
	stderr  *tailBuffer
	first   chan struct{} // closed at the first event
	done    chan struct{} // closed when the child exited and its output is read
	waitErr error
	// stopping is set when Baton ends the child on purpose; closing
	// when it does so because Baton closes.
	stopping atomic.Bool
	closing  atomic.Bool

	cmu  sync.Mutex
	ctrl map[string]chan json.RawMessage
}

// spawnLocked starts a child for s: a new conversation under its UUID,
// or --resume of the one the CLI already has on disk.
func (h *Host) spawnLocked(s *session) (*proc, error) {
	if err := h.openLogLocked(s); err != nil {
		return nil, err
	}
	base := h.opts.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	env := append(slices.Clip(base), h.opts.Env...)
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--permission-prompt-tool", "stdio"}
	if transcriptExists(env, s.meta.UUID) {
		args = append(args, "--resume", s.meta.UUID)
	} else {
		args = append(args, "--session-id", s.meta.UUID)
	}
	if m := s.meta.PermissionMode; m != "" {
		args = append(args, "--permission-mode", m)
	}
	if m := s.meta.Model; m != "" {
		args = append(args, "--model", m)
	}
	args = append(args, h.opts.Args...)
	cmd := exec.Command(h.path, args...)
	cmd.Dir = s.meta.Cwd
	cmd.Env = env
	cmd.SysProcAttr = childAttr()
	p := &proc{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}, first: make(chan struct{}), done: make(chan struct{}), ctrl: map[string]chan json.RawMessage{}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", h.path, err)
	}
	h.log.Debug("claude started", "session", s.meta.ID, "uuid", s.meta.UUID, "pid", cmd.Process.Pid, "args", args)
	s.proc = p
	s.spawns++
	h.readers.Add(1)
	go h.read(s, p, stdout)
	return p, nil
}

// transcriptExists reports whether the CLI has the conversation u on disk
// (under CLAUDE_CONFIG_DIR, else $HOME/.claude, of env).
func transcriptExists(env []string, u string) bool {
	var home, config string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME":
			home = v
		case "CLAUDE_CONFIG_DIR":
			config = v
		}
	}
	if config == "" {
		if home == "" {
			return false
		}
		config = filepath.Join(home, ".claude")
	}
	m, _ := filepath.Glob(filepath.Join(config, "projects", "*", u+".jsonl"))
	return len(m) > 0
}

func (p *proc) write(line []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	select {
	case <-p.done:
		return fmt.Errorf("claude has exited (%s)", p.exitReason())
	default:
	}
	_, err := p.stdin.Write(append(slices.Clip(line), '\n'))
	return err
}

// stop ends the child: its input is closed and the group gets SIGTERM,
// then SIGKILL after grace.
func (p *proc) stop(ctx context.Context, grace time.Duration) {
	p.stopping.Store(true)
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	signalGroup(p.cmd, false)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	signalGroup(p.cmd, true)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
}

func (p *proc) exitReason() string {
	reason := "still running"
	select {
	case <-p.done:
		reason = "exit status 0"
		if p.waitErr != nil {
			reason = p.waitErr.Error()
		}
	default:
	}
	if t := p.stderr.tail(); t != "" {
		reason += ": " + t
	}
	return reason
}

// control sends a control_request and waits for its control_response.
func (h *Host) control(ctx context.Context, p *proc, request map[string]any) (json.RawMessage, error) {
	id := fmt.Sprintf("baton-%d", h.ctrlSeq.Add(1))
	ch := make(chan json.RawMessage, 1)
	p.cmu.Lock()
	p.ctrl[id] = ch
	p.cmu.Unlock()
	defer func() {
		p.cmu.Lock()
		delete(p.ctrl, id)
		p.cmu.Unlock()
	}()
	line, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": request})
	if err := p.write(line); err != nil {
		return nil, err
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case r := <-ch:
		return r, nil
	case <-p.done:
		return nil, nil // it exited: nothing left to interrupt
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errors.New("claude did not answer the control request within 10s")
	}
}

// event is what the host reads of one stream-json line.
type event struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	UUID      string `json:"uuid"`
	RequestID string `json:"request_id"`
	Request   *struct {
		Subtype               string            `json:"subtype"`
		ToolName              string            `json:"tool_name"`
		Input                 json.RawMessage   `json:"input"`
		PermissionSuggestions []json.RawMessage `json:"permission_suggestions"`
	} `json:"request"`
	Response *struct {
		Subtype   string `json:"subtype"`
		RequestID string `json:"request_id"`
		Error     string `json:"error"`
	} `json:"response"`
}

// read follows one child's output until it exits.
func (h *Host) read(s *session, p *proc, stdout io.Reader) {
	defer h.readers.Done()
	br := bufio.NewReaderSize(stdout, 64<<10)
	var once sync.Once
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			once.Do(func() { close(p.first) })
			h.handle(s, p, line)
		}
		if err != nil {
			break
		}
	}
	h.release(s)
	p.waitErr = p.cmd.Wait()
	// The tools it started end with it.
	signalGroup(p.cmd, true)
	close(p.done)
	h.exited(s, p)
}

func (h *Host) handle(s *session, p *proc, line []byte) {
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		h.release(s)
		h.log.Debug("claude wrote a line that is not JSON", "session", s.meta.ID, "line", firstLine(string(line), 200))
		return
	}
	id := s.meta.ID
	switch e.Type {
	case "keep_alive", "stream_event":
		return
	case "control_request", "control_cancel_request", "control_response":
		h.release(s)
	}
	switch e.Type {
	case "control_request":
		if e.Request == nil || e.Request.Subtype != "can_use_tool" {
			sub := ""
			if e.Request != nil {
				sub = e.Request.Subtype
			}
			resp, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
				"subtype": "error", "request_id": e.RequestID, "error": "Baton does not handle " + sub + " requests",
			}})
			go func() { _ = p.write(resp) }()
			return
		}
		h.mu.Lock()
		s.pending = append(s.pending, pendingRequest{
			req: engine.PermissionRequest{RequestID: e.RequestID, SessionID: id, ToolName: e.Request.ToolName,
				Input: e.Request.Input, Suggestions: suggestionsJSON(e.Request.PermissionSuggestions)},
			suggestions: e.Request.PermissionSuggestions,
		})
		s.last = time.Now()
		h.mu.Unlock()
		h.notify(id, engine.NoticePermission)
	case "control_cancel_request":
		h.mu.Lock()
		s.pending = slices.DeleteFunc(s.pending, func(r pendingRequest) bool { return r.req.RequestID == e.RequestID })
		h.mu.Unlock()
		h.notify(id, engine.NoticeUpdated)
	case "control_response":
		if e.Response == nil {
			return
		}
		p.cmu.Lock()
		ch := p.ctrl[e.Response.RequestID]
		p.cmu.Unlock()
		if ch != nil {
			ch <- json.RawMessage(bytes.Clone(line))
		}
	default:
		h.mu.Lock()
		// What was kept back comes first, in the same step, so that no
		// Read sees the text without what follows it.
		h.releaseLocked(s)
		if e.Type == "assistant" && textOnly(line) {
			s.held, s.heldUUID = json.RawMessage(bytes.Clone(line)), e.UUID
			s.holdT = time.AfterFunc(holdFor, func() { h.release(s) })
			h.mu.Unlock()
			return
		}
		h.appendLocked(s, json.RawMessage(bytes.Clone(line)), e.UUID)
		kind := engine.NoticeMessage
		if e.Type == "result" {
			kind = engine.NoticeResult
			s.turn = false
			s.pending = nil
			h.startIdleLocked(s, p)
		}
		h.mu.Unlock()
		h.notify(id, kind)
	}
}

// release adds the entry kept back, if any.
func (h *Host) release(s *session) {
	h.mu.Lock()
	released := h.releaseLocked(s)
	h.mu.Unlock()
	if released {
		h.notify(s.meta.ID, engine.NoticeMessage)
	}
}

func (h *Host) releaseLocked(s *session) bool {
	if s.held == nil {
		return false
	}
	s.holdT.Stop()
	h.appendLocked(s, s.held, s.heldUUID)
	s.held, s.heldUUID, s.holdT = nil, "", nil
	return true
}

// textOnly reports whether an assistant event holds only text (no tool
// call).
func textOnly(line []byte) bool {
	var e struct {
		Message struct {
			Content []struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil || len(e.Message.Content) == 0 {
		return false
	}
	for _, c := range e.Message.Content {
		if c.Type == "tool_use" || c.Type == "server_tool_use" {
			return false
		}
	}
	return true
}

func suggestionsJSON(s []json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}

// exited notes a child's exit. One that ends during a turn, unasked, ends
// the turn with an error result at once.
func (h *Host) exited(s *session, p *proc) {
	h.mu.Lock()
	// A child the idle stop let go of is no longer the session's: a new
	// one may run its next turn already.
	mine := s.proc == p
	if mine {
		s.proc = nil
		h.stopIdleLocked(s)
	}
	cut := mine && s.turn && !p.closing.Load()
	if cut {
		reason := "Claude Code exited during the turn (" + p.exitReason() + ")"
		if p.stopping.Load() {
			reason = "Baton ended the Claude Code process during the turn"
		}
		h.endTurnLocked(s, reason)
	}
	if mine {
		s.pending = nil
	}
	h.mu.Unlock()
	h.log.Debug("claude exited", "session", s.meta.ID, "pid", p.cmd.Process.Pid, "err", p.waitErr, "cut", cut)
	if cut {
		h.notify(s.meta.ID, engine.NoticeResult)
	} else {
		h.notify(s.meta.ID, engine.NoticeUpdated)
	}
}

// startIdleLocked arms the timer that ends an idle child.
func (h *Host) startIdleLocked(s *session, p *proc) {
	h.stopIdleLocked(s)
	if h.opts.IdleStop < 0 {
		return
	}
	s.idle = time.AfterFunc(h.opts.IdleStop, func() {
		h.mu.Lock()
		idle := s.proc == p && !s.turn && len(s.pending) == 0
		if idle {
			// Let go of it first, so that a message sent while it ends
			// starts a new child (with --resume) instead of reaching one
			// that is going away.
			s.proc = nil
		}
		h.mu.Unlock()
		if idle {
			h.log.Debug("ending an idle claude", "session", s.meta.ID)
			p.stop(context.Background(), h.opts.StopGrace)
		}
	})
}

func (h *Host) stopIdleLocked(s *session) {
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}

// ---- small things ----

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = b.buf[len(b.buf)-b.max:]
	}
	return len(p), nil
}

// tail is the last non-empty line written.
func (b *tailBuffer) tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(b.buf)), "\n")
	return firstLine(strings.TrimSpace(lines[len(lines)-1]), 300)
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// batonNamespace is the UUID namespace of the session UUIDs made from ids.
var batonNamespace = [16]byte{0x6b, 0x61, 0x74, 0x6f, 0x6e, 0x2d, 0x4c, 0x43, 0x8c, 0x6c, 0x61, 0x75, 0x64, 0x65, 0x2d, 0x63}

// uuidFor is the CLI's session UUID of a session id: the id itself when it
// is a UUID, else a name-based (version 5) UUID of it, so that the same id
// finds the same conversation after a restart.
func uuidFor(id engine.SessionID) string {
	s := strings.ToLower(string(id))
	if uuidRE.MatchString(s) {
		return s
	}
	h := sha1.New()
	h.Write(batonNamespace[:])
	h.Write([]byte(id))
	var b [16]byte
	copy(b[:], h.Sum(nil))
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	x := hex.EncodeToString(b[:])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}
