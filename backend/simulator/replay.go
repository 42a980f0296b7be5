package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/baton-app/baton/backend/recording"
)

// errReplay is the answer to a change asked of a replayed app.
var errReplay = errors.New("replay: this simulator replays a recording of Claude Desktop and changes nothing")

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
		if rs := rec.Session(q.Get("id")); rs != nil && len(rs.GetSession) > 0 {
			writeJSON(w, rs.GetSession)
		} else {
			writeJSON(w, nil)
		}
	case "/api/transcript":
		rs := rec.Session(q.Get("id"))
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
func (s *Simulator) replayMethods() []recording.Method {
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
