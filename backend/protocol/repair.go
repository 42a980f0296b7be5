package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// RepairKind names one automatic JSON fix.
type RepairKind string

// The repairs, in the order Repair applies them.
const (
	RepairBOM            RepairKind = "bom"             // a byte order mark before the JSON
	RepairCodeFence      RepairKind = "code_fence"      // a ```json fence inside the block
	RepairSmartQuotes    RepairKind = "smart_quotes"    // “typographic” quotes used as JSON quotes
	RepairSingleQuotes   RepairKind = "single_quotes"   // 'single-quoted' strings
	RepairComments       RepairKind = "comments"        // // and /* */ comments
	RepairUnquotedKeys   RepairKind = "unquoted_keys"   // {key: 1}
	RepairTrailingCommas RepairKind = "trailing_commas" // [1, 2,] and {"a": 1,}
	RepairRawNewlines    RepairKind = "raw_newlines"    // line breaks and tabs typed inside strings
)

// RepairKinds lists every repair in the order they are applied.
func RepairKinds() []RepairKind {
	return []RepairKind{RepairBOM, RepairCodeFence, RepairSmartQuotes, RepairSingleQuotes,
		RepairComments, RepairUnquotedKeys, RepairTrailingCommas, RepairRawNewlines}
}

// Repair records one kind of fix applied to a block and how many times.
type Repair struct {
	Kind  RepairKind `json:"kind"`
	Count int        `json:"count"`
}

// Description says in words what the repair did.
func (r Repair) Description() string {
	switch r.Kind {
	case RepairBOM:
		return "removed a byte order mark"
	case RepairCodeFence:
		return "removed a ```json code fence inside the block"
	case RepairSmartQuotes:
		return "replaced typographic quotes in " + plural(r.Count, "string", "strings")
	case RepairSingleQuotes:
		return "converted " + plural(r.Count, "single-quoted string", "single-quoted strings")
	case RepairComments:
		return "removed " + plural(r.Count, "comment", "comments")
	case RepairUnquotedKeys:
		return "quoted " + plural(r.Count, "unquoted key", "unquoted keys")
	case RepairTrailingCommas:
		return "removed " + plural(r.Count, "trailing comma", "trailing commas")
	case RepairRawNewlines:
		return "escaped " + plural(r.Count, "raw line break or tab", "raw line breaks or tabs") + " inside strings"
	}
	return string(r.Kind)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// RepairResult is the text after repair and the fixes that were applied.
type RepairResult struct {
	Text    string   `json:"text"`
	Applied []Repair `json:"applied,omitempty"`
}

// RepairJSON fixes the mistakes agents commonly make in JSON. Valid JSON is
// returned unchanged with no repairs; otherwise every step runs in the order
// of RepairKinds and each step that changed something is reported. Every
// step only touches text that cannot be part of valid JSON, so a repair never
// changes the meaning of a valid document.
func RepairJSON(s string) RepairResult {
	trimmed := strings.TrimSpace(s)
	if json.Valid([]byte(trimmed)) {
		return RepairResult{Text: trimmed}
	}
	res := RepairResult{Text: trimmed}
	for _, step := range repairSteps() {
		out, n := step.fn(res.Text)
		if n > 0 {
			res.Text = out
			res.Applied = append(res.Applied, Repair{Kind: step.kind, Count: n})
		}
	}
	return res
}

type repairStep struct {
	kind RepairKind
	fn   func(string) (string, int)
}

func repairSteps() []repairStep {
	return []repairStep{
		{RepairBOM, StripBOM},
		{RepairCodeFence, StripCodeFence},
		{RepairSmartQuotes, FixSmartQuotes},
		{RepairSingleQuotes, FixSingleQuotes},
		{RepairComments, StripComments},
		{RepairUnquotedKeys, QuoteKeys},
		{RepairTrailingCommas, RemoveTrailingCommas},
		{RepairRawNewlines, EscapeRawNewlines},
	}
}

// StripBOM removes byte order marks (and zero-width no-break spaces) that
// precede the JSON, with the white space around them. White space is what
// strings.TrimSpace removes (also \v, \f, U+0085, U+00A0 …), so a mark
// behind any of it is found in the same pass and a second pass finds
// nothing.
func StripBOM(s string) (string, int) {
	n := 0
	for {
		t := strings.TrimLeftFunc(s, unicode.IsSpace)
		if !strings.HasPrefix(t, "\uFEFF") {
			break
		}
		s = t[len("\uFEFF"):]
		n++
	}
	if n == 0 {
		return s, 0
	}
	return strings.TrimSpace(s), n
}

// StripCodeFence removes a Markdown code fence (``` or ```json) that opens
// the text and holds an object or array; text after the closing fence goes
// with it.
func StripCodeFence(s string) (string, int) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return s, 0
	}
	rest := t[3:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return s, 0
	}
	lang := strings.TrimSpace(rest[:nl])
	if lang != "" && !isWord(lang) {
		return s, 0
	}
	body := rest[nl+1:]
	if j := strings.LastIndex(body, "```"); j >= 0 {
		body = body[:j]
	}
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, "{") && !strings.HasPrefix(body, "[") {
		return s, 0
	}
	return body, 1
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '+') {
			return false
		}
	}
	return true
}

