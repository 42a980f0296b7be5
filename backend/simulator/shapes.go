package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/agent"
)

// Shapes make the page and the transcripts take the shapes that the real
// Claude Desktop is reported to use where they differ from what the
// simulator does by default (see issue 15 and CLAUDE_DESKTOP_API.md). Each
// is off by default; "baton sim --shapes real" turns all of them on.
type Shapes struct {
	// WrappedResults: a turn's result is wrapped in the entry's message
	// (entry.message.type == "result") with camelCase fields (totalCostUsd,
	// isError, numTurns, usage.inputTokens…).
	WrappedResults bool
	// NoTurnRunning: session objects have no turnRunning, only isRunning
	// (the process is alive).
	NoTurnRunning bool
	// SplitMessages: one assistant message is written over several lines
	// sharing message.id, the early ones with a partial output count.
	SplitMessages bool
	// ISODates: createdAt and lastActivityAt are ISO 8601 text.
	ISODates bool
	// RawEvents: onOnEvent delivers the raw transcript entry, whose
	// sessionId is the CLI's session UUID (as in Claude Code's on-disk
	// transcript), not the app's local_ id.
	RawEvents bool
	// Worktrees: start puts the session in a git worktree of its own
	// (worktreePath, originCwd) unless it gets useWorktree: false.
	Worktrees bool
	// QueuedMessages: a message sent while a turn runs waits in a queue,
	// out of the transcript, until the turn ends; sendMessage takes the
	// message's UUID in a third position.
	QueuedMessages bool
	// Retitle: the app retitles a session after its first turn (so a
	// __orch_ title does not last).
	Retitle bool
	// TranscriptTail: the page has getTranscriptTail(id, limit).
	TranscriptTail bool
	// WorktreesAlways: an app version that makes a worktree even when start
	// gets useWorktree: false (not part of "real"; for the adapter's
	// refusal).
	WorktreesAlways bool
}

// shapeNames are the names of the shapes, in the order of Shapes' fields.
var shapeNames = []string{"wrapped-results", "no-turn-running", "split-messages", "iso-dates", "raw-events", "worktrees", "queued-messages", "retitle", "transcript-tail", "worktrees-always"}

// ShapeNames returns the names ParseShapes accepts (besides "real", all of
// them, and "none").
func ShapeNames() []string { return slices.Clone(shapeNames) }

func (sh *Shapes) fields() []*bool {
	return []*bool{&sh.WrappedResults, &sh.NoTurnRunning, &sh.SplitMessages, &sh.ISODates, &sh.RawEvents, &sh.Worktrees, &sh.QueuedMessages, &sh.Retitle, &sh.TranscriptTail, &sh.WorktreesAlways}
}

// AllShapes has every shape on: the app as it is reported to be
// (WorktreesAlways, a made-up misbehaviour, stays off).
func AllShapes() Shapes {
	var sh Shapes
	for _, f := range sh.fields() {
		*f = true
	}
	sh.WorktreesAlways = false
	return sh
}

// ParseShapes reads a comma-separated list of shape names; "real" (or
// "all") is every shape, "" or "none" none.
func ParseShapes(list string) (Shapes, error) {
	var sh Shapes
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "", "none":
			continue
		case "real", "all":
			sh = AllShapes()
			continue
		}
		i := slices.Index(shapeNames, name)
		if i < 0 {
			return Shapes{}, fmt.Errorf("unknown shape %q (known: real, %s)", name, strings.Join(shapeNames, ", "))
		}
		*sh.fields()[i] = true
	}
	return sh, nil
}

// String lists the shapes that are on, comma-separated.
func (sh Shapes) String() string {
	var on []string
	for i, f := range sh.fields() {
		if *f {
			on = append(on, shapeNames[i])
		}
	}
	return strings.Join(on, ",")
}

// sessionShape is what the shapes add to one session. Guarded by
// Simulator.mu.
type sessionShape struct {
	on Shapes
	// cliID is the CLI's session UUID: the sessionId of the transcript
	// entries and of raw events when RawEvents is on.
	cliID string
	// worktreePath and originCwd, when the session runs in a worktree.
	worktreePath, originCwd string
	// held are messages queued while a turn ran, not yet in the
	// transcript, by text: their UUIDs in order.
	held map[string][]string
	// retitled once the first turn ended.
	retitled bool
}

// shapeStart sets up the shapes of a new session. s.mu is held.
func (s *Simulator) shapeStartLocked(ss *session, info startInfo) {
	ss.shape = sessionShape{on: s.opts.Shapes, cliID: newUUID(), held: map[string][]string{}}
	if s.opts.Shapes.WorktreesAlways || s.opts.Shapes.Worktrees && (info.UseWorktree == nil || *info.UseWorktree) {
		name := "sim-" + strings.ReplaceAll(newUUID(), "-", "")[:8]
		ss.shape.originCwd = info.Cwd
		ss.shape.worktreePath = filepath.Join(info.Cwd, ".claude", "worktrees", name)
	}
}

