package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// The stream: what Baton sends (user lines) and reads (stream-json
// events) kept as the session's transcript, with a notice for each.

// addInputLocked records a user message in the transcript and returns the
// stream-json line that sends it.
func (h *Host) addInputLocked(s *cliSession, text string) []byte {
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

func (h *Host) appendLocked(s *cliSession, entry json.RawMessage, u string) {
	s.entries = append(s.entries, entry)
	s.uuids = append(s.uuids, u)
	s.last = time.Now()
	if s.logf != nil {
		if _, err := s.logf.Write(append(slices.Clip(entry), '\n')); err != nil {
			h.log.Warn("write the stream log", "session", s.meta.ID, "err", err)
		}
	}
}

// Read implements session.Host: the entries after cursor, from
// memory. Entries are the child's stream-json events (system, assistant,
// user, result) and the user messages Baton sent.
func (h *Host) Read(ctx context.Context, id session.ID, cursor session.Cursor) (session.Batch, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked(id)
	if err != nil {
		return session.Batch{}, fmt.Errorf("read %s: %w", id, err)
	}
	total := len(s.entries)
	start, reset := cursor.Index, false
	if start < 0 || start > total || (start > 0 && cursor.UUID != "" && s.uuids[start-1] != cursor.UUID) {
		start, reset = 0, true
	}
	end := min(total, start+h.opts.ReadLimit)
	out := append([]json.RawMessage{}, s.entries[start:end]...)
	next := session.Cursor{Index: end}
	if end > 0 {
		next.UUID = s.uuids[end-1]
	}
	return session.Batch{Entries: out, Next: next, Total: total, Reset: reset}, nil
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
		ToolUseID             string            `json:"tool_use_id"`
	} `json:"request"`
	Response *struct {
		Subtype   string `json:"subtype"`
		RequestID string `json:"request_id"`
		Error     string `json:"error"`
	} `json:"response"`
}

// read follows one child's output until it exits.
func (h *Host) read(s *cliSession, p *proc, stdout io.Reader) {
	defer h.readers.Done()
	br := bufio.NewReaderSize(stdout, 64<<10)
	var once sync.Once
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if !isControlResponse(line) {
				// The answer to a control request (a warm child's
				// initialize or set_model) is not the session's first
				// event.
				once.Do(func() {
					if !p.stopping.Load() {
						p.lower(WorkingNice) // before Start returns
					}
					close(p.first)
				})
			}
			h.handle(s, p, line)
		}
		if err != nil {
			break
		}
	}
	h.release(s)
	p.waitErr = p.child.Wait()
	// The tools it started end with it.
	p.child.End(true)
	close(p.done)
	h.exited(s, p)
}

func (h *Host) handle(s *cliSession, p *proc, line []byte) {
	// A Start that takes a warm child names its session (s.meta) while
	// the child may be answering its initialize request.
	h.mu.Lock()
	id := s.meta.ID
	h.mu.Unlock()
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		h.release(s)
		h.log.Debug("claude wrote a line that is not JSON", "session", id, "line", firstLine(string(line), 200))
		return
	}
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
			req: session.PermissionRequest{RequestID: e.RequestID, SessionID: id, ToolName: e.Request.ToolName,
				Input: e.Request.Input, Suggestions: suggestionsJSON(e.Request.PermissionSuggestions), ToolUseID: e.Request.ToolUseID},
			suggestions: e.Request.PermissionSuggestions,
		})
		s.last = time.Now()
		h.mu.Unlock()
		h.notify(id, session.NoticePermission)
	case "control_cancel_request":
		h.mu.Lock()
		s.pending = slices.DeleteFunc(s.pending, func(r pendingRequest) bool { return r.req.RequestID == e.RequestID })
		h.mu.Unlock()
		h.notify(id, session.NoticeUpdated)
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
		h.modelEvent(id, line, e.Type)
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
		kind := session.NoticeMessage
		if e.Type == "result" {
			kind = session.NoticeResult
			s.turn = false
			s.pending = nil
			h.startIdleLocked(s, p)
		}
		h.mu.Unlock()
		h.notify(id, kind)
	}
}

// isControlResponse reports whether line is a control_response event.
func isControlResponse(line []byte) bool {
	if !bytes.Contains(line, []byte("control_response")) {
		return false
	}
	var e struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &e) == nil && e.Type == "control_response"
}

// release adds the entry kept back, if any.
func (h *Host) release(s *cliSession) {
	h.mu.Lock()
	released, id := h.releaseLocked(s), s.meta.ID
	h.mu.Unlock()
	if released {
		h.notify(id, session.NoticeMessage)
	}
}

func (h *Host) releaseLocked(s *cliSession) bool {
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
