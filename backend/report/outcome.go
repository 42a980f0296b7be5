package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// Outcomes: a run that reaches its end is completed only when every task
// completed and the aggregation and the verification (when on) passed.
// Otherwise it is completed_with_issues, with one short sentence per kind
// of issue (open conflicts, a partial aggregation, a verification that
// still fails after its last round, failed, skipped or partly done tasks,
// questions never answered), or failed when nothing useful was done (no
// task completed).

// maxIssueItems bounds the ids or descriptions one issue sentence names.
const maxIssueItems = 5

// The statuses Outcome returns, as the engine names them.
const (
	StatusCompleted           = "completed"
	StatusCompletedWithIssues = "completed_with_issues"
	StatusFailed              = "failed"
)

// Outcome decides how a run that reached its end ended, from its final
// report and its stored answers (the newest aggregation and verification
// count). It returns StatusCompleted, StatusCompletedWithIssues or
// StatusFailed, and the issues (empty for completed).
func Outcome(rep FinalReport, answers []store.PhaseAnswer) (string, []string) {
	issues := []string{}
	c := rep.Tasks
	// The tasks the user skipped were never meant to run: no issue.
	total := c.Total - c.SkippedByUser
	if total > 0 && c.Completed == 0 {
		issues = append(issues, fmt.Sprintf("None of the %d %s completed.", total, plural(total, "task", "tasks")))
	}
	if len(rep.Failed) > 0 {
		issues = append(issues, fmt.Sprintf("%d of %d %s failed: %s.", len(rep.Failed), total, plural(total, "task", "tasks"), refList(rep.Failed)))
	}
	var skipped []TaskRef
	for _, t := range rep.Skipped {
		if !t.ByUser {
			skipped = append(skipped, t)
		}
	}
	if len(skipped) > 0 {
		issues = append(issues, fmt.Sprintf("%d of %d %s skipped: %s.", len(skipped), total,
			plural(total, "task", "tasks"), refList(skipped)))
	}
	byKind := map[string][]Limitation{}
	for _, l := range rep.Limitations {
		byKind[l.Kind] = append(byKind[l.Kind], l)
	}
	if l := byKind[LimitNotRun]; len(l) > 0 {
		issues = append(issues, fmt.Sprintf("%d %s never finished: %s.", len(l), plural(len(l), "task", "tasks"), limitTasks(l)))
	}
	if l := byKind[LimitOutputs]; len(l) > 0 {
		var items []string
		for _, x := range l {
			items = append(items, x.TaskID+" ("+strings.Join(x.Files, ", ")+")")
		}
		issues = append(issues, fmt.Sprintf("%d %s not write what %s: %s.", len(l), plural(len(l), "task did", "tasks did"),
			plural(len(l), "it declared", "they declared"), issueItems(items)))
	}
	if l := byKind[LimitPartial]; len(l) > 0 {
		issues = append(issues, fmt.Sprintf("%d %s only partly done: %s.", len(l), plural(len(l), "task is", "tasks are"), limitTasks(l)))
	}
	if agg := latestData[protocol.Aggregation](answers, protocol.PhaseAggregation); agg != nil && agg.Status != "" && agg.Status != "success" {
		s := fmt.Sprintf("The aggregation is %s", agg.Status)
		if agg.Status == "failed" {
			s = "The aggregation failed"
		}
		issues = append(issues, sentence(s, agg.Summary))
	}
	if l := byKind[LimitConflict]; len(l) > 0 {
		issues = append(issues, fmt.Sprintf("%d %s still open: %s.", len(l), plural(len(l), "conflict is", "conflicts are"), limitTexts(l)))
	}
	if v := latestData[protocol.Verification](answers, protocol.PhaseVerification); v != nil && v.Status != "" && v.Status != "pass" {
		rounds := len(rep.Iterations.Remediation)
		s := "The verification failed"
		switch {
		case v.Status == "partial":
			s = "The verification passed only in part"
		case rounds > 0:
			s = fmt.Sprintf("The verification still fails after %d remediation %s", rounds, plural(rounds, "round", "rounds"))
		}
		if n := len(v.Issues); n > 0 {
			var descs []string
			for _, is := range v.Issues {
				descs = append(descs, strings.TrimSpace(is.Description))
			}
			s += fmt.Sprintf(" (%d %s open: %s)", n, plural(n, "issue", "issues"), issueItems(descs))
		}
		issues = append(issues, sentence(s, v.Summary))
	}
	issues = append(issues, checkIssues(rep.Checks)...)
	if l := byKind[LimitQuestion]; len(l) > 0 {
		issues = append(issues, fmt.Sprintf("%d %s never answered: %s.", len(l), plural(len(l), "question was", "questions were"), limitTasks(l)))
	}
	switch {
	case total > 0 && c.Completed == 0:
		return StatusFailed, issues
	case len(issues) > 0:
		return StatusCompletedWithIssues, issues
	}
	return StatusCompleted, issues
}

// OutcomeLabel is how a run status is named to a person ("completed with
// issues", not "completed_with_issues").
func OutcomeLabel(status string) string {
	return strings.ReplaceAll(status, "_", " ")
}

func sentence(head, summary string) string {
	summary = strings.TrimSpace(strings.Join(strings.Fields(summary), " "))
	if summary == "" {
		return head + "."
	}
	summary = strings.TrimRight(summary, ".")
	return head + ": " + clip(summary, 160) + "."
}

func refList(refs []TaskRef) string {
	var ids []string
	for _, r := range refs {
		ids = append(ids, r.ID)
	}
	return issueItems(ids)
}

func limitTasks(ls []Limitation) string {
	var ids []string
	for _, l := range ls {
		if l.TaskID != "" {
			ids = append(ids, l.TaskID)
		}
	}
	return issueItems(ids)
}

func limitTexts(ls []Limitation) string {
	var texts []string
	for _, l := range ls {
		texts = append(texts, clip(strings.Join(strings.Fields(l.Text), " "), 80))
	}
	return issueItems(texts)
}

// issueItems joins items with "; " (ids with ", "), naming at most maxIssueItems.
func issueItems(items []string) string {
	sep := ", "
	for _, it := range items {
		if strings.ContainsAny(it, " ,") {
			sep = "; "
			break
		}
	}
	if len(items) > maxIssueItems {
		return strings.Join(items[:maxIssueItems], sep) + fmt.Sprintf(" and %d more", len(items)-maxIssueItems)
	}
	return strings.Join(items, sep)
}

// openResolutions start a conflict's "resolution" that resolves nothing.
var openResolutions = []string{"left to the user", "left for the user", "unresolved", "not resolved", "none", "n/a",
	"tbd", "to be decided", "pending", "needs a decision", "needs the user"}

// ConflictOpen reports whether a conflict with this resolution is still
// open: no resolution, or one that only says it is left to someone.
func ConflictOpen(resolution string) bool {
	r := strings.ToLower(strings.TrimSpace(resolution))
	if r == "" {
		return true
	}
	for _, p := range openResolutions {
		if strings.HasPrefix(r, p) {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// clip shortens s to at most n characters (runes), ending it with "..."
// when it was longer; a character is never split.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}
