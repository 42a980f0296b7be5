package session

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Host is everything the engine needs from a place that runs agent
// sessions. Every host kind implements it: the Claude Desktop adapter (over
// a CDP connection to Claude Desktop or to the embedded simulator page) and
// the Claude Code CLI host.
type Host interface {
	// Start creates a session in opts.Cwd with opts.Message as its first
	// message and returns its id.
	Start(ctx context.Context, opts StartOptions) (ID, error)
	// Send sends text to the session and returns once the message is in
	// that session's transcript.
	Send(ctx context.Context, id ID, text string) error
	// Read returns only the transcript entries after cursor.
	Read(ctx context.Context, id ID, cursor Cursor) (Batch, error)
	// Session returns the state of one session.
	Session(ctx context.Context, id ID) (Info, error)
	// Interrupt stops the turn in progress.
	Interrupt(ctx context.Context, id ID) error
	// Archive hides the session from the host's own list.
	Archive(ctx context.Context, id ID) error
	// Notices delivers "session X changed" notices. A host without push
	// sends none and is polled.
	Notices() <-chan Notice
}

// Browser is what the Sessions view needs beyond Host: the list of sessions
// and the answer to a pending permission request.
type Browser interface {
	// List returns the sessions of the host, leaving out hidden orchestrator
	// workers unless includeHidden is true.
	List(ctx context.Context, includeHidden bool) ([]Info, error)
	// RespondPermission answers one pending permission request.
	// updatedInput may be nil; for an AskUserQuestion request it carries the
	// answers.
	RespondPermission(ctx context.Context, requestID string, decision PermissionDecision, updatedInput json.RawMessage) error
}

// ID names a session of a host, such as "local_0f3c…" or
// "local___orch_run1_worker_task_001".
type ID string

// HiddenMarker is the text that marks an orchestrator worker session in its id
// (or, where the id could not be chosen, in its title).
const HiddenMarker = "__orch_"

// IsHidden reports whether a session with this id and title is an
// orchestrator worker that session lists leave out by default.
func IsHidden(id ID, title string) bool {
	return strings.Contains(string(id), HiddenMarker) || strings.Contains(title, HiddenMarker)
}

// StartOptions describe a new session. Cwd and Message are required.
type StartOptions struct {
	Cwd     string `json:"cwd"`
	Message string `json:"message"`
	Title   string `json:"title,omitempty"`
	// ID asks the host to use this id; empty lets the host choose.
	ID             ID     `json:"sessionId,omitempty"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permissionMode,omitempty"` // one of PermissionModes
	// UseWorktree lets a host that can (Claude Desktop) run the session in
	// a git worktree of its own. Baton's runs work in the run's folder, so
	// it is false unless an isolation feature asks for it.
	UseWorktree bool `json:"useWorktree,omitempty"`
	// SystemPrompt is the template's system prompt for the session. The
	// engine sets it only for a host whose TakesSystemPrompt says so (see
	// SystemPrompter); for any other host it is part of Message.
	SystemPrompt string `json:"systemPrompt,omitempty"`
}

// SystemPrompter is implemented by a host that gives a session a system
// prompt of its own (the Claude Code CLI's --append-system-prompt). For
// such a host the engine passes a template's system prompt in
// StartOptions.SystemPrompt instead of putting it before the first message.
type SystemPrompter interface {
	TakesSystemPrompt() bool
}

// TakesSystemPrompt reports whether host wants the system prompt apart.
func TakesSystemPrompt(host Host) bool {
	sp, ok := host.(SystemPrompter)
	return ok && sp.TakesSystemPrompt()
}

// WithSystemPrompt returns opts for a host that does not take a system
// prompt apart: SystemPrompt put before Message, as the engine does for such
// hosts.
func WithSystemPrompt(opts StartOptions) StartOptions {
	if strings.TrimSpace(opts.SystemPrompt) != "" {
		opts.Message = JoinPrompt(opts.SystemPrompt, opts.Message)
	}
	opts.SystemPrompt = ""
	return opts
}

