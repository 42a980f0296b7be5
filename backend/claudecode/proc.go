package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// The children: one claude process per session, started, written to,
// asked (control requests), stopped and watched until it exits.

// Stop ends the session's child (Running becomes false); the next message
// resumes it.
func (h *Host) Stop(ctx context.Context, id session.ID) error {
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

// Running returns the process ids of the children that run now, warm
// ones (Warm) included.
func (h *Host) Running() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for _, s := range h.sessions {
		if s.proc != nil {
			out = append(out, s.proc.child.PID())
		}
	}
	for _, w := range h.warm {
		out = append(out, w.p.child.PID())
	}
	slices.Sort(out)
	return out
}

// PID is the process id of the session's child, 0 when none runs.
func (h *Host) PID(id session.ID) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.sessions[id]; ok && s.proc != nil {
		return s.proc.child.PID()
	}
	return 0
}

type proc struct {
	child   Process
	stdin   io.WriteCloser
	wmu     sync.Mutex
	stderr  *tailBuffer
	first   chan struct{} // closed at the first event (not a control response)
	done    chan struct{} // closed when the child exited and its output is read
	waitErr error
	// stopping is set when Baton ends the child on purpose; closing
	// when it does so because Baton closes.
	stopping atomic.Bool
	closing  atomic.Bool

	cmu  sync.Mutex
	ctrl map[string]chan json.RawMessage

	// fresh: the CLI had no transcript of the session, so this child
	// starts a new conversation (--session-id) rather than --resume.
	fresh bool
	// ready: a warm child that answered its initialize request.
	ready atomic.Bool
}

// spawnLocked starts a child for s: a new conversation under its UUID,
// or --resume of the one the CLI already has on disk.
func (h *Host) spawnLocked(s *cliSession) (*proc, error) {
	if err := h.openLogLocked(s); err != nil {
		return nil, err
	}
	return h.launchLocked(s)
}

// launchLocked starts a child for s without its stream log (a warm child
// gets its log when a Start takes it).
func (h *Host) launchLocked(s *cliSession) (*proc, error) {
	env := h.childEnv()
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--permission-prompt-tool", "stdio"}
	fresh := !h.opts.Launcher.HasConversation(env, s.meta.UUID)
	if !fresh {
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
	if sp := s.meta.SystemPrompt; strings.TrimSpace(sp) != "" {
		args = append(args, "--append-system-prompt", sp)
	}
	args = append(args, h.opts.Args...)
	p := &proc{fresh: fresh, stderr: &tailBuffer{max: 8 << 10}, first: make(chan struct{}), done: make(chan struct{}), ctrl: map[string]chan json.RawMessage{}}
	// The child lives until it is stopped or exits, not for a request.
	child, err := h.opts.Launcher.Start(context.Background(), Command{Path: h.path, Args: args, Dir: s.meta.Cwd, Env: env, Stderr: p.stderr})
	if err != nil {
		return nil, err
	}
	p.child, p.stdin = child, child.Stdin()
	h.log.Debug("claude started", "session", s.meta.ID, "uuid", s.meta.UUID, "pid", child.PID(), "args", args)
	s.proc = p
	s.spawns++
	h.readers.Add(1)
	go h.read(s, p, child.Stdout())
	return p, nil
}

// childEnv is the environment every child starts with.
func (h *Host) childEnv() []string {
	base := h.opts.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	return append(slices.Clip(base), h.opts.Env...)
}

// gone reports whether the child has exited.
func (p *proc) gone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
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

// A child's CPU priority (Lowerer, the nice value of its process group):
// it starts, and takes its first message, at Baton's own; once it has
// written its first event it runs at WorkingNice (its turns, the tools it
// runs), so that the children that start or take their first message
// beside busy ones (the next workers, all prompted as their last
// dependency completes, whose first event each worker's agent time waits
// for) come first; a child Baton ends runs at EndingNice while it exits.
const (
	WorkingNice = 5
	// EndingNice: it still runs beside busy ones (nice 19 could starve it
	// past its grace), at about a third of a working child's share.
	EndingNice = 10
)

// lower gives p's child the nice value n, when it can be lowered.
func (p *proc) lower(n int) {
	if l, ok := p.child.(Lowerer); ok {
		l.Lower(n)
	}
}

// stop ends the child: its input is closed and the group gets SIGTERM,
// then SIGKILL after grace. It is lowered first (EndingNice): its exit
// (the CLI writes out its session and ends its tools) gives the cores to
// the children that start or work meanwhile, such as the next workers,
// whose prompts come as a finished worker's session is archived.
func (p *proc) stop(ctx context.Context, grace time.Duration) {
	p.stopping.Store(true)
	p.lower(EndingNice)
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	p.child.End(false)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	p.child.End(true)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
}

// refused reports whether the child exited with an error before its first
// event, saying why on its error output: it refused to run.
func (p *proc) refused() bool {
	select {
	case <-p.first:
		return false
	default:
	}
	return p.gone() && p.waitErr != nil && p.stderr.tail() != ""
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
	ch, forget, err := h.request(p, request)
	defer forget()
	if err != nil {
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

// request writes a control_request to p; its control_response comes on
// the channel until forget is called.
func (h *Host) request(p *proc, request map[string]any) (answer <-chan json.RawMessage, forget func(), err error) {
	id := fmt.Sprintf("baton-%d", h.ctrlSeq.Add(1))
	ch := make(chan json.RawMessage, 1)
	p.cmu.Lock()
	p.ctrl[id] = ch
	p.cmu.Unlock()
	forget = func() {
		p.cmu.Lock()
		delete(p.ctrl, id)
		p.cmu.Unlock()
	}
	line, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": request})
	return ch, forget, p.write(line)
}

// exited notes a child's exit. One that ends during a turn, unasked, ends
// the turn with an error result at once.
func (h *Host) exited(s *cliSession, p *proc) {
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
		switch {
		case p.stopping.Load():
			h.endTurnLocked(s, "Baton ended the Claude Code process during the turn", false)
		case p.refused():
			// It stopped before its first event with a sentence of its own
			// ("--dangerously-skip-permissions cannot be used with
			// root/sudo privileges…"): an error, which asking again would
			// only repeat.
			h.endTurnLocked(s, p.stderr.tail(), true)
		default:
			h.endTurnLocked(s, "Claude Code exited during the turn ("+p.exitReason()+")", false)
		}
	}
	if mine {
		s.pending = nil
	}
	id := s.meta.ID
	known := h.sessions[id] == s
	h.dropWarmLocked(id, p)
	h.mu.Unlock()
	if mine {
		h.model.ended(id, nil) // it retries no more
	}
	h.log.Debug("claude exited", "session", id, "pid", p.child.PID(), "err", p.waitErr, "cut", cut)
	if !known {
		return // a warm child no Start took: nobody follows its session
	}
	if cut {
		h.notify(id, session.NoticeResult)
	} else {
		h.notify(id, session.NoticeUpdated)
	}
}

// startIdleLocked arms the timer that ends an idle child.
func (h *Host) startIdleLocked(s *cliSession, p *proc) {
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

func (h *Host) stopIdleLocked(s *cliSession) {
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}

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
