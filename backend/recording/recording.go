// Package recording is the format of a "baton probe" recording: what a
// real Claude Desktop's LocalSessions answered and pushed, as the Desktop
// adapter records it (claude.Record) and the simulator replays it ("baton
// sim --replay FILE"). Its one rule: a file of another format is refused
// when read. It imports nothing of Baton.
package recording

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Format names the format of a recording.
const Format = "baton-probe/1"

// Recording is what "baton probe" records of a real Claude Desktop: the
// LocalSessions methods with their arity, what getAll, getSession and
// getTranscript return (verbatim, or with texts redacted), and the
// onOnEvent and onOnToolPermissionRequest values that arrived while it
// listened.
type Recording struct {
	Format     string            `json:"format"`
	RecordedAt time.Time         `json:"recordedAt"`
	Endpoint   string            `json:"endpoint"`
	Route      string            `json:"route"`
	AppVersion string            `json:"appVersion"`
	Redacted   bool              `json:"redacted"`
	Methods    []Method          `json:"methods"`
	GetAll     []json.RawMessage `json:"getAll"`
	Sessions   []Session         `json:"sessions"`
	Events     []Event           `json:"events"`
	// Dropped counts events the page could not keep (too many).
	Dropped int `json:"droppedEvents,omitempty"`
	// Errors are the calls that failed while recording, as the page said.
	Errors []string `json:"errors,omitempty"`
}

// Method is a LocalSessions method and its Function.length.
type Method struct {
	Name  string `json:"name"`
	Arity int    `json:"arity"`
}

// Session is what the app returned for one session.
type Session struct {
	ID         string          `json:"id"`
	GetSession json.RawMessage `json:"getSession"`
	// GetTranscript is the transcript's end (all of it unless it was
	// longer than the probe kept); TranscriptTotal its whole length.
	GetTranscript   []json.RawMessage `json:"getTranscript"`
	TranscriptTotal int               `json:"transcriptTotal"`
	// GetTranscriptTail is what getTranscriptTail(id, TailLimit) returned,
	// where the app has it.
	GetTranscriptTail []json.RawMessage `json:"getTranscriptTail,omitempty"`
	TailLimit         int               `json:"tailLimit,omitempty"`
}

// Event is one value a listener received, At milliseconds after the
// recording began; Kind is "event" (onOnEvent) or "permission"
// (onOnToolPermissionRequest).
type Event struct {
	At    int64           `json:"at"`
	Kind  string          `json:"kind"`
	Value json.RawMessage `json:"value"`
}

// Read reads a recording file.
func Read(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read recording %s: %w", path, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("read recording %s: format %q, want %q", path, r.Format, Format)
	}
	return &r, nil
}

// WriteFile writes the recording to path (readable by the user only).
func (r *Recording) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// Session finds the recorded session id, or nil.
func (r *Recording) Session(id string) *Session {
	for i := range r.Sessions {
		if r.Sessions[i].ID == id {
			return &r.Sessions[i]
		}
	}
	return nil
}
