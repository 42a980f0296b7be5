package console

import (
	"io"
	"strings"
)

// sanitize makes text from an agent, a template or a file safe to print on
// a terminal: control characters (escape sequences, carriage returns, bells,
// C1 controls) and the bidirectional overrides that reorder what is shown
// are dropped. Line feeds and tabs stay: the caller decides about lines.
func sanitize(s string) string {
	if !needsSanitize(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unsafeRune(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// line is sanitize for one line: line breaks become spaces.
func line(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, sanitize(s))), " ")
}

func needsSanitize(s string) bool {
	for _, r := range s {
		if unsafeRune(r) {
			return true
		}
	}
	return false
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e' || r == '\u200f', r == '\u061c':
		return true
	case r == '\ufffd':
		return false
	}
	return false
}

// safeWriter sanitizes everything written through it. Every command's
// stdout and stderr go through one, so no text from an agent or a file can
// move the cursor, clear the screen or set the window title.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if !needsSanitize(string(p)) {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, sanitize(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// safe wraps w in a safeWriter once.
func safe(w io.Writer) io.Writer {
	if _, ok := w.(safeWriter); ok || w == nil {
		return w
	}
	return safeWriter{w}
}

// unwrap returns the writer under a safeWriter (for terminal detection and
// the progress display's own cursor movements).
func unwrap(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}
