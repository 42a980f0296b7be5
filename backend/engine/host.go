package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// SessionHost is everything the engine needs from a place that runs agent
// sessions. Two implementations share one code path: the Claude Desktop
// adapter (backend/claude over a CDP connection to Claude Desktop) and the
// same adapter over the embedded simulator page (backend/simulator).
type SessionHost interface {
	// Start creates a session in opts.Cwd with opts.Message as its first
	// message and returns its id.
	Start(ctx context.Context, opts StartOptions) (SessionID, error)
	// Send sends text to the session and returns once the message is in
	// that session's transcript.
	Send(ctx context.Context, id SessionID, text string) error
	// Read returns only the transcript entries after cursor.
	Read(ctx context.Context, id SessionID, cursor Cursor) (Batch, error)
	// Session returns the state of one session.
	Session(ctx context.Context, id SessionID) (SessionInfo, error)
	// Interrupt stops the turn in progress.
	Interrupt(ctx context.Context, id SessionID) error
	// Archive hides the session from the host's own list.
	Archive(ctx context.Context, id SessionID) error
	// Notices delivers "session X changed" notices. A host without push
	// sends none and is polled.
	Notices() <-chan Notice
}

// SessionBrowser is what the Sessions view needs beyond SessionHost: the list
// of sessions and the answer to a pending permission request.
type SessionBrowser interface {
	// List returns the sessions of the host, leaving out hidden orchestrator
	// workers unless includeHidden is true.
	List(ctx context.Context, includeHidden bool) ([]SessionInfo, error)
	// RespondPermission answers one pending permission request.
	// updatedInput may be nil; for an AskUserQuestion request it carries the
	// answers.
	RespondPermission(ctx context.Context, requestID string, decision PermissionDecision, updatedInput json.RawMessage) error
}

// SessionID names a session of a host, such as "local_0f3c…" or
// "local___orch_run1_worker_task_001".
type SessionID string

// HiddenMarker is the text that marks an orchestrator worker session in its id
// (or, where the id could not be chosen, in its title).
const HiddenMarker = "__orch_"

// IsHidden reports whether a session with this id and title is an
// orchestrator worker that session lists leave out by default.
func IsHidden(id SessionID, title string) bool {
	return strings.Contains(string(id), HiddenMarker) || strings.Contains(title, HiddenMarker)
}

var idPart = regexp.MustCompile(`^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$`)

// ErrInvalidID is returned for an orchestrator or task id that cannot be part
// of a session id.
var ErrInvalidID = errors.New("invalid id")

// WorkerSessionID returns the id a worker session is started with:
// local___orch_{orchestratorID}_worker_{taskID}, with one "orch_": a run id
// orch_abc gives local___orch_abc_worker_{taskID}. Both parts may hold
// letters, digits, '-' and single '_' between them.
func WorkerSessionID(orchestratorID, taskID string) (SessionID, error) {
	for _, p := range []string{orchestratorID, taskID} {
		if len(p) > 100 || !idPart.MatchString(p) {
			return "", fmt.Errorf("worker session id part %q: %w", p, ErrInvalidID)
		}
	}
	return SessionID("local_" + hiddenPrefix(orchestratorID) + "_worker_" + taskID), nil
}

// hiddenPrefix is the marker and the run id, with one "orch_".
func hiddenPrefix(orchestratorID string) string {
	if rest, ok := strings.CutPrefix(orchestratorID, "orch_"); ok && rest != "" {
		return HiddenMarker + rest
	}
	return HiddenMarker + orchestratorID
}

// MainSessionID returns the id the main session of a run is started with:
// local_baton_{orchestratorID}_main. It is stored before the session is
// started, so that after a crash the resume finds the session by it and
// never starts a second one. The session is not hidden.
func MainSessionID(orchestratorID string) (SessionID, error) {
	if len(orchestratorID) > 100 || !idPart.MatchString(orchestratorID) {
		return "", fmt.Errorf("main session id part %q: %w", orchestratorID, ErrInvalidID)
	}
	return SessionID("local_baton_" + orchestratorID + "_main"), nil
}

// StartOptions describe a new session. Cwd and Message are required.
type StartOptions struct {
	Cwd     string `json:"cwd"`
	Message string `json:"message"`
	Title   string `json:"title,omitempty"`
	// ID asks the host to use this id; empty lets the host choose.
	ID             SessionID `json:"sessionId,omitempty"`
	Model          string    `json:"model,omitempty"`
	PermissionMode string    `json:"permissionMode,omitempty"` // default, acceptEdits, plan, bypassPermissions
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
func TakesSystemPrompt(host SessionHost) bool {
	sp, ok := host.(SystemPrompter)
	return ok && sp.TakesSystemPrompt()
}

// WithSystemPrompt returns opts for a host that does not take a system
// prompt apart: SystemPrompt put before Message, as the engine does for such
// hosts.
func WithSystemPrompt(opts StartOptions) StartOptions {
	if strings.TrimSpace(opts.SystemPrompt) != "" {
		opts.Message = joinPrompt(opts.SystemPrompt, opts.Message)
	}
	opts.SystemPrompt = ""
	return opts
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

// SessionInfo is the state of one session.
type SessionInfo struct {
	ID             SessionID `json:"id"`
	Title          string    `json:"title"`
	Cwd            string    `json:"cwd"`
	Model          string    `json:"model,omitempty"`
	PermissionMode string    `json:"permissionMode,omitempty"`
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

// PermissionRequest is a tool call waiting for the user's answer. A question
// the agent asks has ToolName "AskUserQuestion".
type PermissionRequest struct {
	RequestID   string          `json:"requestId"`
	SessionID   SessionID       `json:"sessionId,omitempty"`
	ToolName    string          `json:"toolName"`
	Input       json.RawMessage `json:"input,omitempty"`
	Suggestions json.RawMessage `json:"suggestions,omitempty"`
}

// PermissionDecision answers a permission request.
type PermissionDecision string

// The decisions a permission request accepts.
const (
	AllowOnce   PermissionDecision = "once"
	AllowAlways PermissionDecision = "always"
	Deny        PermissionDecision = "deny"
)

// Valid reports whether d is one of the known decisions.
func (d PermissionDecision) Valid() bool {
	return d == AllowOnce || d == AllowAlways || d == Deny
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
	SessionID SessionID  `json:"sessionId"`
	Kind      NoticeKind `json:"kind"`
}