// segKind classifies a lexical segment of almost-JSON text.
type segKind int

const (
	segOther      segKind = iota // structure, numbers, literals, bare words
	segDouble                    // "…" string, quotes included
	segSingle                    // '…' string, quotes included
	segSmart                     // “…” or ‘…’ string, quotes included
	segLineCmt                   // // … up to (not including) the newline
	segBlockCmt                  // /* … */
	segUnfinished                // a string or comment that never closes
)

type segment struct {
	kind segKind
	text string
}

// lex splits almost-JSON into segments. Inside a "…" string every other
// quote character, slash or apostrophe is content.
func lex(s string) []segment {
	var segs []segment
	other := 0 // start of the pending segOther
	flush := func(i int) {
		if i > other {
			segs = append(segs, segment{segOther, s[other:i]})
		}
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			end := scanQuoted(s, i+1, '"')
			flush(i)
			i = appendSeg(&segs, s, i, end, segDouble)
			other = i
		case c == '\'':
			end := scanQuoted(s, i+1, '\'')
			flush(i)
			i = appendSeg(&segs, s, i, end, segSingle)
			other = i
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			flush(i)
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s)
			} else {
				end += i
			}
			segs = append(segs, segment{segLineCmt, s[i:end]})
			i = end
			other = i
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			flush(i)
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				segs = append(segs, segment{segUnfinished, s[i:]})
				i = len(s)
			} else {
				end += i + 4
				segs = append(segs, segment{segBlockCmt, s[i:end]})
				i = end
			}
			other = i
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if closer, ok := smartCloser(r); ok {
				flush(i)
				end := scanSmart(s, i+size, closer)
				i = appendSeg(&segs, s, i, end, segSmart)
				other = i
				continue
			}
			i += size
		default:
			i++
		}
	}
	flush(len(s))
	return segs
}

func appendSeg(segs *[]segment, s string, start, end int, kind segKind) int {
	if end < 0 {
		*segs = append(*segs, segment{segUnfinished, s[start:]})
		return len(s)
	}
	*segs = append(*segs, segment{kind, s[start:end]})
	return end
}

// scanQuoted returns the offset just past the closing quote q, honouring
// backslash escapes, or -1.
func scanQuoted(s string, i int, q byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case q:
			return i + 1
		}
		i++
	}
	return -1
}

// smartCloser reports whether r opens a typographic string and which family
// closes it (any quote of the same family).
func smartCloser(r rune) (rune, bool) {
	switch r {
	case '\u201C', '\u201D', '\u201E', '\u201F': // “ ” „ ‟
		return '"', true
	case '\u2018', '\u2019', '\u201A', '\u201B': // ‘ ’ ‚ ‛
		return '\'', true
	}
	return 0, false
}

// maxSmartLookahead bounds how far past the first candidate closer the
// scan looks for a better one, which keeps lexing linear.
const maxSmartLookahead = 256

// scanSmart finds the closing typographic quote of a string that opened at
// i: a quote of the same family followed by a character that may follow a
// JSON string (:,}] or the end), so quotes used inside the text stay content.
// Failing that, the first quote of the family closes it; the search for a
// better closer stops at a line break or maxSmartLookahead bytes.
func scanSmart(s string, i int, family rune) int {
	first := -1
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\\' {
			i += 1 + size
			continue
		}
		if first >= 0 && (r == '\n' || i-first > maxSmartLookahead) {
			return first
		}
		if c, ok := smartCloser(r); ok && c == family && r != '\u201E' && r != '\u201A' {
			if first < 0 {
				first = i + size
			}
			k := i + size
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k == len(s) || s[k] == ':' || s[k] == ',' || s[k] == '}' || s[k] == ']' {
				return i + size
			}
		}
		i += size
	}
	return first
}

func join(segs []segment) string {
	var b strings.Builder
	for _, sg := range segs {
		b.WriteString(sg.text)
	}
	return b.String()
}

