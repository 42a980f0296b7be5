package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/agent"
)

// session is the Go-side state of one simulated session. Fields are
// guarded by Simulator.mu.
type session struct {
	id, cwd, title, model, permissionMode, initialMessage string
	createdAt, lastActivity                               time.Time
	running, turnRunning, archived                        bool

	transcript []json.RawMessage
	pending    []*permission
	queue      []string
	busy       bool // a runner goroutine owns the queue
	turnCancel context.CancelFunc

	scenario   string            // from a marker; overrides rules and default
	params     map[string]string // parameters of the marker
	allowed    map[string]bool   // tools allowed "always"
	phaseCount map[string]int
	dialects   map[string]string // phase → the dialect it was last asked in
	reloaded   bool
	lastUUID   string
	spent      spent // what the session's turns have cost so far
	shape      sessionShape
}

// spent is what a session's turns have used and cost so far.
type spent struct {
	in, out, cacheRead int
	cost               float64
}

// userEntry is a user line of the transcript as Claude Code writes it;
// content is the text of a prompt or a list of blocks.
func (ss *session) userEntry(content any) map[string]any {
	return map[string]any{
		"type": "user", "uuid": newUUID(), "timestamp": now(), "isSidechain": false,
		"userType": "external", "cwd": ss.cwd,
		"message": map[string]any{"role": "user", "content": content},
	}
}

// permission is a tool call waiting for an answer.
type permission struct {
	RequestID   string         `json:"requestId"`
	SessionID   string         `json:"sessionId"`
	ToolName    string         `json:"toolName"`
	Input       map[string]any `json:"input"`
	Suggestions []any          `json:"suggestions"`
	answer      chan answer
}

type answer struct {
	decision     string
	updatedInput json.RawMessage
}

// object is the session object LocalSessions returns.
func (ss *session) object() map[string]any {
	pending := make([]map[string]any, 0, len(ss.pending))
	for _, p := range ss.pending {
		pending = append(pending, map[string]any{"requestId": p.RequestID, "toolName": p.ToolName, "input": p.Input, "suggestions": p.Suggestions})
	}
	obj := map[string]any{
		"sessionId":              ss.id,
		"cwd":                    ss.cwd,
		"title":                  ss.title,
		"isRunning":              ss.running,
		"turnRunning":            ss.turnRunning,
		"isArchived":             ss.archived,
		"initialMessage":         ss.initialMessage,
		"createdAt":              ss.createdAt.UnixMilli(),
		"lastActivityAt":         ss.lastActivity.UnixMilli(),
		"model":                  ss.model,
		"permissionMode":         ss.permissionMode,
		"pendingToolPermissions": pending,
	}
	ss.shapeObject(obj)
	return obj
}

func (ss *session) interruptLocked() {
	ss.queue = nil
	clear(ss.shape.held)
	if ss.turnCancel != nil {
		ss.turnCancel()
	}
}

// enqueue records the user's message in the transcript at once (so a
// sender sees it land) and makes sure a runner answers it.
func (s *Simulator) enqueue(ss *session, text string) { s.enqueueUUID(ss, text, "") }

// enqueueUUID is enqueue with the message's UUID as sendMessage may give it
// (the entry's uuid when not empty). With the queued-messages shape a
// message sent while a turn runs enters the transcript only when its turn
// starts.
func (s *Simulator) enqueueUUID(ss *session, text, uuid string) {
	entry := ss.userEntry(text)
	if uuid != "" {
		entry["uuid"] = uuid
	}
	s.mu.Lock()
	if name, params, ok := agent.Marker(text, ValidScenario); ok {
		ss.scenario, ss.params = name, params
	}
	if !ss.holdLocked(text, uuid) {
		s.appendLocked(ss, entry)
	}
	ss.queue = append(ss.queue, text)
	ss.running = true
	start := !ss.busy
	ss.busy = true
	s.mu.Unlock()
	if start {
		s.wg.Go(func() { s.runner(ss) })
	}
}

