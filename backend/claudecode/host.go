// Package claudecode is the Claude Code CLI host: it implements
// session.Host and session.Browser over child processes of the
// real `claude` command, without Claude Desktop.
//
// Each session is one child
//
//	claude -p --input-format stream-json --output-format stream-json --verbose
//	       --permission-prompt-tool stdio --session-id <uuid> [--permission-mode M] [--model M]
//	       [--append-system-prompt TEXT]
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
// Children start through a Launcher (Local: children of Baton in their own
// process group, which die with Baton, on Linux even when Baton is killed),
// so a host kind that runs the CLI on another machine reuses all of this. A child that exits during a turn is noticed from its
// exit at once: the session gets an error result, which the engine handles
// like any failed turn. A session whose child is gone (it exited, Baton
// restarted, or it sat idle) goes on with `claude --resume <uuid>` from the
// CLI's own on-disk transcript when the next message is sent.
package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// Label is how the UI names this host.
const Label = "Claude Code (CLI)"

// ErrNoSession is returned for a session id the host does not know.
var ErrNoSession = session.ErrNoSession

// ErrClosed is returned after Close.
var ErrClosed = errors.New("the Claude Code host is closed")

// Options configure a Host.
type Options struct {
	// Path is the claude binary; "claude" on PATH when empty.
	Path string
	// Launcher starts the children (and finds the binary); Local when
	// nil.
	Launcher Launcher
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
	// MaxWarm bounds the children started ahead of their session's first
	// message (Warm); 8 when zero, none when negative.
	MaxWarm int
	// WarmFor is how long a warm child waits for its Start before it
	// ends; 45 seconds when zero.
	WarmFor time.Duration
	// Footprint is what one CLI is expected to take until the host has
	// measured its children (Room); 300 MiB when zero.
	Footprint int64
	// MemoryMargin is the memory Room keeps free beside the CLIs; 256 MiB
	// when zero.
	MemoryMargin int64
	// ProbeEvery is how often the host checks a model its CLIs could not
	// reach, once none of them retries any more (see Link); 3 seconds when
	// zero.
	ProbeEvery time.Duration
	// Notices receives the sessions' notices; when nil the Host makes its
	// own channel, which Notices returns.
	Notices chan<- session.Notice
	// Logger; slog.Default when nil.
	Logger *slog.Logger
}

// Host runs Claude Code sessions as child processes. It is safe for
// concurrent use.
type Host struct {
	opts    Options
	path    string
	log     *slog.Logger
	notices chan<- session.Notice
	own     chan session.Notice // notices when Options.Notices is nil

	mu       sync.Mutex
	sessions map[session.ID]*cliSession
	closed   bool

	warm map[session.ID]*warmChild
	mem  memory

	readers  sync.WaitGroup
	stoppers sync.WaitGroup // children ended in the background, warm children's initialize answers
	ctrlSeq  atomic.Int64
	// Starts of new sessions that met a warm child, and that did not;
	// readyStarts of the warm ones, those whose child had answered its
	// initialize request.
	warmStarts, coldStarts atomic.Int64
	readyStarts            atomic.Int64
	// model is the link: whether the children reach the model.
	model *modelLink
}

