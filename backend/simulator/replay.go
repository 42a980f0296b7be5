package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"time"
)

// RecordingFormat names the format of a "baton probe" recording.
const RecordingFormat = "baton-probe/1"

// Recording is what "baton probe" records of a real Claude Desktop: the
// LocalSessions methods with their arity, what getAll, getSession and
// getTranscript return (verbatim, or with texts redacted), and the
// onOnEvent and onOnToolPermissionRequest values that arrived while it
// listened. The simulator replays one (Options.Replay, "baton sim
// --replay FILE").
type Recording struct {
	Format     string            `json:"format"`
	RecordedAt time.Time         `json:"recordedAt"`
	Endpoint   string            `json:"endpoint"`
	Route      string            `json:"route"`
	AppVersion string            `json:"appVersion"`
	Redacted   bool              `json:"redacted"`
	Methods    []RecordedMethod  `json:"methods"`
	GetAll     []json.RawMessage `json:"getAll"`
	Sessions   []RecordedSession `json:"sessions"`
	Events     []RecordedEvent   `json:"events"`
	// Dropped counts events the page could not keep (too many).
	Dropped int `json:"droppedEvents,omitempty"`
	// Errors are the calls that failed while recording, as the page said.
	Errors []string `json:"errors,omitempty"`
}

// RecordedMethod is a LocalSessions method and its Function.length.
type RecordedMethod struct {
	Name  string `json:"name"`
	Arity int    `json:"arity"`
}

// RecordedSession is what the app returned for one session.
type RecordedSession struct {
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

// RecordedEvent is one value a listener received, At milliseconds after
// the recording began; Kind is "event" (onOnEvent) or "permission"
// (onOnToolPermissionRequest).
type RecordedEvent struct {
	At    int64           `json:"at"`
	Kind  string          `json:"kind"`
	Value json.RawMessage `json:"value"`
}

// ReadRecording reads a recording file.
func ReadRecording(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read recording %s: %w", path, err)
	}
	if r.Format != RecordingFormat {
		return nil, fmt.Errorf("read recording %s: format %q, want %q", path, r.Format, RecordingFormat)
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

// errReplay is the answer to a change asked of a replayed app.
var errReplay = errors.New("replay: this simulator replays a recording of Claude Desktop and changes nothing")

// replaySession finds the recorded session id.
func (r *Recording) session(id string) *RecordedSession {
	for i := range r.Sessions {
		if r.Sessions[i].ID == id {
			return &r.Sessions[i]
		}
	}
	return nil
}

// replayAPI answers the page's API calls from the recording; it reports
// false for the calls it leaves to the live simulator (none but the page
// itself and the events).
func (s *Simulator) replayAPI(w http.ResponseWriter, r *http.Request) bool {
	rec := s.opts.Replay
	if rec == nil {
		return false
	}
	q := r.URL.Query()
	switch r.URL.Path {
	case "/api/sessions":
		all := rec.GetAll
		if all == nil {
			all = []json.RawMessage{}
		}
		writeJSON(w, all)
	case "/api/session":
		if rs := rec.session(q.Get("id")); rs != nil && len(rs.GetSession) > 0 {
			writeJSON(w, rs.GetSession)
		} else {
			writeJSON(w, nil)
		}
	case "/api/transcript":
		rs := rec.session(q.Get("id"))
		if rs == nil {
			http.Error(w, "transcript: no session "+q.Get("id"), http.StatusNotFound)
			return true
		}
		entries := rs.GetTranscript
		if limit, err := parseInt(q.Get("tail")); err == nil {
			from := max(0, len(entries)-max(1, limit))
			writeJSON(w, map[string]any{"total": len(entries), "entries": slices.Clone(entries[from:])})
			return true
		}
		from, _ := parseInt(q.Get("from"))
		from = max(0, min(from, len(entries)))
		out := slices.Clone(entries[from:])
		if out == nil {
			out = []json.RawMessage{}
		}
		writeJSON(w, map[string]any{"total": len(entries), "from": from, "entries": out})
	default:
		http.Error(w, errReplay.Error(), http.StatusConflict)
	}
	return true
}

func parseInt(s string) (int, error) {
	var n int
	_, err := fmt.Sscan(s, &n)
	return n, err
}

// replayFeed sends the recorded events to one page, at their recorded
// times divided by the speed, as the events the page delivers to its
// listeners. The page asks for it (/api/events?replay=1) once a listener
// is registered, so none is lost before. The channel closes when all are sent; it is nil when nothing
// is replayed.
func (s *Simulator) replayFeed(ctx context.Context) <-chan []byte {
	rec := s.opts.Replay
	if rec == nil || len(rec.Events) == 0 {
		return nil
	}
	ch := make(chan []byte)
	s.wg.Go(func() {
		defer close(ch)
		start := time.Now()
		var first int64 = -1
		for _, ev := range rec.Events {
			if first < 0 {
				first = ev.At
			}
			due := start.Add(time.Duration(float64(time.Duration(ev.At-first)*time.Millisecond) / s.opts.Speed))
			if d := time.Until(due); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return
				case <-s.ctx.Done():
					return
				}
			}
			var msg map[string]any
			switch ev.Kind {
			case "permission":
				msg = map[string]any{"kind": "permission", "request": ev.Value}
			default:
				msg = map[string]any{"kind": "event", "event": ev.Value}
			}
			b, err := json.Marshal(msg)
			if err != nil {
				continue
			}
			select {
			case ch <- b:
			case <-ctx.Done():
				return
			case <-s.ctx.Done():
				return
			}
		}
	})
	return ch
}

// replayMethods is the page's method list when replaying: the recorded
// names and arities.
func (s *Simulator) replayMethods() []RecordedMethod {
	if s.opts.Replay == nil {
		return nil
	}
	return s.opts.Replay.Methods
}

// replayHandler answers the API from the recording when replaying.
func (s *Simulator) replayHandler(next http.Handler) http.Handler {
	if s.opts.Replay == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Path) > 5 && r.URL.Path[:5] == "/api/" && r.URL.Path != "/api/events" && s.replayAPI(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}
