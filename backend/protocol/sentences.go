package protocol

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// What an answer says, as the sentences a run shows and stores.

// Unverified is why a review that requires a successful build rejects a
// report at once: a failed build, or one that was not run; "" when the
// build check passes (or no build was reported).
func (b *BuildResult) Unverified() string {
	if b == nil {
		return ""
	}
	var reason string
	switch b.Status {
	case "failed":
		reason = "the build failed"
	case "not_verified":
		reason = "the build was not run (not_verified)"
	default:
		return ""
	}
	if b.Command != "" {
		reason += " (" + b.Command + ")"
	}
	if out := strings.TrimSpace(b.Output); out != "" {
		if n := utf8.RuneCountInString(out); n > 500 {
			out = string([]rune(out)[n-500:])
		}
		reason += ": " + out
	}
	return reason
}

// Conflicts lists a conflict report's issues as sentences.
func (c *Completion) Conflicts() []string {
	var out []string
	for _, is := range c.Issues {
		s := strings.TrimSpace(is.Description)
		if is.Type != "" && is.Type != "conflict" {
			s = is.Type + ": " + s
		}
		if is.SuggestedResolution != "" {
			s += " (suggested: " + is.SuggestedResolution + ")"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		reason := c.Error
		if reason == "" {
			reason = c.Summary
		}
		if reason == "" {
			reason = "a conflict without description"
		}
		out = append(out, reason)
	}
	return out
}

// Notes are the warnings and issues of a completion report, one line
// each: the notes a task's journal entry hands to the tasks that depend on
// it (nil for no report).
func (c *Completion) Notes() []string {
	if c == nil {
		return nil
	}
	notes := slices.Clone(c.Warnings)
	for _, is := range c.Issues {
		n := strings.TrimSpace(is.Description)
		if is.SuggestedResolution != "" {
			n += " (" + strings.TrimSpace(is.SuggestedResolution) + ")"
		}
		if n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// IssueList is the issues of a verification, in one line.
func IssueList(issues []VerificationIssue) string {
	var out []string
	for _, is := range issues {
		out = append(out, strings.TrimSpace(is.Description))
	}
	return strings.Join(out, "; ")
}

// PartialTaskList is the last task list of res that holds tasks but is
// still invalid (a required field missing), when a task list was asked
// for: the run hands it to the user instead of failing. A task without an
// id is given one; the checks before confirming name what else is
// missing. nil when there is none.
func (res Result) PartialTaskList(asked Phase) *TaskList {
	if asked != PhaseTaskList {
		return nil
	}
	for i := len(res.Responses) - 1; i >= 0; i-- {
		tl, ok := res.Responses[i].Data.(*TaskList)
		if !ok || tl == nil || len(tl.Tasks) == 0 || res.Responses[i].Phase != PhaseTaskList {
			continue
		}
		taken := map[string]bool{}
		for _, t := range tl.Tasks {
			taken[t.ID] = true
		}
		n := 0
		for j := range tl.Tasks {
			for tl.Tasks[j].ID == "" {
				n++
				if id := fmt.Sprintf("task_%03d", n); !taken[id] {
					tl.Tasks[j].ID, taken[id] = id, true
				}
			}
		}
		return tl
	}
	return nil
}