// appendLocked adds an entry to the transcript and publishes it to every
// page as a "message" event. s.mu is held.
func (s *Simulator) appendLocked(ss *session, entry map[string]any) {
	if entry["type"] == "result" {
		// As the CLI's result event: session_id, no parent.
		entry["session_id"] = ss.entrySessionID()
		if ss.shape.on.WrappedResults {
			entry = wrapResult(entry)
			entry["sessionId"] = ss.entrySessionID()
		}
	} else {
		entry["parentUuid"] = nil
		if ss.lastUUID != "" {
			entry["parentUuid"] = ss.lastUUID
		}
		if u, ok := entry["uuid"].(string); ok {
			ss.lastUUID = u
		}
		entry["sessionId"] = ss.entrySessionID()
	}
	b, err := json.Marshal(entry)
	if err != nil {
		s.log.Error("encode entry", "err", err)
		return
	}
	ss.transcript = append(ss.transcript, b)
	ss.lastActivity = time.Now()
	s.appendEntryLocked(ss, b)
	ev, _ := json.Marshal(map[string]any{"kind": "event", "event": ss.eventFor(b)})
	for ch := range s.subs {
		select {
		case ch <- ev:
		default:
			delete(s.subs, ch)
			close(ch)
		}
	}
	if s.opts.OnEntry != nil {
		s.opts.OnEntry(ss.id, time.Now())
	}
}

// runner answers queued messages one turn at a time.
func (s *Simulator) runner(ss *session) {
	for {
		s.mu.Lock()
		if len(ss.queue) == 0 || s.ctx.Err() != nil {
			ss.busy = false
			ss.turnRunning = false
			s.mu.Unlock()
			s.publishUpdate(ss)
			return
		}
		text := ss.queue[0]
		ss.queue = ss.queue[1:]
		if e := ss.releaseLocked(text); e != nil {
			s.appendLocked(ss, e)
		}
		ctx, cancel := context.WithCancel(s.ctx)
		ss.turnCancel = cancel
		ss.turnRunning = true
		t := &turn{s: s, ss: ss, ctx: ctx, started: time.Now(), prompt: text, scenario: s.scenarioLocked(ss)}
		s.mu.Unlock()
		s.publishUpdate(ss)

		t.run()
		cancel()

		s.mu.Lock()
		ss.turnCancel = nil
		retitled := ss.retitleLocked()
		s.mu.Unlock()
		if retitled {
			s.publishUpdate(ss)
		}
	}
}

func (s *Simulator) scenarioLocked(ss *session) string {
	if ss.scenario != "" {
		return ss.scenario
	}
	for _, r := range slices.Backward(s.rules) {
		if strings.Contains(ss.id, r.match) {
			return r.scenario
		}
	}
	return s.opts.Scenario
}

// ask registers a permission request and waits for its answer.
func (s *Simulator) ask(ctx context.Context, ss *session, tool string, input map[string]any, suggestions []any) (answer, error) {
	p := &permission{RequestID: "perm_" + newUUID(), SessionID: ss.id, ToolName: tool, Input: input, Suggestions: suggestions, answer: make(chan answer, 1)}
	s.mu.Lock()
	ss.pending = append(ss.pending, p)
	s.perms[p.RequestID] = p
	ss.lastActivity = time.Now()
	s.mu.Unlock()
	s.broadcast(map[string]any{"kind": "permission", "request": p})
	s.publishUpdate(ss)
	defer func() {
		s.mu.Lock()
		ss.pending = slices.DeleteFunc(ss.pending, func(q *permission) bool { return q == p })
		delete(s.perms, p.RequestID)
		s.mu.Unlock()
		s.publishUpdate(ss)
	}()
	select {
	case a := <-p.answer:
		return a, nil
	case <-ctx.Done():
		return answer{}, ctx.Err()
	}
}

func (s *Simulator) respond(requestID, decision string, updated json.RawMessage) error {
	switch decision {
	case "once", "always", "deny":
	default:
		return fmt.Errorf("respond: unknown decision %q (once, always or deny)", decision)
	}
	s.mu.Lock()
	p := s.perms[requestID]
	if p != nil {
		delete(s.perms, requestID)
		if decision == "always" {
			if ss := s.sessions[p.SessionID]; ss != nil {
				ss.allowed[p.ToolName] = true
			}
		}
	}
	s.mu.Unlock()
	if p == nil {
		return errors.New("respond: no pending request " + requestID)
	}
	p.answer <- answer{decision: decision, updatedInput: updated}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
