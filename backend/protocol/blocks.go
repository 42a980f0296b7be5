package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/baton-app/baton/backend/jsonkind"
)

// Block is one delimited span of a text.
type Block struct {
	// Start and End are byte offsets of the whole block in the text, start
	// delimiter included; End includes the end delimiter when Complete.
	Start int `json:"start"`
	End   int `json:"end"`
	// Content is the text between the delimiters (up to the end of the text,
	// or the next start delimiter, when incomplete).
	Content  string `json:"content"`
	Complete bool   `json:"complete"`
}

// FindBlocks returns every block of text in order. A start delimiter with no
// end delimiter before the next start delimiter (or the end of the text) is
// an incomplete block: it is reported, never guessed.
func (p *Parser) FindBlocks(text string) []Block {
	var out []Block
	start, end := p.delims.Start, p.delims.End
	// endAt caches the next end delimiter at or after a position, so many
	// start delimiters before one end (or none) keep the scan linear.
	endAt, endFrom := -1, -1
	nextEnd := func(from int) int {
		if endFrom >= 0 && from >= endFrom && (endAt < 0 || endAt >= from) {
			return endAt
		}
		endFrom = from
		if j := strings.Index(text[from:], end); j >= 0 {
			endAt = from + j
		} else {
			endAt = -1
		}
		return endAt
	}
	pos := 0
	for pos < len(text) {
		i := strings.Index(text[pos:], start)
		if i < 0 {
			break
		}
		i += pos
		body := i + len(start)
		j := nextEnd(body)
		next := -1
		if k := strings.Index(text[body:], start); k >= 0 {
			next = body + k
		}
		switch {
		case j >= 0 && (next < 0 || j < next):
			out = append(out, Block{Start: i, End: j + len(end), Content: text[body:j], Complete: true})
			pos = j + len(end)
		case next >= 0:
			out = append(out, Block{Start: i, End: next, Content: text[body:next]})
			pos = next
		default:
			out = append(out, Block{Start: i, End: len(text), Content: text[body:]})
			pos = len(text)
		}
	}
	return out
}

// parseReply finds every response in the text of one reply.
func (p *Parser) parseReply(text string, src Source) []Response {
	return mergeNewTasks(p.parseReplyParts(text, src))
}

// mergeNewTasks joins consecutive new_task objects of one reply into one
// task_list, so an orchestrator that delegates several tasks in one reply
// gives one plan. Issue paths gain a "new_task[i]." prefix.
func mergeNewTasks(in []Response) []Response {
	var out []Response
	for i := 0; i < len(in); {
		j := i
		for j < len(in) && in[j].Dialect == DialectNewTask {
			j++
		}
		if j-i < 2 {
			out = append(out, in[i])
			i++
			continue
		}
		m := in[i]
		tl := &TaskList{}
		m.Errors, m.Warnings, m.Repairs, m.Raw = nil, nil, nil, ""
		for k := i; k < j; k++ {
			r := in[k]
			if d, ok := r.Data.(*TaskList); ok {
				tl.Tasks = append(tl.Tasks, d.Tasks...)
			}
			prefix := fmt.Sprintf("new_task[%d]", k-i)
			m.Errors = append(m.Errors, prefixIssues(prefix, r.Errors)...)
			m.Warnings = append(m.Warnings, prefixIssues(prefix, r.Warnings)...)
			m.Repairs = addRepairs(m.Repairs, r.Repairs)
			m.Raw += r.Raw + "\n"
			if r.Status != StatusValid {
				m.Status = StatusInvalid
			}
		}
		m.AfterText = in[j-1].AfterText
		m.Data = tl
		out = append(out, m)
		i = j
	}
	return out
}

// addRepairs sums the counts of repairs of the same kind.
func addRepairs(into, more []Repair) []Repair {
	for _, r := range more {
		i := slices.IndexFunc(into, func(x Repair) bool { return x.Kind == r.Kind })
		if i < 0 {
			into = append(into, r)
		} else {
			into[i].Count += r.Count
		}
	}
	return into
}

func prefixIssues(prefix string, is []Issue) []Issue {
	out := make([]Issue, 0, len(is))
	for _, x := range is {
		x.Path = joinPath(prefix, x.Path)
		out = append(out, x)
	}
	return out
}

func (p *Parser) parseReplyParts(text string, src Source) []Response {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	blocks := p.FindBlocks(text)
	if len(blocks) == 0 {
		return p.undelimited(text, src)
	}
	var out []Response
	for i, b := range blocks {
		prevEnd := 0
		if i > 0 {
			prevEnd = blocks[i-1].End
		}
		nextStart := len(text)
		if i+1 < len(blocks) {
			nextStart = blocks[i+1].Start
		}
		before := clipBefore(text[prevEnd:b.Start])
		after := clipAfter(text[b.End:nextStart])
		if !b.Complete {
			out = append(out, Response{
				Delimited: true, Status: StatusIncomplete, Raw: b.Content,
				BeforeText: before, Source: src,
				Errors: []Issue{{Path: "", Code: "incomplete", Message: fmt.Sprintf("the block has no end delimiter %s", p.delims.End)}},
			})
			continue
		}
		for _, r := range parseContent(b.Content, true) {
			r.BeforeText, r.AfterText, r.Source = before, after, src
			out = append(out, r)
		}
	}
	return out
}

