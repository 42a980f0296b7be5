package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/prompts"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/tasklist"
	"github.com/baton-app/baton/backend/template"
)

// The review gate of seed 001: with phases.review.enabled a worker's
// completion moves its task to awaiting_review. The reviewer (the main
// session with the review prompt, or the user through Engine.Review)
// approves it (completed) or rejects it with a reason (rejected, then
// pending again with the reason added to the next prompt, at most
// config.maxRetries times; one more rejection fails the task).
//
// The QA loop of seed 004: a failed verification with issues becomes
// remediation tasks, one per issue, and the run returns to worker
// execution (then aggregation and verification again), at most
// phases.verification.maxRemediationRounds times.
//
// The seeds' rules on a worker's report, as the seeds write them:
//   - seed 003: conflict_detected is "a conflict … that prevents task
//     completion": the task fails with its conflicts recorded (no retry:
//     another attempt meets the same conflict), its dependants are skipped,
//     and the conflicts go to the user (the worker card, the final report)
//     and to the main session (the aggregation prompt lists them as
//     "Conflict to resolve"). clarification_needed (needs_input) waits for
//     the user's answer (Engine.Answer), which goes to the worker's session.
//   - seed 004: "IF handoff.outcome == 'partial' AND iterations < 3:
//     Re-queue task with additional context from failure": a partial
//     report runs the task again in a new session, told what the last
//     attempt left undone, until its third iteration, whose report stands.

// ReviewerUser is the phases.review.reviewer value that leaves the decision
// to the user (Engine.Review); any other value lets the main session decide.
const ReviewerUser = "user"

// partialIterations is seed 004's iteration limit for a partial outcome.
const partialIterations = 3

// reviewer is the run's review gate, QA loop and the seeds' rules on a
// report. It owns which task the main session reviews and how many QA
// rounds ran (stored with the run); its methods return the changes to
// apply.
type reviewer struct {
	// Reviewing is the task whose review the main session was asked for.
	Reviewing string `json:"reviewing,omitempty"`
	// Remediation counts the QA rounds that added remediation tasks.
	Remediation int `json:"remediation,omitempty"`

	tmpl  template.Template
	flows Workflows
}

// gated reports whether completions wait for a review.
func (rv *reviewer) gated() bool { return rv.tmpl.Phases.Review.Enabled }

// await holds the completed task of ws (report c, event message msg) for
// its reviewer; with requireBuildSuccess a failed build, or one not run,
// is rejected at once.
func (rv *reviewer) await(ws *workerState, c *protocol.Completion, msg string, plan *taskPlan, now time.Time) (change, error) {
	report, err := json.Marshal(c)
	if err != nil {
		return change{}, fmt.Errorf("keep the report of %s for its review: %w", ws.w.TaskID, err)
	}
	if err := ws.move(WorkerAwaitingReview); err != nil {
		return change{}, err
	}
	ws.book.Report = report
	rv.flows.AwaitingReview(ws.w.TaskID, c)
	if msg == "" {
		msg = "awaiting review"
	}
	out := ws.event(EventWorkerAwaitingReview, msg)
	if reason := c.Build.Unverified(); rv.tmpl.Phases.Review.RequireBuildSuccess && reason != "" {
		out.then = func() (change, error) {
			return rv.decide(ws, &protocol.Review{TaskID: ws.w.TaskID, Decision: protocol.ReviewRejected,
				Reason: reason, RequiredChanges: []string{"make the build succeed"}}, "the build check", plan, now)
		}
	}
	return out, nil
}

// next is the first task awaiting review when the main session reviews
// (nil when none does).
func (rv *reviewer) next(plan *taskPlan) *workerState {
	if !rv.gated() || rv.tmpl.Phases.Review.Reviewer == ReviewerUser {
		return nil
	}
	for _, ws := range plan.inOrder() {
		if ws.status == WorkerAwaitingReview {
			return ws
		}
	}
	return nil
}

// answered takes the main session's review answer d: the worker it is
// about, or nil when that task was decided meanwhile (by the user).
func (rv *reviewer) answered(d *protocol.Review, plan *taskPlan) *workerState {
	id := rv.Reviewing
	rv.Reviewing = ""
	if id == "" {
		id = d.TaskID
	}
	ws := plan.workers[id]
	if ws == nil || ws.status != WorkerAwaitingReview {
		return nil
	}
	return ws
}

// user is the user's review of ws's task: approve, or reject for reason.
func (rv *reviewer) user(ws *workerState, approve bool, reason string, plan *taskPlan, now time.Time) (change, error) {
	taskID := ws.w.TaskID
	if ws.status != WorkerAwaitingReview {
		return change{}, fmt.Errorf("worker %s is %s, not awaiting review: %w", taskID, ws.status, ErrIllegalTransition)
	}
	if !approve && strings.TrimSpace(reason) == "" {
		return change{}, fmt.Errorf("a rejection of %s needs a reason for the worker: %w", taskID, ErrBadRequest)
	}
	d := &protocol.Review{TaskID: taskID, Decision: protocol.ReviewApproved, Reason: reason}
	if !approve {
		d.Decision = protocol.ReviewRejected
	}
	return rv.decide(ws, d, "the user", plan, now)
}

