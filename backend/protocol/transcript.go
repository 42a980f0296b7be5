package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Entry is one line of a Claude Code transcript as getTranscript returns it
// (see CLAUDE_DESKTOP_API.md). Unknown fields are ignored; message content
// may be a string or an array of blocks.
type Entry struct {
	Type        string   `json:"type"`
	UUID        string   `json:"uuid,omitempty"`
	ParentUUID  string   `json:"parentUuid,omitempty"`
	Timestamp   string   `json:"timestamp,omitempty"`
	IsSidechain bool     `json:"isSidechain,omitempty"`
	Message     *Message `json:"message,omitempty"`
	// Fields of a result entry. Result duplicates the final text of the
	// turn and is never read for answers.
	Subtype      string  `json:"subtype,omitempty"`
	IsError      bool    `json:"is_error,omitempty"`
	Result       string  `json:"result,omitempty"`
	NumTurns     float64 `json:"num_turns,omitempty"`
	DurationMS   float64 `json:"duration_ms,omitempty"`
	TotalCostUSD float64 `json:"total_cost_usd,omitempty"`
}

// Message is the message of an entry.
type Message struct {
	ID      string  `json:"id,omitempty"`
	Role    string  `json:"role,omitempty"`
	Model   string  `json:"model,omitempty"`
	Content Content `json:"content"`
	// Usage carries the token counts of assistant messages as sent.
	Usage json.RawMessage `json:"usage,omitempty"`
}

// Content is the list of blocks of a message. A string content is read as
// one text block.
type Content []ContentBlock

// ContentBlock is one block of message content: text, tool_use, thinking or
// tool_result. Only the fields of its type are set.
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// UnmarshalJSON accepts a string or an array of blocks; blocks that are not
// objects, and null, are skipped rather than failing the whole entry.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*c = nil
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
		*c = Content{{Type: "text", Text: s}}
		return nil
	case '[':
		// Fast path: every element is a well-formed block.
		var plain []plainBlock
		if json.Unmarshal(b, &plain) == nil {
			out := make(Content, len(plain))
			for i, pb := range plain {
				out[i] = ContentBlock(pb)
			}
			*c = out
			return nil
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
		out := make(Content, 0, len(raws))
		for _, r := range raws {
			var blk ContentBlock
			if err := json.Unmarshal(r, &blk); err != nil {
				continue
			}
			out = append(out, blk)
		}
		*c = out
		return nil
	}
	return nil
}

// plainBlock decodes a block with the standard rules (no UnmarshalJSON).
type plainBlock ContentBlock

// UnmarshalJSON reads a block tolerantly: a text or thinking field that is
// not a string leaves the field empty instead of failing.
func (cb *ContentBlock) UnmarshalJSON(b []byte) error {
	var pb plainBlock
	if json.Unmarshal(b, &pb) == nil {
		*cb = ContentBlock(pb)
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	str := func(key string) string {
		var s string
		if v, ok := raw[key]; ok {
			_ = json.Unmarshal(v, &s)
		}
		return s
	}
	*cb = ContentBlock{
		Type: str("type"), Text: str("text"), Thinking: str("thinking"),
		ID: str("id"), Name: str("name"), ToolUseID: str("tool_use_id"),
	}
	if v, ok := raw["input"]; ok {
		cb.Input = v
	}
	if v, ok := raw["content"]; ok {
		cb.Content = v
	}
	if v, ok := raw["is_error"]; ok {
		_ = json.Unmarshal(v, &cb.IsError)
	}
	return nil
}

// ConversationType reports whether entries of type typ are part of the
// conversation Baton reads: what the user and the agent said, system notes
// and the turn's result, and entries with a message but no type. Claude
// Code's transcript also holds lines of its own bookkeeping
// (queue-operation, attachment, api-request, api-request-shape,
// api-request-blob, tools-used, last-prompt, atis-latch, cost-state, and
// more in newer versions); readers skip those without counting them as
// errors. An api-request-blob even carries a message (the system prompt of
// a request), which is not something anyone said.
func ConversationType(typ string) bool {
	switch typ {
	case "", "user", "assistant", "system", "result":
		return true
	}
	return false
}

// isAssistant reports whether the entry is the agent speaking in the main
// conversation.
func (e Entry) isAssistant() bool {
	if e.IsSidechain || e.Message == nil {
		return false
	}
	if e.Type == "assistant" {
		return true
	}
	return e.Type == "" && e.Message.Role == "assistant"
}

// reply is the assistant text of one message.
type reply struct {
	messageID string
	uuids     []string
	text      string
}

// assistantReplies groups the text blocks of assistant entries by
// message.id, in order of first appearance. Consecutive text blocks of one
// reply are joined without a separator, so a block split anywhere (even
// inside a delimiter) is whole again; text separated by another block, such
// as a tool_use, is joined with a newline. Entries repeated with the same
// uuid are read once.
func assistantReplies(entries []Entry) []reply {
	type acc struct {
		reply
		sb       strings.Builder
		lastText bool // the last block seen in this reply was text
	}
	var order []*acc
	byID := map[string]*acc{}
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.isAssistant() {
			continue
		}
		if e.UUID != "" {
			if seen[e.UUID] {
				continue
			}
			seen[e.UUID] = true
		}
		id := e.Message.ID
		a := byID[id]
		if a == nil || id == "" {
			a = &acc{reply: reply{messageID: id}}
			order = append(order, a)
			if id != "" {
				byID[id] = a
			}
		}
		usedEntry := false
		for _, blk := range e.Message.Content {
			if blk.Type != "text" {
				a.lastText = false
				continue
			}
			if a.sb.Len() > 0 && !a.lastText {
				a.sb.WriteByte('\n')
			}
			a.sb.WriteString(blk.Text)
			a.lastText = true
			usedEntry = true
		}
		if usedEntry && e.UUID != "" {
			a.uuids = append(a.uuids, e.UUID)
		}
	}
	out := make([]reply, 0, len(order))
	for _, a := range order {
		r := a.reply
		r.text = a.sb.String()
		out = append(out, r)
	}
	return out
}

