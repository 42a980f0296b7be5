package session

import "encoding/json"

// PermissionRequest is a tool call waiting for the user's answer. A question
// the agent asks has ToolName "AskUserQuestion".
type PermissionRequest struct {
	RequestID   string          `json:"requestId"`
	SessionID   ID              `json:"sessionId,omitempty"`
	ToolName    string          `json:"toolName"`
	Input       json.RawMessage `json:"input,omitempty"`
	Suggestions json.RawMessage `json:"suggestions,omitempty"`
	// ToolUseID is the id of the tool call that asks, when the host says
	// it (the Claude Code CLI does; Claude Desktop's API does not).
	ToolUseID string `json:"toolUseId,omitempty"`
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