// requote turns the inner text of a string quoted some other way into the
// body of a JSON "…" string: unescaped " become \", \' becomes '.
func requote(inner string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch {
		case c == '\\' && i+1 < len(inner) && inner[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(inner):
			b.WriteByte(c)
			b.WriteByte(inner[i+1])
			i++
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FixSmartQuotes turns strings quoted with typographic quotes (“…”, ‘…’)
// into JSON strings. Typographic quotes inside a "…" string are content and
// stay.
func FixSmartQuotes(s string) (string, int) {
	segs := lex(s)
	n := 0
	for i, sg := range segs {
		if sg.kind != segSmart {
			continue
		}
		_, open := utf8.DecodeRuneInString(sg.text)
		_, cl := utf8.DecodeLastRuneInString(sg.text)
		segs[i] = segment{segDouble, requote(sg.text[open : len(sg.text)-cl])}
		n++
	}
	if n == 0 {
		return s, 0
	}
	return join(segs), n
}

// FixSingleQuotes turns 'single-quoted' strings into JSON strings.
func FixSingleQuotes(s string) (string, int) {
	segs := lex(s)
	n := 0
	for i, sg := range segs {
		if sg.kind != segSingle {
			continue
		}
		segs[i] = segment{segDouble, requote(sg.text[1 : len(sg.text)-1])}
		n++
	}
	if n == 0 {
		return s, 0
	}
	return join(segs), n
}

// StripComments removes // line comments and /* block */ comments outside
// strings.
func StripComments(s string) (string, int) {
	segs := lex(s)
	n := 0
	out := segs[:0]
	for _, sg := range segs {
		switch {
		case sg.kind == segLineCmt:
			n++
		case sg.kind == segBlockCmt:
			n++
			out = append(out, segment{segOther, " "})
		case sg.kind == segUnfinished && strings.HasPrefix(sg.text, "/*"):
			n++
		default:
			out = append(out, sg)
		}
	}
	if n == 0 {
		return s, 0
	}
	return join(out), n
}

// QuoteKeys quotes bare identifiers used as object keys ({key: 1}).
func QuoteKeys(s string) (string, int) {
	segs := lex(s)
	n := 0
	last := byte(0) // last significant character outside strings and comments
	for i, sg := range segs {
		switch sg.kind {
		case segDouble, segSingle, segSmart, segUnfinished:
			last = '"'
			continue
		case segLineCmt, segBlockCmt:
			continue
		}
		t := sg.text
		var b strings.Builder
		changed := false
		for j := 0; j < len(t); {
			c := t[j]
			if (last == '{' || last == ',') && isIdentStart(c) {
				k := j + 1
				for k < len(t) && isIdentPart(t[k]) {
					k++
				}
				m := k
				for m < len(t) && (t[m] == ' ' || t[m] == '\t' || t[m] == '\r' || t[m] == '\n') {
					m++
				}
				if m < len(t) && t[m] == ':' {
					b.WriteByte('"')
					b.WriteString(t[j:k])
					b.WriteByte('"')
					n++
					changed = true
					last = '"'
					j = k
					continue
				}
				b.WriteString(t[j:k])
				last = t[k-1]
				j = k
				continue
			}
			if !isSpace(c) {
				last = c
			}
			b.WriteByte(c)
			j++
		}
		if changed {
			segs[i].text = b.String()
		}
	}
	if n == 0 {
		return s, 0
	}
	return join(segs), n
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '-' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// RemoveTrailingCommas removes commas (and runs of commas) that directly
// precede a closing } or ].
func RemoveTrailingCommas(s string) (string, int) {
	segs := lex(s)
	n := 0
	// Walk backwards, remembering the next significant byte that is not a
	// comma, so each comma is decided in constant time.
	next := byte(0)
	for i := len(segs) - 1; i >= 0; i-- {
		switch segs[i].kind {
		case segLineCmt, segBlockCmt:
			continue
		case segOther:
		default:
			next = '"'
			continue
		}
		t := segs[i].text
		var rev []byte
		if strings.IndexByte(t, ',') >= 0 {
			rev = make([]byte, 0, len(t))
		}
		dropped := 0
		for j := len(t) - 1; j >= 0; j-- {
			c := t[j]
			if c == ',' && (next == '}' || next == ']') {
				dropped++
				continue
			}
			if c != ',' && !isSpace(c) {
				next = c
			}
			if rev != nil {
				rev = append(rev, c)
			}
		}
		if dropped == 0 {
			continue
		}
		n += dropped
		slices.Reverse(rev)
		segs[i].text = string(rev)
	}
	if n == 0 {
		return s, 0
	}
	return join(segs), n
}

// EscapeRawNewlines escapes control characters (line breaks, tabs) typed
// raw inside "…" strings.
func EscapeRawNewlines(s string) (string, int) {
	segs := lex(s)
	n := 0
	for i, sg := range segs {
		if sg.kind != segDouble && !(sg.kind == segUnfinished && strings.HasPrefix(sg.text, `"`)) {
			continue
		}
		if !hasControl(sg.text) {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(sg.text); j++ {
			c := sg.text[j]
			switch {
			case c == '\r' && j+1 < len(sg.text) && sg.text[j+1] == '\n':
				b.WriteString(`\n`)
				j++
			case c == '\n' || c == '\r':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20:
				fmt.Fprintf(&b, `\u%04x`, c)
			default:
				b.WriteByte(c)
				continue
			}
			n++
		}
		segs[i].text = b.String()
	}
	if n == 0 {
		return s, 0
	}
	return join(segs), n
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}