// DecodeTranscript reads a transcript: a JSON array of entries, or one entry
// object per line (JSON Lines). Array elements or lines that are not entry
// objects are skipped and counted in skipped; entries of types that are not
// part of the conversation (see ConversationType) are left out without
// being counted. It fails with ErrNotTranscript when data is neither form.
func DecodeTranscript(data []byte) (entries []Entry, skipped int, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, 0, fmt.Errorf("decode transcript: %w", ErrEmptyInput)
	}
	switch trimmed[0] {
	case '[':
		// Fast path: every element is an entry object.
		var all []Entry
		if json.Unmarshal(trimmed, &all) == nil {
			for _, e := range all {
				if e.Type == "" && e.Message == nil {
					skipped++
					continue
				}
				if !ConversationType(e.Type) {
					continue
				}
				entries = append(entries, e)
			}
			return entries, skipped, nil
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, 0, fmt.Errorf("decode transcript: %w: %w", ErrBadTranscript, describeJSONError(trimmed, err))
		}
		for _, r := range raws {
			e, ok := decodeEntry(r)
			if !ok {
				skipped++
				continue
			}
			if !ConversationType(e.Type) {
				continue
			}
			entries = append(entries, e)
		}
		return entries, skipped, nil
	case '{':
		lines := bytes.Split(trimmed, []byte("\n"))
		for n, line := range lines {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if !json.Valid(line) {
				return nil, 0, fmt.Errorf("decode transcript: line %d is not a JSON object: %w", n+1, ErrBadTranscript)
			}
			e, ok := decodeEntry(line)
			if !ok {
				skipped++
				continue
			}
			if !ConversationType(e.Type) {
				continue
			}
			entries = append(entries, e)
		}
		return entries, skipped, nil
	}
	return nil, 0, fmt.Errorf("decode transcript: %w", ErrNotTranscript)
}

func decodeEntry(raw json.RawMessage) (Entry, bool) {
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		// Retry field by field, so one odd field does not lose the entry.
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return Entry{}, false
		}
		e = Entry{}
		_ = json.Unmarshal(m["type"], &e.Type)
		_ = json.Unmarshal(m["uuid"], &e.UUID)
		_ = json.Unmarshal(m["isSidechain"], &e.IsSidechain)
		var msg Message
		if v, ok := m["message"]; ok && json.Unmarshal(v, &msg) == nil {
			e.Message = &msg
		}
	}
	if e.Type == "" && e.Message == nil {
		return Entry{}, false
	}
	return e, true
}

// describeJSONError turns a decoding error into one with a line and column.
func describeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	if ok := asSyntax(err, &se); ok {
		line, col := lineCol(string(data), int(se.Offset))
		return fmt.Errorf("line %d, column %d: %s", line, col, se.Error())
	}
	return err
}

func asSyntax(err error, target **json.SyntaxError) bool {
	se, ok := err.(*json.SyntaxError)
	if ok {
		*target = se
	}
	return ok
}

// lineCol converts a byte offset into a 1-based line and column (in runes).
func lineCol(s string, off int) (line, col int) {
	if off > len(s) {
		off = len(s)
	}
	if off < 0 {
		off = 0
	}
	line = 1 + strings.Count(s[:off], "\n")
	start := strings.LastIndexByte(s[:off], '\n') + 1
	col = 1 + utf8.RuneCountInString(s[start:off])
	return line, col
}
