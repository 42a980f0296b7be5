package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/jsonkind"
)

// Message types of seed 001.
const (
	TypeTaskAssignment   = "task_assignment"
	TypeCompletionReport = "completion_report"
)

// Platforms and build statuses allowed by seed 001.
var (
	Platforms     = []string{"web", "android", "ios", "custom"}
	BuildStatuses = []string{"success", "failed", "not_applicable", "not_verified"}
)

// TaskAssignment is a task_assignment message (team lead → developer).
type TaskAssignment struct {
	// Type is always "task_assignment"; Assign sets it.
	Type          string   `json:"type"`
	TaskID        string   `json:"taskId"`
	Platform      string   `json:"platform"`
	Title         string   `json:"title"`
	Instructions  string   `json:"instructions"`
	FilesToCreate []string `json:"filesToCreate"`
	Architecture  string   `json:"architecture"`
	APIEndpoints  []string `json:"apiEndpoints,omitempty"`
	// Timestamp is ISO 8601; Assign sets it when empty.
	Timestamp string `json:"timestamp"`
	// PreviousRejection is a Baton addition on a retry: why the last
	// attempt was rejected and what must change.
	PreviousRejection *Rejection `json:"previousRejection,omitempty"`
}

// Rejection is the reviewer's reason and required changes.
type Rejection struct {
	Reason          string   `json:"reason"`
	RequiredChanges []string `json:"requiredChanges,omitempty"`
}

// CompletionReport is a completion_report message (developer → team lead).
type CompletionReport struct {
	Type          string      `json:"type"`
	TaskID        string      `json:"taskId"`
	Platform      string      `json:"platform"`
	Status        string      `json:"status"`
	Summary       string      `json:"summary"`
	FilesCreated  []string    `json:"filesCreated"`
	FilesModified []string    `json:"filesModified"`
	BuildResult   BuildResult `json:"buildResult"`
	Timestamp     string      `json:"timestamp"`
}

// BuildResult is the build check of a completion report.
type BuildResult struct {
	Status  string `json:"status"`
	Command string `json:"command,omitempty"`
	Errors  int    `json:"errors"`
	Output  string `json:"output,omitempty"`
}

// Sentinel errors of message handling.
var (
	ErrMalformed   = errors.New("malformed message")
	ErrUnknownTask = errors.New("unknown task")
	ErrInvalid     = errors.New("invalid assignment")
	ErrUnreadable  = errors.New("unreadable file")
	ErrClosed      = errors.New("mailbox closed")
)

// validateAssignment checks what Baton is about to send.
func validateAssignment(a TaskAssignment) error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"taskId", a.TaskID}, {"platform", a.Platform}, {"title", a.Title}, {"instructions", a.Instructions}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("task assignment %q: missing %s: %w", a.TaskID, strings.Join(missing, ", "), ErrInvalid)
	}
	if !slices.Contains(Platforms, a.Platform) {
		return fmt.Errorf("task assignment %q: platform %q is not one of %s: %w", a.TaskID, a.Platform, strings.Join(Platforms, ", "), ErrInvalid)
	}
	return nil
}

// msgChecker collects the problems of one message, with field paths.
type msgChecker struct {
	m    map[string]any
	errs []string
}

func (c *msgChecker) fail(path, format string, a ...any) {
	c.errs = append(c.errs, path+": "+fmt.Sprintf(format, a...))
}

func (c *msgChecker) str(m map[string]any, path, key string, allowed ...string) string {
	v, ok := m[key]
	if !ok || v == nil {
		c.fail(path+key, "required field is missing")
		return ""
	}
	s, ok := v.(string)
	if !ok {
		c.fail(path+key, "must be a string, not %s", jsonkind.Of(v))
		return ""
	}
	if len(allowed) > 0 && !slices.Contains(allowed, s) {
		c.fail(path+key, "%q is not one of %s", s, strings.Join(allowed, ", "))
	} else if len(allowed) == 0 && strings.TrimSpace(s) == "" {
		c.fail(path+key, "must not be empty")
	}
	return s
}

func (c *msgChecker) strs(m map[string]any, path, key string) []string {
	v, ok := m[key]
	if !ok || v == nil {
		c.fail(path+key, "required field is missing (use [] when there are none)")
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.fail(path+key, "must be a list of strings, not %s", jsonkind.Of(v))
		return nil
	}
	out := []string{}
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			c.fail(fmt.Sprintf("%s%s[%d]", path, key, i), "must be a string, not %s", jsonkind.Of(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// taskIDOf reads the task id of a message as far as it can.
func taskIDOf(m map[string]any) string {
	for _, k := range []string{"taskId", "task_id"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// parseReport validates one message of to-team-lead.json.
func parseReport(raw json.RawMessage) (CompletionReport, string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return CompletionReport{}, "", fmt.Errorf("not JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return CompletionReport{}, "", fmt.Errorf("must be an object, not %s", jsonkind.Of(v))
	}
	c := &msgChecker{m: m}
	r := CompletionReport{
		Type:     c.str(m, "", "type", TypeCompletionReport),
		TaskID:   c.str(m, "", "taskId"),
		Platform: c.str(m, "", "platform", Platforms...),
		Status:   c.str(m, "", "status", "awaiting_review"),
		Summary:  c.str(m, "", "summary"),
	}
	r.FilesCreated = c.strs(m, "", "filesCreated")
	r.FilesModified = c.strs(m, "", "filesModified")
	switch b := m["buildResult"].(type) {
	case map[string]any:
		r.BuildResult.Status = c.str(b, "buildResult.", "status", BuildStatuses...)
		if s, ok := b["command"].(string); ok {
			r.BuildResult.Command = s
		}
		if s, ok := b["output"].(string); ok {
			r.BuildResult.Output = s
		}
		switch n := b["errors"].(type) {
		case nil:
		case json.Number:
			i, err := n.Int64()
			if err != nil || i < 0 {
				c.fail("buildResult.errors", "must be a whole number of at least 0, not %s", n)
			}
			r.BuildResult.Errors = int(i)
		default:
			c.fail("buildResult.errors", "must be a number, not %s", jsonkind.Of(n))
		}
	case nil:
		c.fail("buildResult", "required field is missing")
	default:
		c.fail("buildResult", "must be an object, not %s", jsonkind.Of(b))
	}
	r.Timestamp = c.str(m, "", "timestamp")
	if r.Timestamp != "" && !isoTime(r.Timestamp) {
		c.fail("timestamp", "must be an ISO 8601 time such as 2024-01-01T00:00:00.000Z, not %q", r.Timestamp)
	}
	id := r.TaskID
	if id == "" {
		id = taskIDOf(m)
	}
	if len(c.errs) > 0 {
		return r, id, errors.New(strings.Join(c.errs, "; "))
	}
	return r, id, nil
}

// CheckReport checks a completion report that reached the team lead another
// way (the developer's session) by the rules of to-team-lead.json: one
// validation for both paths. It returns why the report cannot be used.
// A zero BuildResult counts as a missing one.
func CheckReport(r CompletionReport) error {
	r.Type = TypeCompletionReport
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if r.BuildResult == (BuildResult{}) {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		delete(m, "buildResult")
		if raw, err = json.Marshal(m); err != nil {
			return err
		}
	}
	_, _, err = parseReport(raw)
	return err
}

// isoTime reports whether s is an ISO 8601 date and time: with a zone
// (2024-01-01T00:00:00.000Z, +02:00) or without one (a local time).
func isoTime(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999Z0700"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
