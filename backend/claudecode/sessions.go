package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/atomicfile"
	"github.com/baton-app/baton/backend/session"
)

// Sessions: their state in memory and in the state folder (a metadata
// file and a stream log each), listed for the Sessions view.

// meta is what the state folder keeps of a session besides its events,
// in a file named by uuidFor(ID). UUID is the CLI's conversation, also the
// name of the stream log: uuidFor(ID), unless the session took a warm
// child started before its id was known (Warm without an id).
type meta struct {
	ID             session.ID `json:"id"`
	UUID           string     `json:"uuid"`
	Cwd            string     `json:"cwd"`
	Title          string     `json:"title,omitempty"`
	Model          string     `json:"model,omitempty"`
	PermissionMode string     `json:"permissionMode,omitempty"`
	// SystemPrompt is given to every child of the session with
	// --append-system-prompt (a resumed one too).
	SystemPrompt string    `json:"systemPrompt,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	Archived     bool      `json:"archived,omitempty"`
}

type cliSession struct {
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

// Session implements session.Host.
func (h *Host) Session(ctx context.Context, id session.ID) (session.Info, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked(id)
	if err != nil {
		return session.Info{}, fmt.Errorf("session %s: %w", id, err)
	}
	return s.info(), nil
}

func (s *cliSession) info() session.Info {
	si := session.Info{
		ID: s.meta.ID, Title: s.meta.Title, Cwd: s.meta.Cwd, Model: s.meta.Model, PermissionMode: s.meta.PermissionMode,
		Running: s.proc != nil, TurnRunning: s.turn, Archived: s.meta.Archived,
		Hidden: session.IsHidden(s.meta.ID, s.meta.Title), CreatedAt: s.meta.CreatedAt, LastActivityAt: s.last,
		Pending: []session.PermissionRequest{},
	}
	for _, p := range s.pending {
		si.Pending = append(si.Pending, p.req)
	}
	return si
}

// List implements session.Browser: every session of the state
// folder, the newest activity first.
func (h *Host) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	files, err := filepath.Glob(filepath.Join(h.opts.StateDir, "*.json"))
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[session.ID]bool{}
	var out []session.Info
	add := func(si session.Info) {
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
		s := &cliSession{meta: m}
		if st, err := os.Stat(h.logPath(m.UUID)); err == nil {
			s.last = st.ModTime()
		}
		add(s.info())
	}
	slices.SortFunc(out, func(a, b session.Info) int { return b.LastActivityAt.Compare(a.LastActivityAt) })
	return out, nil
}

// Archive implements session.Host: the session is marked archived
// and its child ends (a later message resumes it).
func (h *Host) Archive(ctx context.Context, id session.ID) error {
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
	h.notify(id, session.NoticeUpdated)
	return nil
}

// Unarchive shows an archived session again.
func (h *Host) Unarchive(ctx context.Context, id session.ID) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked(id)
	if err != nil {
		return fmt.Errorf("unarchive %s: %w", id, err)
	}
	s.meta.Archived = false
	return h.saveMeta(s)
}

// sessionLocked returns the session, from memory or from the state folder.
func (h *Host) sessionLocked(id session.ID) (*cliSession, error) {
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
	s := &cliSession{meta: m}
	if err := h.loadLog(s); err != nil {
		return nil, err
	}
	h.sessions[id] = s
	return s, nil
}

// loadLog reads a session's stream log back after a restart. A turn the
// log shows unfinished was cut off with Baton: it gets an error result.
func (h *Host) loadLog(s *cliSession) error {
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
		h.endTurnLocked(s, "Baton stopped while this turn ran; the session goes on from its transcript when it is sent a message", false)
	}
	return nil
}

func (h *Host) openLogLocked(s *cliSession) error {
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
// is_error stays false for a turn that was cut (baton_cut): the session is
// not broken, so the engine tells it to go on, which resumes it (claude
// --resume) where it stopped, instead of failing a task that has not
// answered yet. failed is a CLI that refused to run (reason is its own
// sentence): is_error is true, and the engine shows that sentence.
func (h *Host) endTurnLocked(s *cliSession, reason string, failed bool) {
	u := newUUID()
	entry, _ := json.Marshal(map[string]any{
		"type": "result", "subtype": "error_during_execution", "is_error": failed, "result": reason,
		"session_id": s.meta.UUID, "uuid": u, "baton_cut": !failed,
	})
	h.appendLocked(s, entry, u)
	s.turn = false
	s.pending = nil
}

func (h *Host) metaPath(u string) string { return filepath.Join(h.opts.StateDir, u+".json") }
func (h *Host) logPath(u string) string  { return filepath.Join(h.opts.StateDir, u+".jsonl") }

func (h *Host) saveMeta(s *cliSession) error { return h.writeMeta(s.meta) }

// writeMeta writes a session's metadata file (synced: a copy of the meta
// may be written without the host's lock).
func (h *Host) writeMeta(m meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(h.metaPath(uuidFor(m.ID)), b, 0o600)
}

// forgetLocked undoes a Start that failed before its session was saved:
// the session is no longer known, and its child p (if any) ends.
func (h *Host) forgetLocked(s *cliSession, p *proc) {
	if h.sessions[s.meta.ID] == s {
		delete(h.sessions, s.meta.ID)
	}
	if s.logf != nil {
		_ = s.logf.Close()
		s.logf = nil
	}
	if p != nil {
		h.stopAside(p)
	}
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

// lostInputs is the text of the messages Baton sent to s so far, for a
// child that starts the conversation anew because the CLI never recorded
// them ("" when Baton sent none).
func lostInputs(s *cliSession) string {
	var texts []string
	for _, raw := range s.entries {
		var e struct {
			Type    string `json:"type"`
			Input   bool   `json:"baton_input"`
			Message struct {
				Content any `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Type != "user" || !e.Input {
			continue
		}
		if text, ok := e.Message.Content.(string); ok && text != "" {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, "\n\n")
}
