package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/tasklist"
	"github.com/baton-app/baton/backend/template"
)

// The main session's answers as the run takes them: stored, then a plan to
// confirm, the workers' outcome aggregated and verified, the run's end.

// answerRecord is a valid (or repaired) answer as stored.
func answerRecord(resp protocol.Response) (store.PhaseAnswer, error) {
	data, err := json.Marshal(resp.Data)
	if err != nil {
		return store.PhaseAnswer{}, fmt.Errorf("the %s answer: %w", resp.Phase, err)
	}
	a := store.PhaseAnswer{Phase: string(resp.Phase), Status: "valid", Data: data}
	if resp.Repaired() {
		a.Status = "repaired"
	}
	for _, rp := range resp.Repairs {
		a.Repairs = append(a.Repairs, rp.Description())
	}
	for _, w := range resp.Warnings {
		a.Errors = append(a.Errors, "warning: "+w.String())
	}
	return a, nil
}

// answer moves the run on with the main session's answer.
func (r *runner) answer(ctx context.Context, resp protocol.Response) error {
	ans, err := answerRecord(resp)
	if err != nil {
		return r.ledger.Refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	ans.Attempt = r.main.Reprompts
	r.main.Answered()
	answered := change{Change: store.Change{Answers: []store.PhaseAnswer{ans}}}
	switch data := resp.Data.(type) {
	case *protocol.Analysis:
		if err := r.enter(RunPlanning, PhaseTaskPlanning, &r.run); err != nil {
			return err
		}
		if err := r.apply(ctx, answered.with(nil, newEvent(EventAnalysisComplete, nil, data.Summary), newEvent(EventPhaseChanged, nil, ""))); err != nil {
			return err
		}
		return r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList, nil)
	case *protocol.TaskList:
		return r.planned(ctx, answered, data)
	case *protocol.Aggregation:
		if r.tmpl.Phases.Verification.Enabled {
			if err := r.enter(RunVerifying, PhaseVerification, &r.run); err != nil {
				return err
			}
			if err := r.apply(ctx, answered.with(nil, newEvent(EventPhaseChanged, nil, data.Summary))); err != nil {
				return err
			}
			return r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification, nil)
		}
		return r.complete(ctx, answered, data.Summary)
	case *protocol.Verification:
		// The checks Baton ran count over what the answer says: a check
		// the run broke is an issue of the verification.
		stored, err := r.e.store.Checks(context.WithoutCancel(ctx), r.run.ID)
		if err != nil {
			r.log.Warn("read the checks for the verification", "err", err)
		}
		tasks, summary, round := r.review.verified(checkrounds.Verified(data, stored), r.run.ID, &r.plan)
		if tasks == nil {
			return r.complete(ctx, answered, summary)
		}
		r.flows.Planned(tasks)
		if err := r.enter(RunRunning, PhaseWorkerExecution, &r.run); err != nil {
			return err
		}
		ws := r.plan.add(r.run.ID, tasks)
		answered.Tasks = tasks
		ev := newEvent(EventRemediation, nil, round)
		ev.P.Tasks = tasks
		return r.apply(ctx, answered.with(ws, ev, newEvent(EventPhaseChanged, nil, "")).say(round))
	case *protocol.Review:
		ws := r.review.answered(data, &r.plan)
		if ws == nil {
			// Decided meanwhile (by the user): keep the answer, change nothing.
			return r.apply(ctx, answered)
		}
		decided, err := r.review.decide(ws, data, "the reviewer", &r.plan, r.e.now())
		if err != nil {
			return err
		}
		return r.apply(ctx, answered.and(decided))
	default:
		return r.fail(ctx, fmt.Sprintf("unexpected answer of phase %s", resp.Phase))
	}
}

