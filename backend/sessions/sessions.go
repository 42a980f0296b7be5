// Package sessions turns what a session host returns into what the Sessions
// view shows: a compact transcript (text, tool calls and their results, turn
// results) and permission prompts with their input as readable text.
package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
)

// MaxText bounds the text of one item; longer text is cut with a note, so a
// huge tool result does not freeze the view.
const MaxText = 8000

// Kind of a transcript item.
type Kind string

const (
	KindText       Kind = "text"
	KindThinking   Kind = "thinking"
	KindToolUse    Kind = "tool_use"
	KindToolResult Kind = "tool_result"
	KindResult     Kind = "result"
)

// Item is one displayable piece of a transcript entry.
type Item struct {
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	Role      string `json:"role"` // user, assistant, result, system
	Kind      Kind   `json:"kind"`
	Text      string `json:"text"`
	// Tool is the tool name of a tool_use item.
	Tool string `json:"tool,omitempty"`
	// Summary is the one-line gist of a tool call ("Read server.go").
	Summary string `json:"summary,omitempty"`
	IsError bool   `json:"isError,omitempty"`
	// Truncated is true when Text was cut at MaxText.
	Truncated bool `json:"truncated,omitempty"`
}

// Items converts raw transcript entries; entries that are not JSON objects
// are skipped and counted. Entries of types the view does not show (system
// events, and Claude Code's own bookkeeping lines such as attachment,
// queue-operation, api-request or cost-state) are left out and not counted.
func Items(raw []json.RawMessage) (items []Item, skipped int) {
	for _, r := range raw {
		r = session.CanonicalEntry(r) // a result wrapped in message, camelCase
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(r, &head); err != nil || head.Type == "" {
			skipped++
			continue
		}
		if !shown(head.Type) {
			continue
		}
		var e protocol.Entry
		if err := json.Unmarshal(r, &e); err != nil {
			skipped++
			continue
		}
		items = append(items, entryItems(e)...)
	}
	return items, skipped
}

// shown reports whether the view shows entries of type typ.
func shown(typ string) bool {
	return typ != "system" && protocol.ConversationType(typ)
}

func entryItems(e protocol.Entry) []Item {
	base := Item{UUID: e.UUID, Timestamp: e.Timestamp, Role: e.Type}
	if e.Type == "result" {
		it := base
		it.Kind, it.IsError = KindResult, e.IsError
		it.Text = e.Result
		if e.Subtype != "" && e.Subtype != "success" {
			it.Summary = e.Subtype
		}
		return []Item{clip(it)}
	}
	if e.Message == nil {
		return nil
	}
	var out []Item
	for _, b := range e.Message.Content {
		it := base
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			it.Kind, it.Text = KindText, b.Text
		case "thinking":
			it.Kind, it.Text = KindThinking, b.Thinking
		case "tool_use":
			it.Kind, it.Tool = KindToolUse, b.Name
			it.Text = prettyJSON(b.Input)
			it.Summary = ToolSummary(b.Name, b.Input)
		case "tool_result":
			it.Kind, it.IsError = KindToolResult, b.IsError
			it.Text = resultText(b.Content)
		default:
			continue
		}
		out = append(out, clip(it))
	}
	return out
}

func clip(it Item) Item {
	if len(it.Text) <= MaxText {
		return it
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(it.Text[cut]) {
		cut--
	}
	it.Text = it.Text[:cut] + fmt.Sprintf("\n… (%d more bytes)", len(it.Text)-cut)
	it.Truncated = true
	return it
}

// resultText reads a tool_result content: a string, or blocks with text.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Text != "" {
				parts = append(parts, b.Text)
			} else if b.Type != "" {
				parts = append(parts, "["+b.Type+"]")
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// ToolSummary is the one-line gist of a tool call: the tool and its main
// argument (a path, a command, a pattern, a URL), as a transcript line.
func ToolSummary(tool string, input json.RawMessage) string {
	return session.ToolSummary(tool, input, session.ToolLine)
}

// Permission is a pending permission prompt as the view shows it.
type Permission struct {
	RequestID string `json:"requestId"`
	SessionID string `json:"sessionId"`
	Tool      string `json:"tool"`
	Summary   string `json:"summary"`
	Input     string `json:"input"`
	// Question is set for AskUserQuestion prompts: what the agent asks.
	Question string `json:"question,omitempty"`
	// Key is the same for identical prompts (permrules.Key).
	Key string `json:"key"`
}

// Permissions converts pending requests for display.
func Permissions(reqs []session.PermissionRequest) []Permission {
	out := make([]Permission, 0, len(reqs))
	for _, r := range reqs {
		p := Permission{
			RequestID: r.RequestID,
			SessionID: string(r.SessionID),
			Tool:      r.ToolName,
			Summary:   ToolSummary(r.ToolName, r.Input),
			Input:     prettyJSON(r.Input),
			Key:       permrules.Key(r.ToolName, r.Input),
		}
		if r.ToolName == "AskUserQuestion" {
			p.Question = question(r.Input)
		}
		out = append(out, p)
	}
	return out
}

// question reads the question text of an AskUserQuestion input, which has
// either a "question" field or a list of "questions".
func question(input json.RawMessage) string {
	var in struct {
		Question  string `json:"question"`
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
	}
	_ = json.Unmarshal(input, &in)
	if in.Question != "" {
		return in.Question
	}
	var qs []string
	for _, q := range in.Questions {
		if q.Question != "" {
			qs = append(qs, q.Question)
		}
	}
	return strings.Join(qs, "\n")
}
