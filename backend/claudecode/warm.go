package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// Warm starts (session.Warmer): a CLI started with `-p --input-format
// stream-json` waits for its first input line, and most of a session's
// start (about 1.2 s of the pinned CLI's 1.3 s here) is the process
// getting ready before it reads that line. A warm child is started with
// everything but the first message (its session id, folder, model,
// permission mode and system prompt); a Start with the same id and the same
// options writes the message to it and meets a started CLI (another model
// is set first with a control request, as the CLI allows before its first
// message). Warm children
// are bounded (Options.MaxWarm) and end when no Start took them within
// Options.WarmFor, or when Cool or Close ends them.
//
// A warm child may also be started before its session's id is known (Warm
// with no ID, while a run plans its tasks): it gets a conversation UUID of
// its own, and the first Start of a new session with the same folder,
// model, permission mode and system prompt takes it, the session keeping
// that UUID (its metadata file stays named by the id). Warm with the id it
// chose then keeps that child, or starts another (under a new id, which
// it returns) when that one ended or was taken.

// warmChild is a child started for a session that does not exist yet.
type warmChild struct {
	s     *cliSession // not in h.sessions until a Start takes it
	p     *proc
	timer *time.Timer
}

var _ session.Warmer = (*Host)(nil)

// Warm implements session.Warmer. It declines (returns "", starts
// nothing) when MaxWarm children are warm already, when the session exists,
// or when memory would not hold one more CLI beside the sessions that may
// start first (Room fits fewer than two).
func (h *Host) Warm(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	if opts.Cwd == "" {
		return "", errors.New("warm session: cwd is required")
	}
	if opts.PermissionMode != "" && !session.ValidPermissionMode(opts.PermissionMode) {
		return "", fmt.Errorf("warm session: unknown permission mode %q", opts.PermissionMode)
	}
	if err := h.opts.Launcher.CheckDir(ctx, opts.Cwd); err != nil {
		return "", fmt.Errorf("warm session: %w", err)
	}
	// Without an id, or with one Warm chose before (warmed again), the
	// child goes to the first new session of the same shape.
	anon := opts.ID == "" || strings.HasPrefix(string(opts.ID), anonPrefix)
	h.mu.Lock()
	if anon && h.warm[opts.ID] == nil {
		// A new conversation: the one of a child warmed before under this
		// id may belong to the session that took it.
		opts.ID = session.ID(anonPrefix + newUUID())
	}
	_, warm := h.warm[opts.ID]
	h.mu.Unlock()
	if warm {
		return opts.ID, nil
	}
	if h.opts.MaxWarm < 0 || h.Room().Fits() < 2 {
		return "", nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return "", ErrClosed
	}
	if _, ok := h.warm[opts.ID]; ok {
		return opts.ID, nil
	}
	if len(h.warm) >= h.opts.MaxWarm {
		return "", nil
	}
	if _, err := h.sessionLocked(opts.ID); !anon && !errors.Is(err, ErrNoSession) {
		return "", err // known already (nil): a Start goes on with it
	}
	s := &cliSession{meta: h.newMeta(opts)}
	if anon {
		s.meta.UUID = strings.TrimPrefix(string(opts.ID), anonPrefix)
	}
	p, err := h.launchLocked(s)
	if err != nil {
		return "", fmt.Errorf("warm session: %w", err)
	}
	h.initialize(p)
	w := &warmChild{s: s, p: p}
	w.timer = time.AfterFunc(h.opts.WarmFor, func() { h.Cool(opts.ID) })
	h.warm[opts.ID] = w
	h.log.Debug("claude warm", "session", opts.ID, "pid", p.child.PID())
	return opts.ID, nil
}

// Cool implements session.Warmer: the warm child of id ends, unless a
// Start took it.
func (h *Host) Cool(id session.ID) {
	h.mu.Lock()
	w := h.warm[id]
	if w != nil {
		delete(h.warm, id)
		w.timer.Stop()
	}
	h.mu.Unlock()
	if w != nil {
		h.stopAside(w.p)
	}
}