// planned takes the task list: the run waits for its confirmation (or
// confirms it itself with config.autoConfirm).
func (r *runner) planned(ctx context.Context, c change, data *protocol.TaskList) error {
	tasks := tasklist.FromPlan(r.run.ID, data.Tasks)
	checkErr := CheckTasks(tasks, r.tmpl.Config.MaxTasks)
	tasks = tasklist.SetAsideDuplicates(tasks)
	skillNote := r.flows.Planned(tasks)
	if err := r.move(RunConfirming); err != nil {
		return err
	}
	r.plan.tasks = tasks
	r.plan.workers = map[string]*workerState{}
	c.Tasks, c.ReplaceTasks = tasks, true
	ready := newEvent(EventTasksReady, nil, "")
	ready.P.Tasks, ready.P.Groups = tasks, ParallelGroups(tasks)
	c = c.with(nil, ready, newEvent(EventPhaseChanged, nil, "")).say(skillNote)
	var tle *TaskListError
	if errors.As(checkErr, &tle) {
		msg := strings.TrimSpace(checkErr.Error() + "\n" + skillNote)
		ev := newEvent(EventTasksInvalid, nil, msg)
		ev.P.Problems = tle.Problems
		c = c.with(nil, ev).say(msg)
	}
	if err := r.apply(ctx, c); err != nil {
		return err
	}
	if checkErr == nil && r.tmpl.Config.AutoConfirm {
		if err := r.confirm(ctx, Modifications{}); err != nil {
			if r.ledger.Broken() != nil {
				return err
			}
			r.log.Warn("auto-confirm", "err", err)
		}
	}
	return nil
}

// complete ends the run that reached its end with c and summary. Its
// outcome is read from the final report: completed only when nothing is
// left open (backend/report).
func (r *runner) complete(ctx context.Context, c change, summary string) error {
	now := r.e.now()
	r.main.Answered()
	if err := r.sync(); err != nil {
		return r.ledger.Refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	rep := finalReport(ctx, r.e.store, r.log, r.run, &r.plan, c.Answers, r.iso.ResultHolds(ctx, r.run.Cwd, r.log))
	answers, err := r.e.store.Answers(context.WithoutCancel(ctx), r.run.ID)
	if err != nil {
		r.log.Warn("outcome: read the answers", "err", err)
	}
	outcome, issues := report.Outcome(rep, append(answers, c.Answers...))
	status, err := runstatus.ParseRun(outcome)
	if err != nil {
		return err
	}
	if err := r.move(status); err != nil {
		return err
	}
	r.run.CompletedAt = &now
	r.run.Issues = issues
	if err := r.sync(); err != nil {
		return r.ledger.Refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	msg := summary
	if byUser := rep.Tasks.SkippedByUser; r.run.TasksFailed+r.run.TasksSkipped-byUser > 0 {
		msg = fmt.Sprintf("%d of %s completed, %d failed, %d skipped. %s", r.run.TasksCompleted,
			countOf(r.run.TasksTotal, "task", "tasks"), r.run.TasksFailed, r.run.TasksSkipped, summary)
	} else if byUser > 0 {
		msg = fmt.Sprintf("%d of %s completed; %s %s", r.run.TasksCompleted, countOf(r.run.TasksTotal-byUser, "task", "tasks"), strings.Join(rep.Notes, " "), summary)
	}
	if note := r.flows.Completed(); note != "" {
		msg += " " + note
	}
	r.run.Message = strings.TrimSpace(msg)
	rep.Status, rep.Message, rep.FinishedAt, rep.Issues = r.run.Status, r.run.Message, r.run.CompletedAt, issues
	c.final, c.report = true, &rep
	return r.apply(ctx, c.with(nil, newEvent(EventCompleted, nil, r.run.Message)))
}

// afterWorkers moves the run to aggregation when every task is done.
func (r *runner) afterWorkers(ctx context.Context) error {
	if (r.status != RunSpawning && r.status != RunRunning) || r.inflight > 0 || !r.plan.allDone() || (r.iso != nil && !r.iso.Settled(r.plan.tasks, r.plan.completed)) {
		return nil
	}
	if r.checks.IsRunning() {
		return nil // the checks of the result run
	}
	if r.checks.AfterDue(r.review.Remediation) {
		return r.startChecks(ctx, r.checks.Rounds+1)
	}
	if err := r.flushProgress(ctx); err != nil {
		return err
	}
	next, phase, tp, want := RunVerifying, PhaseVerification, template.PhaseVerification, protocol.PhaseVerification
	switch {
	case r.tmpl.Phases.Aggregation.Enabled:
		next, phase, tp, want = RunAggregating, PhaseAggregation, template.PhaseAggregation, protocol.PhaseAggregation
	case !r.tmpl.Phases.Verification.Enabled:
		return r.complete(ctx, change{}, "")
	}
	if err := r.enter(next, phase, &r.run); err != nil {
		return err
	}
	if err := r.apply(ctx, change{}.with(nil, newEvent(EventPhaseChanged, nil, ""))); err != nil {
		return err
	}
	return r.ask(ctx, tp, want, nil)
}
