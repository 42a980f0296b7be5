package claude

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/baton-app/baton/backend/recording"
)

// RecordOptions say what "baton probe" records.
type RecordOptions struct {
	// For is how long the listeners record events; 30s when zero.
	For time.Duration
	// Redact replaces every text of the recording (messages, tool input
	// and output, titles, paths) by its length, keeping the shapes: field
	// names, types, ids, dates, counts.
	Redact bool
	// Sessions are the ids to record; empty: the MaxSessions most
	// recently active.
	Sessions []string
	// MaxSessions is 10 when zero.
	MaxSessions int
	// MaxEntries is how many entries of each transcript's end are kept;
	// 500 when zero.
	MaxEntries int
	// Progress, when set, hears what the probe does.
	Progress func(string)
}

// Record records what the app's LocalSessions really returns: the methods
// with their arity, getAll, getSession, getTranscript (and
// getTranscriptTail where present) of some sessions, and every onOnEvent
// and onOnToolPermissionRequest value for o.For. It only reads: it starts,
// sends and answers nothing.
func Record(ctx context.Context, h *Host, o RecordOptions) (*recording.Recording, error) {
	if o.For <= 0 {
		o.For = 30 * time.Second
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 10
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 500
	}
	say := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	p := h.Probe()
	rec := &recording.Recording{Format: recording.Format, RecordedAt: time.Now().UTC(), Endpoint: h.Endpoint(),
		Route: h.Route(), AppVersion: p.Version, Redacted: o.Redact}
	if err := h.call(ctx, methodsJS, &rec.Methods); err != nil {
		return nil, fmt.Errorf("list the methods: %w", err)
	}
	say("%d LocalSessions methods", len(rec.Methods))

	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	key := hex.EncodeToString(rnd[:])
	started := time.Now()
	var listening struct{ Events, Permissions bool }
	if err := h.call(ctx, recordJS, &listening, key, true); err != nil {
		return nil, fmt.Errorf("install the recording listeners: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.call(cctx, recordJS, nil, key, false)
	}()
	drain := func() {
		var d struct {
			Values []struct {
				At    int64           `json:"at"`
				Kind  string          `json:"kind"`
				Value json.RawMessage `json:"value"`
			} `json:"values"`
			Dropped int `json:"dropped"`
		}
		if err := h.call(ctx, drainJS, &d, key); err != nil {
			rec.Errors = append(rec.Errors, "drain events: "+err.Error())
			return
		}
		rec.Dropped += d.Dropped
		for _, v := range d.Values {
			rec.Events = append(rec.Events, recording.Event{At: v.At - started.UnixMilli(), Kind: v.Kind, Value: v.Value})
		}
	}

	raw := func(method string, args ...any) (json.RawMessage, error) {
		if args == nil {
			args = []any{}
		}
		var out json.RawMessage
		err := h.call(ctx, invokeJS, &out, method, args)
		return out, err
	}
	all, err := raw("getAll")
	if err != nil {
		return nil, fmt.Errorf("getAll: %w", err)
	}
	if err := json.Unmarshal(all, &rec.GetAll); err != nil {
		return nil, fmt.Errorf("getAll returned no list: %w", err)
	}
	ids := o.Sessions
	if len(ids) == 0 {
		ids = recentSessions(rec.GetAll, o.MaxSessions)
	}
	say("%d sessions; recording %d", len(rec.GetAll), len(ids))
	for _, id := range ids {
		rs := recording.Session{ID: id}
		if s, err := raw("getSession", id); err != nil {
			rec.Errors = append(rec.Errors, fmt.Sprintf("getSession(%s): %v", id, err))
		} else {
			rs.GetSession = s
		}
		if t, err := raw("getTranscript", id); err != nil {
			rec.Errors = append(rec.Errors, fmt.Sprintf("getTranscript(%s): %v", id, err))
		} else {
			var entries []json.RawMessage
			_ = json.Unmarshal(t, &entries)
			rs.TranscriptTotal = len(entries)
			rs.GetTranscript = entries[max(0, len(entries)-o.MaxEntries):]
		}
		if p.Has("getTranscriptTail") {
			rs.TailLimit = 5
			if t, err := raw("getTranscriptTail", id, rs.TailLimit); err != nil {
				rec.Errors = append(rec.Errors, fmt.Sprintf("getTranscriptTail(%s, 5): %v", id, err))
			} else {
				_ = json.Unmarshal(t, &rs.GetTranscriptTail)
			}
		}
		rec.Sessions = append(rec.Sessions, rs)
	}
	say("listening to events for %s (events: %v, permission requests: %v)", o.For, listening.Events, listening.Permissions)
	end := time.NewTimer(o.For)
	defer end.Stop()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-end.C:
			break loop
		case <-tick.C:
			drain()
		}
	}
	if ctx.Err() == nil {
		drain()
	}
	say("%d events recorded", len(rec.Events))
	if o.Redact {
		redactRecording(rec)
	}
	return rec, nil
}