// decide applies review decision d, taken by who, to ws's task awaiting
// review: approved, it completes; rejected, it runs again with the reason,
// or fails once it was rejected more than maxRetries times.
func (rv *reviewer) decide(ws *workerState, d *protocol.Review, who string, plan *taskPlan, now time.Time) (change, error) {
	rv.flows.Decided(ws.w.TaskID, d)
	if d.Approved() {
		if err := ws.move(WorkerCompleted); err != nil {
			return change{}, err
		}
		var notes []string
		var c protocol.Completion
		if json.Unmarshal(ws.book.Report, &c) == nil {
			notes = c.Notes()
		}
		ws.book.Report = nil
		ws.book.Feedback = ""
		ws.w.Error = ""
		msg := "approved by " + who
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return ws.event(EventWorkerCompleted, msg).finished(ws.w.TaskID, true, notes...), nil
	}
	reason := strings.TrimSpace(d.Reason)
	if reason == "" {
		reason = "no reason given"
	}
	if err := ws.move(WorkerRejected); err != nil {
		return change{}, err
	}
	ws.book.Report = nil
	ws.book.Rejections++
	ws.w.Error = "rejected by " + who + ": " + reason
	ws.book.Feedback = prompts.Rejection(who, reason, d.RequiredChanges)
	out := ws.event(EventWorkerRejected, ws.w.Error)
	out.then = func() (change, error) {
		if ws.book.Rejections > rv.tmpl.Config.MaxRetries {
			return plan.fail(ws, fmt.Sprintf("rejected %s; last reason: %s", times(ws.book.Rejections), reason), now)
		}
		return plan.requeue(ws, ws.w.Error, false, true)
	}
	return out, nil
}

// verified takes the verification answer v. A pass, or a failure past the
// rounds allowed, completes the run with summary; otherwise its issues
// become the tasks of a new QA round, announced with round.
func (rv *reviewer) verified(v *protocol.Verification, runID string, plan *taskPlan) (tasks []store.Task, summary, round string) {
	if v.Status != "fail" || len(v.Issues) == 0 {
		return nil, v.Summary, ""
	}
	max := rv.tmpl.Phases.Verification.MaxRemediationRounds
	if rv.Remediation >= max {
		msg := fmt.Sprintf("Verification still fails after %s: %s. %s", countOf(rv.Remediation, "remediation round", "remediation rounds"),
			protocol.IssueList(v.Issues), v.Summary)
		if max == 0 {
			msg = fmt.Sprintf("Verification failed: %s. %s", protocol.IssueList(v.Issues), v.Summary)
		}
		return nil, msg, ""
	}
	rv.Remediation++
	for i, is := range v.Issues {
		t := tasklist.FromIssue(runID, rv.Remediation, i, is, plan.task(is.TaskID))
		t.Position = len(plan.tasks) + i
		tasks = append(tasks, t)
	}
	return tasks, "", fmt.Sprintf("Verification failed; remediation round %d of %d: %s.", rv.Remediation, max, countOf(len(tasks), "task", "tasks"))
}

// conflicted fails ws's task, whose worker reported a conflict (c), at now.
func (rv *reviewer) conflicted(ws *workerState, c *protocol.Completion, plan *taskPlan, now time.Time) (change, error) {
	ws.w.Conflicts = c.Conflicts()
	ws.w.Questions = nil
	return plan.fail(ws, "conflict: "+strings.Join(ws.w.Conflicts, "; "), now)
}

// partial decides on ws's report c, partly done: while the task has
// iterations left, it runs again (the reason returned) told what the last
// attempt left undone; "" when the report stands.
func (rv *reviewer) partial(ws *workerState, c *protocol.Completion) string {
	if ws.book.Partials+1 >= partialIterations {
		return ""
	}
	ws.book.Partials++
	left := strings.TrimSpace(c.Error)
	if left == "" {
		left = "(the report does not say)"
	}
	var fb strings.Builder
	fmt.Fprintf(&fb, "Your previous attempt at this task (iteration %d of at most %d) reported it partly done.\n",
		ws.book.Partials, partialIterations)
	if s := strings.TrimSpace(c.Summary); s != "" {
		fmt.Fprintf(&fb, "What it did: %s\n", s)
	}
	fmt.Fprintf(&fb, "What was left: %s\n", left)
	if len(ws.w.OutputFiles) > 0 {
		fmt.Fprintf(&fb, "Files it touched: %s\n", strings.Join(ws.w.OutputFiles, ", "))
	}
	fb.WriteString("Finish what was left, then report completion again.")
	ws.book.Feedback = fb.String()
	return fmt.Sprintf("partly done (iteration %d of %d): %s", ws.book.Partials, partialIterations, left)
}

// times is "once", "twice" or "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// foreign refuses a review answer about another task than the one the
// review was asked for (nil: the answer is about it, or is of another
// phase).
func (rv *reviewer) foreign(resp protocol.Response) error {
	d, ok := resp.Data.(*protocol.Review)
	if !ok || rv.Reviewing == "" || d.TaskID == "" || d.TaskID == rv.Reviewing {
		return nil
	}
	return fmt.Errorf("the review is about task %s, but Baton asked for the review of task %s; review task %s and answer with its id %q",
		d.TaskID, rv.Reviewing, rv.Reviewing, rv.Reviewing)
}
