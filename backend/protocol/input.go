package protocol

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Input is a file read for parsing: a transcript or plain text.
type Input struct {
	// Transcript is true when the file held transcript entries.
	Transcript bool
	Entries    []Entry
	// Skipped counts transcript items that were not entries.
	Skipped int
	Text    string
}

// DecodeInput reads the content of a file: a transcript (a JSON array of
// entries, or JSON Lines) or plain text. It fails with a wrapped sentinel
// (ErrEmptyInput, ErrBinaryInput, ErrBadTranscript) that callers can turn
// into a sentence.
func DecodeInput(data []byte) (Input, error) {
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return Input{}, fmt.Errorf("decode input: %w", ErrEmptyInput)
	}
	if bytes.IndexByte(trimmed, 0) >= 0 || !utf8.Valid(trimmed) {
		return Input{}, fmt.Errorf("decode input: %w", ErrBinaryInput)
	}
	switch trimmed[0] {
	case '[':
		entries, skipped, err := DecodeTranscript(trimmed)
		if err != nil {
			if looksLikeJSONArray(trimmed) {
				return Input{}, err
			}
			break // text that merely starts with '['
		}
		if len(entries) == 0 {
			return Input{}, fmt.Errorf("decode input: the JSON array holds no transcript entries (objects with \"type\" and \"message\"): %w", ErrBadTranscript)
		}
		return Input{Transcript: true, Entries: entries, Skipped: skipped}, nil
	case '{':
		entries, skipped, err := DecodeTranscript(trimmed)
		if err == nil && len(entries) > 0 && skipped == 0 {
			return Input{Transcript: true, Entries: entries}, nil
		}
	}
	return Input{Text: string(body)}, nil
}

// ParseInput parses what DecodeInput read.
func (p *Parser) ParseInput(in Input, opts Options) Result {
	if !in.Transcript {
		return p.ParseText(in.Text, opts)
	}
	res := p.ParseEntries(in.Entries, opts)
	if in.Skipped > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d items of the transcript are not entries and were skipped", in.Skipped))
	}
	return res
}

// looksLikeJSONArray tells a broken transcript from prose starting with '['.
func looksLikeJSONArray(b []byte) bool {
	rest := bytes.TrimSpace(b[1:])
	return len(rest) > 0 && (rest[0] == '{' || rest[0] == ']' || rest[0] == '"')
}

// Kind names what the input held: "transcript" or "text".
func (in Input) Kind() string {
	if in.Transcript {
		return "transcript"
	}
	return "text"
}
