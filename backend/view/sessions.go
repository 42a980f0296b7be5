package view

import (
	"encoding/json"
	"time"

	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/sessions"
	"github.com/baton-app/baton/backend/store"
)

// What the Sessions view and the Inbox show: the host's sessions, their
// transcripts and the prompts they wait on, and what waits for the user
// across the active runs.

// SessionInfo is one session of the host.
type SessionInfo struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Cwd            string `json:"cwd"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permissionMode,omitempty"`
	// Running is true while the session process is alive; TurnRunning
	// while a turn is in progress (a guess from Running when TurnUnknown).
	Running        bool                `json:"running"`
	TurnRunning    bool                `json:"turnRunning"`
	TurnUnknown    bool                `json:"turnUnknown,omitempty"`
	Archived       bool                `json:"archived"`
	Hidden         bool                `json:"hidden"`
	CreatedAt      time.Time           `json:"createdAt"`
	LastActivityAt time.Time           `json:"lastActivityAt"`
	Pending        []PermissionRequest `json:"pending"`
}

// PermissionRequest is a tool call of a session waiting for the user's
// answer, as the host reports it.
type PermissionRequest struct {
	RequestID   string          `json:"requestId"`
	SessionID   string          `json:"sessionId,omitempty"`
	ToolName    string          `json:"toolName"`
	Input       json.RawMessage `json:"input,omitempty"`
	Suggestions json.RawMessage `json:"suggestions,omitempty"`
	// ToolUseID is the id of the call that asks, when the host says it.
	ToolUseID string `json:"toolUseId,omitempty"`
}

// SessionTranscript is a session's transcript as the Sessions view shows it.
type SessionTranscript struct {
	Items []TranscriptItem `json:"items"`
	// Total is the number of transcript entries; Skipped the ones that
	// could not be read.
	Total   int `json:"total"`
	Skipped int `json:"skipped"`
}

// TranscriptItem is one entry of a transcript, made readable.
type TranscriptItem struct {
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	Role      string `json:"role"` // user, assistant, result, system
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	// Tool is the tool name of a tool_use item; Summary its gist.
	Tool      string `json:"tool,omitempty"`
	Summary   string `json:"summary,omitempty"`
	IsError   bool   `json:"isError,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// PermissionPrompt is a permission prompt a session waits on, made
// readable.
type PermissionPrompt struct {
	RequestID string `json:"requestId"`
	SessionID string `json:"sessionId"`
	Tool      string `json:"tool"`
	Summary   string `json:"summary"`
	Input     string `json:"input"`
	// Question is set for AskUserQuestion prompts: what the agent asks.
	Question string `json:"question,omitempty"`
	// Key is the same for identical prompts (the view groups them under
	// one set of buttons).
	Key string `json:"key"`
	// RunID is set for a prompt of an active run (answered through the
	// run, which logs it), with its run's name and the task (empty: the
	// main session); Suggestions are the rules "Allow for this run"
	// offers, narrowest first.
	RunID       string       `json:"runId,omitempty"`
	RunName     string       `json:"runName,omitempty"`
	TaskID      string       `json:"taskId,omitempty"`
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

// InboxItem is one thing that waits for the user.
type InboxItem struct {
	Kind    string `json:"kind"`
	RunID   string `json:"runId"`
	RunName string `json:"runName"`
	// TaskID is empty for the run itself and its main session.
	TaskID string `json:"taskId,omitempty"`
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	// RequestID answers a permission or question; SessionID is set for a
	// prompt of the run's main session.
	RequestID string    `json:"requestId,omitempty"`
	SessionID string    `json:"sessionId,omitempty"`
	Since     time.Time `json:"since"`
	// Key is the same for identical permission prompts (grouped under one
	// set of buttons); Summary says what the call does; Suggestions are
	// the rules "Allow for this run" offers.
	Key         string       `json:"key,omitempty"`
	Summary     string       `json:"summary,omitempty"`
	Suggestions []Suggestion `json:"suggestions"`
}

// SessionsOf is the view of the host's sessions.
func SessionsOf(list []session.Info) []SessionInfo {
	return mapAll(list, func(s session.Info) SessionInfo {
		return SessionInfo{
			ID: string(s.ID), Title: s.Title, Cwd: s.Cwd, Model: s.Model, PermissionMode: s.PermissionMode,
			Running: s.Running, TurnRunning: s.TurnRunning, TurnUnknown: s.TurnUnknown, Archived: s.Archived, Hidden: s.Hidden,
			CreatedAt: s.CreatedAt, LastActivityAt: s.LastActivityAt,
			Pending: mapAll(s.Pending, func(p session.PermissionRequest) PermissionRequest {
				return PermissionRequest{RequestID: p.RequestID, SessionID: string(p.SessionID), ToolName: p.ToolName, Input: p.Input, Suggestions: p.Suggestions, ToolUseID: p.ToolUseID}
			}),
		}
	})
}

// TranscriptItemsOf is the view of transcript items.
func TranscriptItemsOf(items []sessions.Item) []TranscriptItem {
	return mapAll(items, func(i sessions.Item) TranscriptItem {
		return TranscriptItem{UUID: i.UUID, Timestamp: i.Timestamp, Role: i.Role, Kind: string(i.Kind), Text: i.Text,
			Tool: i.Tool, Summary: i.Summary, IsError: i.IsError, Truncated: i.Truncated}
	})
}

// PermissionPromptsOf is the view of the prompts sessions wait on.
func PermissionPromptsOf(list []sessions.Permission) []PermissionPrompt {
	return mapAll(list, func(p sessions.Permission) PermissionPrompt {
		return PermissionPrompt{RequestID: p.RequestID, SessionID: p.SessionID, Tool: p.Tool, Summary: p.Summary, Input: p.Input,
			Question: p.Question, Key: p.Key}
	})
}

// InRuns completes the prompts that active runs wait on with their run,
// task, key and suggested rules, from the Inbox's items of those runs.
func InRuns(prompts []PermissionPrompt, items []inbox.Item) []PermissionPrompt {
	byRequest := map[string]inbox.Item{}
	for _, it := range items {
		if it.RequestID != "" && (it.Kind == inbox.KindPermission || it.Kind == inbox.KindQuestion) {
			byRequest[it.RequestID] = it
		}
	}
	for i, p := range prompts {
		it, ok := byRequest[p.RequestID]
		if !ok {
			continue
		}
		p.RunID, p.RunName, p.TaskID = it.RunID, it.RunName, it.TaskID
		if it.Key != "" {
			p.Key = it.Key
		}
		p.Suggestions = mapAll(it.Suggestions, func(s store.Suggestion) Suggestion { return Suggestion(s) })
		prompts[i] = p
	}
	return prompts
}

// InboxOf is the view of the inbox.
func InboxOf(items []inbox.Item) []InboxItem {
	return mapAll(items, func(i inbox.Item) InboxItem {
		return InboxItem{Kind: string(i.Kind), RunID: i.RunID, RunName: i.RunName, TaskID: i.TaskID, Title: i.Title,
			Detail: i.Detail, RequestID: i.RequestID, SessionID: i.SessionID, Since: i.Since, Key: i.Key, Summary: i.Summary,
			Suggestions: mapAll(i.Suggestions, func(s store.Suggestion) Suggestion { return Suggestion(s) })}
	})
}
