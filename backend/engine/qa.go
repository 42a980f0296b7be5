package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// The QA loop of seed 004: a failed verification with issues becomes
// remediation tasks, one per issue, and the run returns to worker
// execution (then aggregation and verification again), at most
// phases.verification.maxRemediationRounds times. A run whose remaining
// tasks can never start is stopped with an explanation.

// verified takes the verification answer.
func (r *runner) verified(ctx context.Context, change store.Change, v *protocol.Verification) error {
	if v.Status != "fail" || len(v.Issues) == 0 {
		return r.complete(ctx, change, v.Summary)
	}
	max := r.tmpl.Phases.Verification.MaxRemediationRounds
	if r.remediation >= max {
		msg := fmt.Sprintf("Verification still fails after %d remediation round(s): %s. %s", r.remediation,
			issueList(v.Issues), v.Summary)
		if max == 0 {
			msg = fmt.Sprintf("Verification failed: %s. %s", issueList(v.Issues), v.Summary)
		}
		return r.complete(ctx, change, msg)
	}
	r.remediation++
	round := r.remediation
	var added []store.Task
	for i, is := range v.Issues {
		t := remediationTask(r.run.ID, round, i, is, r.plan.task(is.TaskID))
		t.Position = len(r.plan.tasks) + i
		added = append(added, t)
	}
	r.hooks.planned(added)
	if err := r.enter(RunRunning, PhaseWorkerExecution); err != nil {
		return err
	}
	ws := r.plan.add(r.run.ID, added)
	change.Tasks = added
	r.run.Message = fmt.Sprintf("Verification failed; remediation round %d of %d: %d task(s).", round, max, len(added))
	ev := r.ev(EventRemediation, nil, r.run.Message)
	ev.p.Tasks = added
	return r.commit(ctx, change, ws, ev, r.ev(EventPhaseChanged, nil, ""))
}

// remediationTask turns one QA issue into a task.
func remediationTask(runID string, round, i int, is protocol.VerificationIssue, origin *store.Task) store.Task {
	id := fmt.Sprintf("qa%d-fix-%02d", round, i+1)
	desc := strings.TrimSpace(is.Description)
	title := desc
	title = clip(title, 70)
	var b strings.Builder
	fmt.Fprintf(&b, "Quality assurance found a problem that must be fixed: %s", desc)
	if is.Severity != "" {
		fmt.Fprintf(&b, " (severity %s)", is.Severity)
	}
	if origin != nil {
		fmt.Fprintf(&b, "\nIt concerns task %s: %s. %s", origin.ID, origin.Title, origin.Description)
	}
	if len(is.Files) > 0 {
		fmt.Fprintf(&b, "\nFiles: %s", strings.Join(is.Files, ", "))
	}
	if is.SuggestedFix != "" {
		fmt.Fprintf(&b, "\nSuggested fix: %s", is.SuggestedFix)
	}
	t := store.Task{RunID: runID, ID: id, Title: "Fix: " + title, Description: b.String(), Scope: is.Files,
		Priority: 8, Dependencies: []string{}}
	if origin != nil {
		t.Complexity = origin.Complexity
		if len(t.Scope) == 0 {
			t.Scope = origin.Scope
		}
	}
	return t
}

func issueList(issues []protocol.VerificationIssue) string {
	var out []string
	for _, is := range issues {
		out = append(out, strings.TrimSpace(is.Description))
	}
	return strings.Join(out, "; ")
}