// shapeObject changes a session object to the shapes. s.mu is held.
func (ss *session) shapeObject(obj map[string]any) {
	sh := ss.shape.on
	if sh.NoTurnRunning {
		delete(obj, "turnRunning")
	}
	if sh.ISODates {
		obj["createdAt"] = ss.createdAt.UTC().Format(time.RFC3339Nano)
		obj["lastActivityAt"] = ss.lastActivity.UTC().Format(time.RFC3339Nano)
	}
	if ss.shape.worktreePath != "" {
		obj["worktreePath"] = ss.shape.worktreePath
		obj["originCwd"] = ss.shape.originCwd
	}
}

// entrySessionID is the sessionId written in the session's entries.
func (ss *session) entrySessionID() string {
	if ss.shape.on.RawEvents {
		return ss.shape.cliID
	}
	return ss.id
}

// eventFor is the onOnEvent value for an entry: wrapped as
// {type: "message", sessionId, message}, or the raw entry itself.
func (ss *session) eventFor(entry json.RawMessage) any {
	if ss.shape.on.RawEvents {
		return entry
	}
	return map[string]any{"type": "message", "sessionId": ss.id, "message": entry}
}

// holdLocked reports whether a message sent now waits in the queue out of
// the transcript (a turn runs and QueuedMessages is on), and notes it.
func (ss *session) holdLocked(text, uuid string) bool {
	if !ss.shape.on.QueuedMessages || !ss.busy {
		return false
	}
	ss.shape.held[text] = append(ss.shape.held[text], uuid)
	return true
}

// releaseLocked returns the user entry of a held message taken from the
// queue, or nil when it was written when sent.
func (ss *session) releaseLocked(text string) map[string]any {
	uuids, ok := ss.shape.held[text]
	if !ok {
		return nil
	}
	uuid := uuids[0]
	if len(uuids) == 1 {
		delete(ss.shape.held, text)
	} else {
		ss.shape.held[text] = uuids[1:]
	}
	e := ss.userEntry(text)
	if uuid != "" {
		e["uuid"] = uuid
	}
	return e
}

// retitleLocked gives the session the app's own title once its first turn
// ended (Retitle). It reports whether the title changed.
func (ss *session) retitleLocked() bool {
	if !ss.shape.on.Retitle || ss.shape.retitled {
		return false
	}
	ss.shape.retitled = true
	text := agent.StripMarkers(ss.initialMessage)
	ss.title = "Claude: " + firstLine(strings.ReplaceAll(text, "__orch_", ""), 40)
	return true
}

// wrapResult gives a result entry the wrapped camelCase shape.
func wrapResult(entry map[string]any) map[string]any {
	inner := map[string]any{"type": "result"}
	rename := map[string]string{"is_error": "isError", "num_turns": "numTurns", "duration_ms": "durationMs",
		"duration_api_ms": "durationApiMs", "total_cost_usd": "totalCostUsd", "stop_reason": "stopReason",
		"model_usage_since_last_result": "modelUsageSinceLastResult", "permission_denials": "permissionDenials", "session_id": "sessionId"}
	for k, v := range entry {
		switch k {
		case "type", "uuid":
			continue
		case "usage":
			if u, ok := v.(map[string]any); ok {
				v = map[string]any{"inputTokens": u["input_tokens"], "outputTokens": u["output_tokens"],
					"cacheReadInputTokens": u["cache_read_input_tokens"], "cacheCreationInputTokens": u["cache_creation_input_tokens"]}
			}
		}
		if to, ok := rename[k]; ok {
			k = to
		}
		inner[k] = v
	}
	return map[string]any{"uuid": entry["uuid"], "timestamp": now(), "message": inner}
}

// tail is the last limit entries of the session's transcript (for
// getTranscriptTail), with the transcript's length.
func (ss *session) tailLocked(limit int) ([]json.RawMessage, int) {
	total := len(ss.transcript)
	from := max(0, total-max(1, limit))
	return slices.Clone(ss.transcript[from:]), total
}

// shapesJS serves the page the shapes it takes, as a script that sets
// window.__batonSimShapes (data only, from JSON encoding).
func (s *Simulator) shapesJS(w http.ResponseWriter, r *http.Request) {
	cfg := map[string]any{"transcriptTail": s.opts.Shapes.TranscriptTail, "messageUUID": s.opts.Shapes.QueuedMessages}
	if m := s.replayMethods(); m != nil {
		cfg["methods"] = m
		cfg["transcriptTail"] = true // served if the recording has it
	}
	b, _ := json.Marshal(cfg)
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	_, _ = w.Write([]byte("window.__batonSimShapes = Object.freeze(" + string(b) + ");\n"))
}
