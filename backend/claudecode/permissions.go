package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/baton-app/baton/backend/session"
)

// Permission prompts: can_use_tool control requests, waiting until the
// user answers them with a control_response.

type pendingRequest struct {
	req         session.PermissionRequest
	suggestions []json.RawMessage
}

// Pending returns the permission prompts waiting in every running session
// (hidden ones included).
func (h *Host) Pending(ctx context.Context) ([]session.PermissionRequest, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []session.PermissionRequest
	for _, s := range h.sessions {
		for _, p := range s.pending {
			out = append(out, p.req)
		}
	}
	return out, nil
}

// RespondPermission implements session.Browser: once allows the call
// (with updatedInput when given, such as an AskUserQuestion's answers),
// always allows it and adds the rules the CLI suggested (as its own "don't
// ask again" does), deny refuses it.
func (h *Host) RespondPermission(ctx context.Context, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error {
	if !decision.Valid() {
		return fmt.Errorf("respond to %s: unknown decision %q", requestID, decision)
	}
	h.mu.Lock()
	var (
		s  *cliSession
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
	case session.Deny:
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
		if decision == session.AllowAlways {
			if rules := alwaysRules(pr.suggestions); len(rules) > 0 {
				resp["updatedPermissions"] = rules
			}
		}
	}
	line, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": requestID, "response": resp,
	}})
	err := p.write(line)
	h.notify(s.meta.ID, session.NoticeUpdated)
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

func suggestionsJSON(s []json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}
