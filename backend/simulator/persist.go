package simulator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Sessions on disk. With Options.StateDir the simulator keeps every
// session in that folder, as Claude Desktop keeps its own: <id>.json holds
// the session's state, <id>.jsonl its transcript, one entry a line,
// appended as the entry is written. A simulator started on the same folder
// (Baton restarted after a crash, a kill or Ctrl-C) has the sessions again,
// and a turn that the exit cut short is played again from its prompt, as
// an agent resumed where it stopped. Without StateDir nothing is written.

// sessionFile is the state of a session on disk.
type sessionFile struct {
	ID             string            `json:"id"`
	Cwd            string            `json:"cwd"`
	Title          string            `json:"title"`
	Model          string            `json:"model"`
	PermissionMode string            `json:"permissionMode"`
	InitialMessage string            `json:"initialMessage"`
	CreatedAt      time.Time         `json:"createdAt"`
	LastActivity   time.Time         `json:"lastActivity"`
	Archived       bool              `json:"archived"`
	Scenario       string            `json:"scenario,omitempty"`
	Params         map[string]string `json:"params,omitempty"`
	Allowed        map[string]bool   `json:"allowed,omitempty"`
	PhaseCount     map[string]int    `json:"phaseCount,omitempty"`
	Dialects       map[string]string `json:"dialects,omitempty"`
	Reloaded       bool              `json:"reloaded,omitempty"`
	LastUUID       string            `json:"lastUuid,omitempty"`
	Spent          struct {
		In, Out, CacheRead int
		Cost               float64
	} `json:"spent"`
}

func (s *Simulator) persistent() bool { return s.opts.StateDir != "" }

func (s *Simulator) statePath(id, ext string) string {
	return filepath.Join(s.opts.StateDir, id+ext)
}

// saveLocked writes the state of a session. s.mu is held.
func (s *Simulator) saveLocked(ss *session) {
	if !s.persistent() || s.sessions[ss.id] != ss {
		return
	}
	f := sessionFile{ID: ss.id, Cwd: ss.cwd, Title: ss.title, Model: ss.model, PermissionMode: ss.permissionMode,
		InitialMessage: ss.initialMessage, CreatedAt: ss.createdAt, LastActivity: ss.lastActivity, Archived: ss.archived,
		Scenario: ss.scenario, Params: ss.params, Allowed: ss.allowed, PhaseCount: ss.phaseCount, Dialects: ss.dialects,
		Reloaded: ss.reloaded, LastUUID: ss.lastUUID}
	f.Spent.In, f.Spent.Out, f.Spent.CacheRead, f.Spent.Cost = ss.spent.in, ss.spent.out, ss.spent.cacheRead, ss.spent.cost
	b, err := json.Marshal(f)
	if err != nil {
		s.log.Error("encode the session state", "session", ss.id, "err", err)
		return
	}
	path := s.statePath(ss.id, ".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		s.log.Error("save the session state", "session", ss.id, "err", err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		s.log.Error("save the session state", "session", ss.id, "err", err)
	}
}

// appendEntryLocked appends one transcript entry to the session's file.
// s.mu is held.
func (s *Simulator) appendEntryLocked(ss *session, entry []byte) {
	if !s.persistent() || s.sessions[ss.id] != ss {
		return
	}
	f, err := os.OpenFile(s.statePath(ss.id, ".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err == nil {
		_, err = f.Write(append(append([]byte(nil), entry...), '\n'))
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		s.log.Error("save a transcript entry", "session", ss.id, "err", err)
	}
	s.saveLocked(ss)
}

// removeLocked deletes a session's files. s.mu is held.
func (s *Simulator) removeLocked(id string) {
	if !s.persistent() {
		return
	}
	for _, ext := range []string{".json", ".jsonl"} {
		if err := os.Remove(s.statePath(id, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("delete the session's file", "session", id, "err", err)
		}
	}
}

// load reads the sessions of StateDir and returns the prompts of the turns
// an exit cut short, by session.
func (s *Simulator) load() (map[string]string, error) {
	if err := os.MkdirAll(s.opts.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("the simulator's folder: %w", err)
	}
	names, err := filepath.Glob(filepath.Join(s.opts.StateDir, "*.json"))
	if err != nil {
		return nil, err
	}
	var loaded []*session
	resume := map[string]string{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var f sessionFile
		if err := json.Unmarshal(b, &f); err != nil || !sessionIDPattern.MatchString(f.ID) ||
			filepath.Base(name) != f.ID+".json" {
			s.log.Warn("skip an unreadable session file", "file", name, "err", err)
			continue
		}
		ss := &session{id: f.ID, cwd: f.Cwd, title: f.Title, model: f.Model, permissionMode: f.PermissionMode,
			initialMessage: f.InitialMessage, createdAt: f.CreatedAt, lastActivity: f.LastActivity, archived: f.Archived,
			scenario: f.Scenario, params: f.Params, allowed: f.Allowed, phaseCount: f.PhaseCount, dialects: f.Dialects,
			reloaded: f.Reloaded, lastUUID: f.LastUUID}
		ss.spent = spent{in: f.Spent.In, out: f.Spent.Out, cacheRead: f.Spent.CacheRead, cost: f.Spent.Cost}
		if ss.allowed == nil {
			ss.allowed = map[string]bool{}
		}
		if ss.phaseCount == nil {
			ss.phaseCount = map[string]int{}
		}
		if ss.dialects == nil {
			ss.dialects = map[string]string{}
		}
		if ss.transcript, err = readTranscript(s.statePath(f.ID, ".jsonl")); err != nil {
			return nil, err
		}
		if p, cut := cutShort(ss.transcript); cut && !ss.archived {
			resume[ss.id] = p
		}
		loaded = append(loaded, ss)
	}
	sort.Slice(loaded, func(i, j int) bool { return loaded[i].createdAt.Before(loaded[j].createdAt) })
	s.mu.Lock()
	for _, ss := range loaded {
		if s.sessions[ss.id] == nil {
			s.sessions[ss.id] = ss
			s.order = append(s.order, ss.id)
		}
	}
	s.mu.Unlock()
	return resume, nil
}

// readTranscript reads a transcript file; a missing file is empty, and a
// last line cut short by the exit is dropped.
func readTranscript(path string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || !json.Valid(line) {
			continue
		}
		out = append(out, json.RawMessage(append([]byte(nil), line...)))
	}
	return out, sc.Err()
}

// cutShort returns the prompt of the transcript's last turn when that turn
// has no result entry: the exit cut it short.
func cutShort(transcript []json.RawMessage) (string, bool) {
	for i := len(transcript) - 1; i >= 0; i-- {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Content any `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(transcript[i], &e) != nil {
			continue
		}
		if e.Type == "result" {
			return "", false
		}
		if text, ok := e.Message.Content.(string); ok && e.Type == "user" && strings.TrimSpace(text) != "" {
			return text, true
		}
	}
	return "", false
}

// resumeTurns plays again the turns an exit cut short.
func (s *Simulator) resumeTurns(prompts map[string]string) {
	for id, text := range prompts {
		s.mu.Lock()
		ss := s.sessions[id]
		if ss == nil || ss.busy {
			s.mu.Unlock()
			continue
		}
		ss.queue = append(ss.queue, text)
		ss.running = true
		ss.busy = true
		s.mu.Unlock()
		s.log.Info("a turn cut short by the last exit is played again", "session", id)
		s.wg.Go(func() { s.runner(ss) })
	}
}
