package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/store"
)

// PermissionLog is the Markdown section of a run's permission log: every
// answer to a permission prompt with its time, worker, tool, input and who
// decided it (empty when the run has none).
func PermissionLog(log []store.PermissionDecision) string {
	if len(log) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Permissions\n\n| Time | Worker | Tool | Input | Decision | By |\n|---|---|---|---|---|---|\n")
	for _, d := range log {
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s |\n", d.At.UTC().Format(time.RFC3339), cell(WhoLabel(d.TaskID)),
			cell(d.Tool), strings.ReplaceAll(cell(d.Summary), "`", "'"), d.Decision, cell(DecidedByLabel(d.DecidedBy, d.Rule, d.Source)))
	}
	return b.String()
}

// WhoLabel names the session a prompt came from.
func WhoLabel(taskID string) string {
	if taskID == "" {
		return "main session"
	}
	return taskID
}

// DecidedByLabel says who decided: "you", "rule Bash(go test:*) (run)" or,
// for a call the host let run (or refused) without a prompt, "the
// permission mode acceptEdits (no prompt)".
func DecidedByLabel(by, rule, source string) string {
	switch by {
	case "rule":
		if source != "" {
			return fmt.Sprintf("rule %s (%s)", rule, source)
		}
		return "rule " + rule
	case "mode":
		if source != "" {
			return "the permission mode " + source + " (no prompt)"
		}
		return "the permission mode (no prompt)"
	}
	return "you"
}
