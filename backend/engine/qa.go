package engine

import (
	"context"
	"fmt"
	"sort"
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
func (r *runner) verified(ctx context.Context, change store.Change, v *protocol.Verification) {
	if v.Status != "fail" || len(v.Issues) == 0 {
		r.complete(ctx, change, v.Summary)
		return
	}
	max := r.tmpl.Phases.Verification.MaxRemediationRounds
	if r.remediation >= max {
		msg := fmt.Sprintf("Verification still fails after %d remediation round(s): %s. %s", r.remediation,
			issueList(v.Issues), v.Summary)
		if max == 0 {
			msg = fmt.Sprintf("Verification failed: %s. %s", issueList(v.Issues), v.Summary)
		}
		r.complete(ctx, change, msg)
		return
	}
	r.remediation++
	round := r.remediation
	var added []store.Task
	var ws []*workerState
	for i, is := range v.Issues {
		t := remediationTask(r.run.ID, round, i, is, r.task(is.TaskID))
		t.Position = len(r.tasks)
		r.tasks = append(r.tasks, t)
		added = append(added, t)
		w := &workerState{w: store.Worker{RunID: r.run.ID, TaskID: t.ID}, status: WorkerPending}
		w.book.seen = newUsageBook()
		r.workers[t.ID] = w
		ws = append(ws, w)
	}
	r.matchSkills(added)
	for _, t := range added {
		*r.task(t.ID) = t
	}
	change.Tasks = added
	r.status = RunRunning
	r.run.Phase = string(PhaseWorkerExecution)
	r.run.Message = fmt.Sprintf("Verification failed; remediation round %d of %d: %d task(s).", round, max, len(added))
	ev := r.ev(EventRemediation, nil, r.run.Message)
	ev.p.Tasks = added
	_ = r.commit(ctx, change, ws, ev, r.ev(EventPhaseChanged, nil, ""))
}

// remediationTask turns one QA issue into a task.
func remediationTask(runID string, round, i int, is protocol.VerificationIssue, origin *store.Task) store.Task {
	id := fmt.Sprintf("qa%d-fix-%02d", round, i+1)
	desc := strings.TrimSpace(is.Description)
	title := desc
	if len(title) > 70 {
		title = title[:67] + "..."
	}
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

// checkDeadlock stops a run whose pending tasks can never start: nothing
// runs, nothing is starting or waiting for a decision, and every pending
// task waits for a task that will not complete.
func (r *runner) checkDeadlock(ctx context.Context) {
	if (r.status != RunSpawning && r.status != RunRunning) || r.inflight > 0 || r.busy() > 0 {
		return
	}
	var blocked []string
	for _, id := range r.order() {
		ws := r.workers[id]
		switch ws.status {
		case WorkerPending:
			t := r.task(id)
			if t == nil || r.satisfied(t) {
				return
			}
			var on []string
			for _, d := range t.Dependencies {
				if w := r.workers[d]; w != nil && w.status != WorkerCompleted {
					on = append(on, fmt.Sprintf("%s (%s)", d, w.status))
				}
			}
			blocked = append(blocked, fmt.Sprintf("%s waits for %s", id, strings.Join(on, ", ")))
		case WorkerPaused, WorkerRunning, WorkerSpawning, WorkerAwaitingReview, WorkerRejected, WorkerTimeout:
			return // someone can still move it on
		}
	}
	if len(blocked) == 0 {
		return
	}
	sort.Strings(blocked)
	r.fail(ctx, fmt.Sprintf("dependency deadlock: no task can start and none is running: %s", strings.Join(blocked, "; ")))
}
