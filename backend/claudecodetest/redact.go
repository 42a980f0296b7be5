package claudecodetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Redacted is the placeholder that replaces a string of Claude Code's own
// text (its system prompt, tool descriptions, reminders...) in the
// recordings, with the length of what it replaced.
func Redacted(s string) string {
	return fmt.Sprintf("[redacted: Claude Code's own text, %d characters]", utf8.RuneCountInString(s))
}

var redactedRe = regexp.MustCompile(`^\[redacted: Claude Code's own text, \d+ characters\]$`)

// redactRules are the field paths, by line type, whose string values are
// Claude Code's own text. A path's segments are object keys; "[]" is any
// array element and "**" any number of segments. testdata/recordings/README.md
// says the same in words: keep the two in step.
var redactRules = map[string][]string{
	// The request's system prompt and tool definitions: the prose only
	// (tool names, JSON types and enums stay).
	"api-request-shape": {"shape.system.[].text", "shape.tools.**.description"},
	// An attachment's text as rendered for the model, whatever its kind.
	"attachment": {"rendered.[].content"},
	// The kinds of attachment that carry the CLI's prompts themselves.
	"attachment/prompt_snapshot":     {"attachment.systemPrompt.[]", "attachment.cliPrefix", "attachment.tools.**.description"},
	"attachment/skill_listing":       {"attachment.content"},
	"attachment/agent_listing_delta": {"attachment.addedLines.[]"},
	"attachment/model":               {"attachment.text"},
	// The system message of a request: the CLI's environment, listings and
	// reminders.
	"api-request-blob/system": {"message.content", "message.content.[].text"},
}

// reminderRule is the one rule that looks at the value too: in the user
// message of an api-request-blob only the text blocks that are the CLI's
// <system-reminder>s go; the rest is Baton's prompt.
const reminderRule = "api-request-blob/user"

// Redact replaces Claude Code's own text in JSON Lines (a recording's
// transcript or stream) by Redacted placeholders, by line type and field
// path (redactRules): the request shapes' system prompt and tool
// descriptions, the attachments' rendered text, prompt snapshots, skill and
// agent listings and model line, the system message of request blobs and
// the <system-reminder> blocks of their user message. Everything else
// (every key, every other value, the lines' order) is kept byte for byte;
// a line with nothing to redact is not touched, and Redact of its own
// output changes nothing.
func Redact(data []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		body := bytes.TrimRight(line, "\r\n")
		red, ok := redactLine(body)
		if !ok {
			out.Write(line)
			continue
		}
		out.Write(red)
		out.Write(line[len(body):])
	}
	return out.Bytes()
}

// redactLine rewrites one line; ok is false when it has nothing to redact
// (or is not JSON).
func redactLine(line []byte) ([]byte, bool) {
	var head struct {
		Type       string `json:"type"`
		Attachment struct {
			Type string `json:"type"`
		} `json:"attachment"`
		Message struct {
			Role string `json:"role"`
		} `json:"message"`
	}
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &head) != nil {
		return nil, false
	}
	var patterns []string
	reminders := false
	switch head.Type {
	case "api-request-shape":
		patterns = redactRules[head.Type]
	case "attachment":
		patterns = append(append(patterns, redactRules["attachment"]...), redactRules["attachment/"+head.Attachment.Type]...)
	case "api-request-blob":
		patterns = redactRules["api-request-blob/"+head.Message.Role]
		reminders = head.Message.Role == "user"
	}
	if len(patterns) == 0 && !reminders {
		return nil, false
	}
	match := func(path []string, s string) bool {
		if redactedRe.MatchString(s) {
			return false
		}
		if reminders {
			return matchPath([]string{"message", "content", "[]", "text"}, path) && strings.HasPrefix(s, "<system-reminder>")
		}
		for _, p := range patterns {
			if matchPath(strings.Split(p, "."), path) {
				return true
			}
		}
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	w := &rewriter{dec: dec, match: match}
	if err := w.value(nil); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF || w.n == 0 {
		return nil, false
	}
	return w.out.Bytes(), true
}

// matchPath says whether path matches pattern (segments; "**" matches any
// number of segments).
func matchPath(pattern, path []string) bool {
	if len(pattern) == 0 {
		return len(path) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if matchPath(pattern[1:], path[i:]) {
				return true
			}
		}
		return false
	}
	return len(path) > 0 && pattern[0] == path[0] && matchPath(pattern[1:], path[1:])
}

// rewriter re-emits a JSON value token by token (so the keys keep their
// order and numbers their spelling), replacing the strings match picks.
type rewriter struct {
	dec   *json.Decoder
	match func(path []string, s string) bool
	out   bytes.Buffer
	n     int // strings replaced
}

func (w *rewriter) value(path []string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			w.out.WriteByte('{')
			for i := 0; w.dec.More(); i++ {
				k, err := w.dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if i > 0 {
					w.out.WriteByte(',')
				}
				w.str(key)
				w.out.WriteByte(':')
				if err := w.value(append(path, key)); err != nil {
					return err
				}
			}
			w.out.WriteByte('}')
		case '[':
			w.out.WriteByte('[')
			for i := 0; w.dec.More(); i++ {
				if i > 0 {
					w.out.WriteByte(',')
				}
				if err := w.value(append(path, "[]")); err != nil {
					return err
				}
			}
			w.out.WriteByte(']')
		}
		_, err = w.dec.Token() // the closing delimiter
		return err
	case string:
		if w.match(path, t) {
			t = Redacted(t)
			w.n++
		}
		w.str(t)
	case json.Number:
		w.out.WriteString(t.String())
	case bool:
		fmt.Fprint(&w.out, t)
	case nil:
		w.out.WriteString("null")
	}
	return nil
}

// str writes s as a JSON string the way the CLI's JSON.stringify does (no
// HTML escaping).
func (w *rewriter) str(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	w.out.Write(bytes.TrimRight(b.Bytes(), "\n"))
}