// recentSessions returns the ids of the n most recently active sessions.
func recentSessions(all []json.RawMessage, n int) []string {
	type s struct {
		id string
		at time.Time
	}
	var ss []s
	for _, raw := range all {
		var o struct {
			SessionID      string   `json:"sessionId"`
			LastActivityAt flexTime `json:"lastActivityAt"`
		}
		if json.Unmarshal(raw, &o) == nil && o.SessionID != "" {
			ss = append(ss, s{o.SessionID, o.LastActivityAt.t})
		}
	}
	slices.SortStableFunc(ss, func(a, b s) int { return b.at.Compare(a.at) })
	var ids []string
	for _, x := range ss[:min(n, len(ss))] {
		ids = append(ids, x.id)
	}
	return ids
}

// keptKeys are the fields whose text values say what a shape is, not what
// the user wrote: kept when redacting.
var keptKeys = map[string]bool{
	"type": true, "subtype": true, "uuid": true, "parentUuid": true, "sessionId": true, "session_id": true,
	"id": true, "requestId": true, "toolName": true, "name": true, "role": true, "model": true,
	"permissionMode": true, "timestamp": true, "createdAt": true, "lastActivityAt": true,
	"stop_reason": true, "stopReason": true, "tool_use_id": true, "userType": true, "version": true,
	"behavior": true, "destination": true, "service_tier": true, "kind": true, "mode": true, "status": true,
}

// redactRecording replaces the texts of the recording (see
// RecordOptions.Redact).
func redactRecording(rec *recording.Recording) {
	red := func(raw json.RawMessage) json.RawMessage {
		if len(raw) == 0 {
			return raw
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return json.RawMessage(`"[redacted]"`)
		}
		b, _ := json.Marshal(redactValue("", v))
		return b
	}
	for i := range rec.GetAll {
		rec.GetAll[i] = red(rec.GetAll[i])
	}
	for i := range rec.Sessions {
		rs := &rec.Sessions[i]
		rs.GetSession = red(rs.GetSession)
		for j := range rs.GetTranscript {
			rs.GetTranscript[j] = red(rs.GetTranscript[j])
		}
		for j := range rs.GetTranscriptTail {
			rs.GetTranscriptTail[j] = red(rs.GetTranscriptTail[j])
		}
	}
	for i := range rec.Events {
		rec.Events[i].Value = red(rec.Events[i].Value)
	}
	for i := range rec.Errors {
		rec.Errors[i] = "[redacted error]"
	}
	rec.Endpoint = ""
}

func redactValue(key string, v any) any {
	switch x := v.(type) {
	case string:
		if keptKeys[key] {
			return x
		}
		return fmt.Sprintf("[redacted %d chars]", len([]rune(x)))
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(k, e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = redactValue(key, e)
		}
		return x
	}
	return v
}
