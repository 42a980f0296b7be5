package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// The delegation dialect of seed 003: a worker's attempt_completion with
// clarification_needed (status needs_input) waits for the user's answer,
// which Engine.Answer sends back to the worker's session; one with
// conflict_detected (status conflict) ends the task with its conflicts
// recorded, and the aggregation prompt lists them. A worker's TASK_JSON is
// the new_task object that delegates its task.

// Answer sends the user's answer to the questions of a worker that asked
// for clarification; the worker continues in the same session.
func (e *Engine) Answer(ctx context.Context, runID, taskID, text string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		return r.answerWorker(ctx, taskID, text)
	})
}

// askUser puts a worker in waiting for the answer to its questions.
func (r *runner) askUser(ctx context.Context, ws *workerState, questions []string) {
	ws.w.Questions = append([]string(nil), questions...)
	ws.w.CurrentAction = "waiting for an answer: " + strings.Join(questions, " ")
	// The report is taken: what the session says next answers anew.
	ws.book.reset(ws.book.Cursor)
	ws.book.Reprompts = 0
	_ = r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerQuestion, ws, strings.Join(questions, "\n")))
}

func (r *runner) answerWorker(ctx context.Context, taskID, text string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if len(ws.w.Questions) == 0 || ws.status != WorkerRunning {
		return fmt.Errorf("worker %s is %s and has no open question: %w", taskID, ws.status, ErrIllegalTransition)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("the answer to %s is empty: %w", taskID, ErrBadRequest)
	}
	msg := "The answer to your questions:\n" + strings.TrimSpace(text) +
		"\n\nContinue the task with this answer and report completion as before."
	id := SessionID(ws.w.SessionID)
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	if err := r.e.host.Send(hctx, id, msg); err != nil {
		return fmt.Errorf("send the answer to %s: %w", taskID, err)
	}
	// Everything read so far was before the answer.
	ws.book.reset(ws.book.Cursor)
	ws.w.Questions = nil
	ws.w.CurrentAction = "answer received"
	now := r.e.now()
	ws.activity = now
	ws.w.LastActivityAt = &now
	r.markDirty(id, NoticeMessage)
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerAnswered, ws, text))
}

// conflicts lists a conflict report's issues as sentences.
func conflicts(c *protocol.Completion) []string {
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

// delegation reports whether the template speaks the delegation dialect of
// seed 003 (new_task plans, attempt_completion reports).
func (r *runner) delegation() bool {
	return r.tmpl.Prompts.ResponseFormat.Dialect == "delegation"
}

// reprompt is the follow-up for a failed answer, in the shape the template
// asked for.
func (r *runner) reprompt(f protocol.Failure, phase protocol.Phase) string {
	if r.delegation() {
		return r.parser.BuildDelegationReprompt(f, phase)
	}
	return r.parser.BuildReprompt(f, phase)
}

// workerValues are the prompt variables of one task for its worker or its
// reviewer: in the delegation dialect TASK_JSON is the task's new_task.
func (r *runner) workerValues(t *store.Task) map[string]any {
	v := taskValues(t)
	if r.delegation() {
		v[template.VarTaskJSON] = newTaskJSON(t)
	}
	return v
}

// newTask is a seed 003 new_task object, in the order of the seed.
type newTask struct {
	TaskID              string              `json:"taskId"`
	ParentTaskID        string              `json:"parentTaskId,omitempty"`
	DelegatedToMode     string              `json:"delegatedToMode,omitempty"`
	Objective           string              `json:"objective"`
	Context             string              `json:"context,omitempty"`
	Inputs              []protocol.Artifact `json:"inputs"`
	ExpectedOutputs     []protocol.Artifact `json:"expectedOutputs"`
	ConstraintsAndRules []string            `json:"constraintsAndRules"`
	AcceptanceCriteria  []string            `json:"acceptanceCriteria"`
	Priority            string              `json:"priority"`
	Dependencies        []string            `json:"dependencies"`
	DeadlineHint        string              `json:"deadlineHint,omitempty"`
}

// newTaskJSON writes a task as the new_task that delegates it: what the
// planner wrote (mode, context, constraints, acceptance criteria, expected
// outputs), with the stored fields, which the user may have edited, over it.
func newTaskJSON(t *store.Task) string {
	var def protocol.Task
	_ = json.Unmarshal(t.Definition, &def)
	paths := func(ps []string) []protocol.Artifact {
		out := []protocol.Artifact{}
		for _, p := range ps {
			out = append(out, protocol.Artifact{Path: p})
		}
		return out
	}
	objective := t.Description
	if strings.TrimSpace(objective) == "" {
		objective = t.Title
	}
	// high, medium and low were read as 8, 5 and 2.
	priority := "medium"
	switch {
	case t.Priority >= 7:
		priority = "high"
	case t.Priority <= 3:
		priority = "low"
	}
	b, _ := json.Marshal(newTask{
		TaskID: t.ID, ParentTaskID: def.ParentID, DelegatedToMode: def.Mode, Objective: objective, Context: def.Context,
		Inputs: paths(t.Scope), ExpectedOutputs: paths(def.ExpectedOutputs),
		ConstraintsAndRules: nonNil(def.Constraints), AcceptanceCriteria: nonNil(def.AcceptanceCriteria),
		Priority: priority, Dependencies: nonNil(t.Dependencies), DeadlineHint: def.Deadline,
	})
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