// initialize sends a warm child the control request the SDKs open a
// session with. The CLI sets its session up (its commands, agents, skills,
// plugins, hooks and MCP servers) at the first line it reads: with the
// request that is now, while the child waits, rather than at the task's
// message, whose first event Start waits for. The answer marks the child
// ready; a CLI that refuses the request sets up at its first message, as
// it would without it.
func (h *Host) initialize(p *proc) {
	answer, forget, err := h.request(p, map[string]any{"subtype": "initialize"})
	if err != nil {
		forget()
		h.log.Debug("claude warm: initialize", "pid", p.child.PID(), "err", err)
		return
	}
	h.stoppers.Go(func() {
		defer forget()
		t := time.NewTimer(time.Minute)
		defer t.Stop()
		select {
		case raw := <-answer:
			var r struct {
				Response struct {
					Subtype string `json:"subtype"`
					Error   string `json:"error"`
				} `json:"response"`
			}
			if json.Unmarshal(raw, &r) == nil && r.Response.Subtype == "success" {
				p.ready.Store(true)
				return
			}
			h.log.Debug("claude warm: initialize refused", "pid", p.child.PID(), "error", r.Response.Error)
		case <-p.done:
		case <-t.C:
		}
	})
}

// Starts returns how many new sessions started in a warm child and how
// many in a child of their own.
func (h *Host) Starts() (warm, cold int) {
	return int(h.warmStarts.Load()), int(h.coldStarts.Load())
}

// ReadyStarts returns how many of the warm starts met a child that had
// answered its initialize request (set up, waiting only for its message).
func (h *Host) ReadyStarts() int {
	return int(h.readyStarts.Load())
}

// Warming returns how many warm children wait for a Start.
func (h *Host) Warming() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.warm)
}

// anonPrefix keys the warm children started without a session id.
const anonPrefix = "warm:"

// takeWarmLocked returns the warm child of opts.ID when it was started
// with the same options and still runs (a child that does not match
// ends), else a warm child started without an id for a session of the
// same shape, else nil.
func (h *Host) takeWarmLocked(opts session.StartOptions) *warmChild {
	fits := func(w *warmChild) bool {
		m := w.s.meta
		// Another model is set before the first message (setModel); the
		// CLI's default cannot be set back.
		return m.Cwd == opts.Cwd && (m.Model == opts.Model || opts.Model != "") && m.PermissionMode == opts.PermissionMode &&
			m.SystemPrompt == opts.SystemPrompt && !w.p.gone()
	}
	take := func(key session.ID, w *warmChild) *warmChild {
		delete(h.warm, key)
		w.timer.Stop()
		return w
	}
	if w := h.warm[opts.ID]; w != nil {
		take(opts.ID, w)
		if fits(w) {
			return w
		}
		h.log.Debug("a warm claude does not fit its start", "session", opts.ID)
		h.stopAside(w.p)
	}
	for key, w := range h.warm {
		if strings.HasPrefix(string(key), anonPrefix) && fits(w) {
			return take(key, w)
		}
	}
	return nil
}

// setModel sets the model of a child that has not had its first message
// (a warm child started with another one).
func (h *Host) setModel(ctx context.Context, p *proc, model string) error {
	raw, err := h.control(ctx, p, map[string]any{"subtype": "set_model", "model": model})
	if err != nil {
		return err
	}
	var r struct {
		Response struct {
			Subtype string `json:"subtype"`
			Error   string `json:"error"`
		} `json:"response"`
	}
	if raw == nil {
		return fmt.Errorf("claude exited (%s)", p.exitReason())
	}
	if json.Unmarshal(raw, &r) != nil || r.Response.Subtype != "success" {
		return fmt.Errorf("claude did not take the model %s: %s", model, r.Response.Error)
	}
	return nil
}

// dropWarmLocked forgets the warm child p of id once it exited.
func (h *Host) dropWarmLocked(id session.ID, p *proc) {
	if w := h.warm[id]; w != nil && w.p == p {
		delete(h.warm, id)
		w.timer.Stop()
	}
}

// stopAside ends p in the background; Close waits for it.
func (h *Host) stopAside(p *proc) {
	p.stopping.Store(true)
	h.stoppers.Go(func() { p.stop(context.Background(), h.opts.StopGrace) })
}

// newMeta is the metadata of a new session started with opts.
func (h *Host) newMeta(opts session.StartOptions) meta {
	return meta{
		ID: opts.ID, UUID: uuidFor(opts.ID), Cwd: opts.Cwd, Title: opts.Title, Model: opts.Model,
		PermissionMode: opts.PermissionMode, SystemPrompt: opts.SystemPrompt, CreatedAt: time.Now().UTC(),
	}
}
