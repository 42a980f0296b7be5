package modelsim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/baton-app/baton/backend/agent"
)

// usage is a reply's token counts, as the API reports them.
type usage struct {
	Input, CacheCreation, CacheRead, Output int
}

func (u usage) json() map[string]any {
	return map[string]any{
		"input_tokens":                u.Input,
		"cache_creation_input_tokens": u.CacheCreation,
		"cache_read_input_tokens":     u.CacheRead,
		"output_tokens":               u.Output,
		"cache_creation":              map[string]any{"ephemeral_5m_input_tokens": u.CacheCreation, "ephemeral_1h_input_tokens": 0},
		"service_tier":                "standard",
	}
}

// tokens estimates the tokens of a text: about four bytes each.
func tokens(b []byte) int { return (len(b) + 3) / 4 }

// countUsage estimates the input tokens of a request. The system prompt
// and the tools are the cached prefix: written to the cache by a
// conversation's first request (no assistant message yet), read from it
// by the later ones.
func countUsage(req request) usage {
	msgs, _ := json.Marshal(req.Messages)
	prefix := tokens(req.System) + tokens(req.Tools)
	u := usage{Input: tokens(msgs)}
	first := !slices.ContainsFunc(req.Messages, func(m agent.ModelMessage) bool { return m.Role == "assistant" })
	if first {
		u.CacheCreation = prefix
	} else {
		u.CacheRead = prefix
	}
	return u
}

// message is one assistant reply.
type message struct {
	ID, Model  string
	Content    []agent.ModelBlock
	StopReason string
	usage      usage
}

func newMessage(req request, reply agent.ModelReply) *message {
	model := req.Model
	if model == "" {
		model = Models[1].ID
	}
	m := &message{ID: "msg_" + randomID(24), Model: model, Content: reply.Content, StopReason: reply.StopReason, usage: countUsage(req)}
	out, _ := json.Marshal(m.blocks())
	m.usage.Output = tokens(out)
	return m
}

func (m *message) blocks() []any {
	var out []any
	for _, b := range m.Content {
		switch b.Type {
		case "tool_use":
			in := b.Input
			if in == nil {
				in = map[string]any{}
			}
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": in})
		default:
			out = append(out, map[string]any{"type": "text", "text": b.Text})
		}
	}
	return out
}

// json is the non-streaming reply.
func (m *message) json() map[string]any {
	return map[string]any{
		"id": m.ID, "type": "message", "role": "assistant", "model": m.Model,
		"content": m.blocks(), "stop_reason": m.StopReason, "stop_sequence": nil,
		"usage": m.usage.json(),
	}
}

// chunks splits s into pieces of about n bytes, on rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		if i == 0 {
			i = n
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}

// stream writes the reply as the API's Server-Sent Events, waiting delay
// before each event. cut ≥ 0 stops after that many deltas of the first
// block, in the middle of it.
func stream(ctx context.Context, w http.ResponseWriter, m *message, delay time.Duration, cut int) error {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data map[string]any) error {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
		data["type"] = event
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	start := m.usage
	start.Output = 1
	if err := send("message_start", map[string]any{"message": map[string]any{
		"id": m.ID, "type": "message", "role": "assistant", "model": m.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start.json(),
	}}); err != nil {
		return err
	}
	if err := send("ping", map[string]any{}); err != nil {
		return err
	}
	deltas := 0
	for i, b := range m.Content {
		var startBlock map[string]any
		var pieces []string
		var delta func(string) map[string]any
		if b.Type == "tool_use" {
			in := b.Input
			if in == nil {
				in = map[string]any{}
			}
			js, _ := json.Marshal(in)
			startBlock = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
			pieces = chunks(string(js), 48)
			delta = func(s string) map[string]any { return map[string]any{"type": "input_json_delta", "partial_json": s} }
		} else {
			startBlock = map[string]any{"type": "text", "text": ""}
			pieces = chunks(b.Text, 64)
			delta = func(s string) map[string]any { return map[string]any{"type": "text_delta", "text": s} }
		}
		if err := send("content_block_start", map[string]any{"index": i, "content_block": startBlock}); err != nil {
			return err
		}
		for _, p := range pieces {
			if cut >= 0 && deltas >= cut {
				return nil
			}
			if err := send("content_block_delta", map[string]any{"index": i, "delta": delta(p)}); err != nil {
				return err
			}
			deltas++
		}
		if err := send("content_block_stop", map[string]any{"index": i}); err != nil {
			return err
		}
	}
	if err := send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": m.StopReason, "stop_sequence": nil},
		"usage": m.usage.json(),
	}); err != nil {
		return err
	}
	return send("message_stop", map[string]any{})
}