var (
	_ session.Host           = (*Host)(nil)
	_ session.Browser        = (*Host)(nil)
	_ session.SystemPrompter = (*Host)(nil)
	_ session.Roomer         = (*Host)(nil)
	_ session.HostLink       = (*Host)(nil)
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
	if opts.Launcher == nil {
		opts.Launcher = Local{Logger: opts.Logger}
	}
	path, err := opts.Launcher.Find(opts.Path)
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
	if opts.MaxWarm == 0 {
		opts.MaxWarm = 8
	}
	if opts.WarmFor <= 0 {
		opts.WarmFor = 45 * time.Second
	}
	if opts.Footprint <= 0 {
		opts.Footprint = DefaultFootprint
	}
	if opts.MemoryMargin <= 0 {
		opts.MemoryMargin = DefaultMemoryMargin
	}
	if opts.ProbeEvery <= 0 {
		opts.ProbeEvery = 3 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	h := &Host{opts: opts, path: path, log: log.With("component", "claudecode"), notices: opts.Notices,
		sessions: map[session.ID]*cliSession{}, warm: map[session.ID]*warmChild{}}
	h.mem.reader, _ = opts.Launcher.(MemoryReader)
	var probe func(context.Context) error
	if p, ok := opts.Launcher.(ModelProber); ok {
		env := h.childEnv()
		probe = func(ctx context.Context) error { return p.ProbeModel(ctx, env) }
	}
	h.model = newModelLink(opts.ProbeEvery, probe, h.log)
	if h.notices == nil {
		h.own = make(chan session.Notice, 1024)
		h.notices = h.own
	}
	return h, nil
}

// TakesSystemPrompt implements session.SystemPrompter: a session's system
// prompt goes to the CLI with --append-system-prompt, after Claude Code's
// own.
func (h *Host) TakesSystemPrompt() bool { return true }

// Path is the binary the host runs.
func (h *Host) Path() string { return h.path }

// Notices implements session.Host: one notice per event a child
// writes, one per permission prompt, one when a child exits.
func (h *Host) Notices() <-chan session.Notice { return h.own }

func (h *Host) notify(id session.ID, kind session.NoticeKind) {
	select {
	case h.notices <- session.Notice{SessionID: id, Kind: kind}:
	default:
		// Nobody is keeping up: the engine's poll finds the change.
		h.log.Debug("notice dropped", "session", id, "kind", kind)
	}
}

// Start implements session.Host: it starts the child in opts.Cwd,
// sends opts.Message and returns once the child answered with its first
// event. The session id is opts.ID (a worker's id such as
// local___orch_run_worker_task, mapped to a UUID for the CLI), or a new UUID.
// Starting an id that exists goes on with that session.
func (h *Host) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	if opts.Cwd == "" || opts.Message == "" {
		return "", errors.New("start session: cwd and message are required")
	}
	if err := h.opts.Launcher.CheckDir(ctx, opts.Cwd); err != nil {
		return "", fmt.Errorf("start session: %w", err)
	}
	if opts.PermissionMode != "" && !session.ValidPermissionMode(opts.PermissionMode) {
		return "", fmt.Errorf("start session: unknown permission mode %q", opts.PermissionMode)
	}
	id := opts.ID
	if id == "" {
		id = session.ID(newUUID())
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
	opts.ID = id
	var p *proc
	setModel := false
	if w := h.takeWarmLocked(opts); w != nil {
		// Started ahead (Warm): the message meets a CLI that is ready.
		s, p = w.s, w.p
		setModel = s.meta.Model != opts.Model
		u := s.meta.UUID // the conversation the child started (Warm without an id)
		s.meta = h.newMeta(opts)
		s.meta.UUID = u
		h.warmStarts.Add(1)
		if p.ready.Load() {
			h.readyStarts.Add(1)
		}
	} else {
		s = &cliSession{meta: h.newMeta(opts)}
		h.coldStarts.Add(1)
	}
	if s.meta.Title == "" {
		s.meta.Title = firstLine(opts.Message, 80)
	}
	h.sessions[id] = s
	if p != nil {
		err = h.openLogLocked(s)
	} else {
		p, err = h.spawnLocked(s)
	}
	if err != nil {
		h.forgetLocked(s, p)
		h.mu.Unlock()
		return "", fmt.Errorf("start session: %w", err)
	}
	line := h.addInputLocked(s, opts.Message)
	m := s.meta
	h.mu.Unlock()
	// The metadata file is synced to disk without the host's lock: the
	// other children's events, Reads and Starts go on meanwhile (a Start
	// of the same id finds the session with its turn running).
	if err := h.writeMeta(m); err != nil {
		h.mu.Lock()
		h.forgetLocked(s, p)
		h.mu.Unlock()
		return "", fmt.Errorf("start session: %w", err)
	}
	h.notify(id, session.NoticeMessage)
	if setModel {
		if err := h.setModel(ctx, p, opts.Model); err != nil {
			return "", fmt.Errorf("start session: %w", err)
		}
	}
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

// Send implements session.Host: it writes text to the session's
// child as a user message, resuming the session in a new child first when
// its child is gone. The message is in the transcript when Send returns.
func (h *Host) Send(ctx context.Context, id session.ID, text string) error {
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
	lost := ""
	if p != nil && p.gone() {
		// It exited a moment ago and its reader has not let go of it yet
		// (a Stop returns then): the message goes to a new child.
		p = nil
	}
	if p == nil {
		if p, err = h.spawnLocked(s); err != nil {
			h.mu.Unlock()
			return fmt.Errorf("send to %s: %w", id, err)
		}
		if p.fresh {
			lost = lostInputs(s)
		}
	}
	line := h.addInputLocked(s, text)
	if lost != "" {
		// Baton sent messages the CLI never recorded (it stopped before it
		// wrote them to its transcript): they go to the new conversation
		// first, so a worker cut at its start still gets its task.
		line, _ = json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": lost + "\n\n" + text}})
	}
	h.mu.Unlock()
	h.notify(id, session.NoticeMessage)
	if err := p.write(line); err != nil {
		return fmt.Errorf("send to %s: write to claude: %w (%s)", id, err, p.stderr.tail())
	}
	return ctx.Err()
}

// Interrupt implements session.Host: it asks the child to stop the
// turn in progress (a control_request of subtype interrupt) and waits for
// its answer. A session without a running turn is left alone.
func (h *Host) Interrupt(ctx context.Context, id session.ID) error {
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
	for id, w := range h.warm {
		w.timer.Stop()
		w.p.closing.Store(true)
		procs = append(procs, w.p)
		delete(h.warm, id)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.stop(ctx, min(h.opts.StopGrace, time.Second)) })
	}
	wg.Wait()
	h.model.close()
	done := make(chan struct{})
	go func() { h.readers.Wait(); h.stoppers.Wait(); close(done) }()
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