// JoinPrompt joins a system text and a user text with a blank line, leaving
// out either when it is blank.
func JoinPrompt(system, user string) string {
	parts := []string{}
	for _, s := range []string{system, user} {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Cursor marks a position in a transcript: the number of entries already
// read and the uuid of the last one, so a rewritten transcript is noticed.
// The zero Cursor reads from the start.
type Cursor struct {
	Index int    `json:"index"`
	UUID  string `json:"uuid,omitempty"`
}

// Batch is what one Read returns.
type Batch struct {
	// Entries are the raw transcript entries after the cursor, in order
	// (Claude Code's log format: type, uuid, message, …).
	Entries []json.RawMessage `json:"entries"`
	// Next is the cursor to pass to the following Read.
	Next Cursor `json:"next"`
	// Total is the length of the whole transcript.
	Total int `json:"total"`
	// Reset is true when the transcript no longer held the cursor's entry,
	// so Entries start again from the beginning.
	Reset bool `json:"reset,omitempty"`
}

// Info is the state of one session.
type Info struct {
	ID             ID     `json:"id"`
	Title          string `json:"title"`
	Cwd            string `json:"cwd"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permissionMode,omitempty"`
	// Running is true while the session process is alive.
	Running bool `json:"running"`
	// TurnRunning is true while a turn is in progress; it is what tells
	// "idle" from "busy".
	TurnRunning bool `json:"turnRunning"`
	// TurnUnknown is true when the host does not say whether a turn is in
	// progress (Claude Desktop without turnRunning): TurnRunning is then a
	// guess from Running, and a turn ends only with its result.
	TurnUnknown    bool                `json:"turnUnknown,omitempty"`
	Archived       bool                `json:"archived"`
	Hidden         bool                `json:"hidden"`
	CreatedAt      time.Time           `json:"createdAt"`
	LastActivityAt time.Time           `json:"lastActivityAt"`
	Pending        []PermissionRequest `json:"pending"`
}

// NoticeKind says what changed in a session.
type NoticeKind string

// The kinds of notices a host sends.
const (
	NoticeMessage    NoticeKind = "message"    // a transcript entry was added
	NoticeResult     NoticeKind = "result"     // a turn ended
	NoticeUpdated    NoticeKind = "updated"    // session state changed
	NoticePermission NoticeKind = "permission" // a permission request is waiting
)

// Notice says that session SessionID changed; read it to learn what.
type Notice struct {
	SessionID ID         `json:"sessionId"`
	Kind      NoticeKind `json:"kind"`
}

// Warmer is implemented by a host that can start a session's process before
// the session's first message (the Claude Code CLI host: a started CLI
// waits for its first input line), so that a later Start with the same ID
// and options meets a started process. The engine warms the workers of
// tasks that will be ready soon and cools those that will not start.
type Warmer interface {
	// Warm starts a process for the session opts describe (Message is
	// empty) unless one is warm for opts.ID already, and returns the id
	// that Cool takes: opts.ID, or one the host chose when opts.ID is
	// empty (the process then goes to the first new session of the same
	// folder, model, permission mode and system prompt). It returns
	// quickly; a host may decline ("", nil) when it holds enough warm
	// processes or memory is short.
	Warm(ctx context.Context, opts StartOptions) (ID, error)
	// Cool ends the process Warm started for id, unless a Start took it.
	Cool(id ID)
}

// Room is what a host with a memory budget says about starting more
// sessions now. The zero Room has room for any number.
type Room struct {
	// Free is the memory the sessions may still take, in bytes.
	Free int64
	// Each is what one more session is expected to take.
	Each int64
	// Margin is kept free beside the sessions.
	Margin int64
}

// Fits returns how many more sessions fit (a large number for a host
// without a budget).
func (r Room) Fits() int {
	if r.Each <= 0 {
		return 1 << 30
	}
	return int(max(0, (r.Free-r.Margin)/r.Each))
}

// FreeMB is Free in whole mebibytes.
func (r Room) FreeMB() int64 { return r.Free >> 20 }

// Roomer is implemented by a host whose sessions run as processes that
// take this machine's memory (the local Claude Code CLI host): before
// starting workers, the engine asks it how many fit, and a worker that does
// not fit waits instead of starting.
type Roomer interface {
	Room() Room
}