// undelimited looks for second-dialect objects (and orchestrator objects)
// written without delimiters: JSON objects that begin a line, for example
// inside a ```json fence.
func (p *Parser) undelimited(text string, src Source) []Response {
	var out []Response
	for _, sp := range objectCandidates(text, 32) {
		resps := parseContent(text[sp[0]:sp[1]], false)
		if len(resps) == 0 || resps[0].Status == StatusInvalidJSON || resps[0].Dialect == "" {
			continue // ordinary JSON in the conversation, not an answer
		}
		for _, r := range resps {
			if r.Dialect == DialectOrchestrator {
				r.Warnings = append(r.Warnings, Issue{Code: CodeNoDelimiters, Message: "the answer has no delimiters; it was read because it is a complete phase object"})
			}
			r.BeforeText = clipBefore(strings.TrimSuffix(strings.TrimRight(text[:sp[0]], " \t\r\n"), "```json"))
			r.AfterText = clipAfter(strings.TrimPrefix(strings.TrimLeft(text[sp[1]:], " \t\r\n"), "```"))
			r.Source = src
			out = append(out, r)
		}
	}
	return out
}

// objectCandidates returns up to limit spans of balanced {…} that start a
// line. The scan is linear: it stops at the first object that never closes.
func objectCandidates(text string, limit int) [][2]int {
	var out [][2]int
	lineStart := true
	for i := 0; i < len(text) && len(out) < limit; i++ {
		c := text[i]
		switch {
		case c == '\n':
			lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '{' && lineStart:
			end := matchObject(text, i)
			if end < 0 {
				return out
			}
			out = append(out, [2]int{i, end})
			i = end - 1
		}
		lineStart = false
	}
	return out
}

// matchObject returns the offset just past the '}' closing the object that
// opens at text[i], or -1.
func matchObject(text string, i int) int {
	depth := 0
	inStr, esc := false, false
	for j := i; j < len(text); j++ {
		c := text[j]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// parseContent reads the JSON of one block (delimited) or candidate object
// and normalizes it. It returns one response, or several for a seed 001
// message file holding several reports.
func parseContent(content string, delimited bool) []Response {
	rep := RepairJSON(content)
	base := Response{Delimited: delimited, Raw: content, Repairs: rep.Applied}
	v, jerr := decodeObject(rep.Text)
	if jerr != nil {
		jerr.AfterRepair = len(rep.Applied) > 0
		base.Status = StatusInvalidJSON
		base.JSONError = jerr
		return []Response{base}
	}
	return normalize(v, base)
}

// decodeObject decodes exactly one JSON value (numbers kept as json.Number)
// and requires it to be an object.
func decodeObject(s string) (map[string]any, *JSONError) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonError(s, err, int(dec.InputOffset()))
	}
	if rest := strings.TrimSpace(s[min(int(dec.InputOffset()), len(s)):]); rest != "" {
		off := int(dec.InputOffset())
		off += len(s[off:]) - len(strings.TrimLeft(s[off:], " \t\r\n"))
		return nil, jsonErrorAt(s, off, "unexpected text after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, jsonErrorAt(s, 0, fmt.Sprintf("the block must hold one JSON object, not %s", jsonkind.Of(v)))
	}
	return m, nil
}

func jsonError(s string, err error, fallbackOff int) *JSONError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return jsonErrorAt(s, int(se.Offset)-1, se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		if strings.TrimSpace(s) == "" {
			return jsonErrorAt(s, 0, "the block is empty")
		}
		return jsonErrorAt(s, len(s), "unexpected end of JSON input: an object or string is not closed")
	case errors.As(err, &te):
		return jsonErrorAt(s, int(te.Offset), te.Error())
	}
	return jsonErrorAt(s, fallbackOff, err.Error())
}

func jsonErrorAt(s string, off int, msg string) *JSONError {
	if off > len(s) {
		off = len(s)
	}
	if off < 0 {
		off = 0
	}
	line, col := lineCol(s, off)
	return &JSONError{Message: msg, Offset: off, Line: line, Column: col, Excerpt: excerpt(s, off)}
}

// excerpt shows up to 30 bytes either side of off, on valid rune
// boundaries, with » at off and newlines shown as ⏎.
func excerpt(s string, off int) string {
	a := max(off-30, 0)
	for a > 0 && !startsRune(s[a]) {
		a--
	}
	b := min(off+30, len(s))
	for b < len(s) && !startsRune(s[b]) {
		b++
	}
	out := s[a:off] + "»" + s[off:b]
	return strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎", "\t", " ").Replace(out)
}

// marshalIndentNoEscape is json.MarshalIndent without HTML escaping.
func marshalIndentNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
