// Package inbox collects, across all active runs, everything that waits for
// the user: task lists to review, permission prompts and questions of
// workers and of the main sessions, tasks the user reviews, tasks stopped
// on a conflict and failed verifications. The GUI shows it as the attention inbox and the tray
// counts it.
package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/sessions"
	"github.com/baton-app/baton/backend/store"
)

// Kind of an inbox item.
type Kind string

const (
	KindReview     Kind = "review"     // a task list waits for confirmation
	KindPermission Kind = "permission" // a worker waits on a tool permission
	KindQuestion   Kind = "question"   // a worker asks the user something
	KindTaskReview Kind = "taskReview" // a finished task waits for the user's review (seed 001)
	// KindVerification: the run's latest verification failed (seed 004);
	// remediation may be under way, or the run waits paused.
	KindVerification Kind = "verification"
	// KindLimit: a limit reset and the automatic resume is off: Resume now
	// (ResumeAfterLimit) goes on (issue 17).
	KindLimit Kind = "limit"
	// KindBudget: the run used up its budget and paused; raise it in the
	// run view.
	KindBudget Kind = "budget"
	// KindConflict: a worker stopped on a conflict (conflict_detected, seed
	// 003); its task failed and the tasks after it were skipped.
	KindConflict Kind = "conflict"
	// KindMergeConflict: merging a task into the run branch conflicts and
	// the merge task could not resolve it (worktree isolation).
	KindMergeConflict Kind = "mergeConflict"
)

// Item is one thing that waits for the user.
type Item struct {
	Kind    Kind   `json:"kind"`
	RunID   string `json:"runId"`
	RunName string `json:"runName"`
	// TaskID is empty for the run itself and its main session.
	TaskID string `json:"taskId,omitempty"`
	// Title says what waits, in a few words; Detail is the text to show.
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	// RequestID answers a permission or question.
	RequestID string `json:"requestId,omitempty"`
	// SessionID is set for a prompt of the run's main session, which is
	// answered through its run (RespondMainPermission), by request.
	SessionID string    `json:"sessionId,omitempty"`
	Since     time.Time `json:"since"`
	// A permission prompt's Key is the same for identical prompts (the
	// Inbox groups them); Summary says what the call does; Suggestions are
	// the rules "Allow for this run" offers, narrowest first.
	Key         string             `json:"key,omitempty"`
	Summary     string             `json:"summary,omitempty"`
	Suggestions []store.Suggestion `json:"suggestions,omitempty"`
}

// Runs is what the inbox reads: the engine.
type Runs interface {
	Active() []string
	Snapshot(ctx context.Context, runID string) (engine.Snapshot, error)
}

// Sessions is the session host, which the inbox asks for the prompts a
// run's main session waits on: the engine follows only the workers'.
type Sessions interface {
	Session(ctx context.Context, id session.ID) (session.Info, error)
}

// Collect returns every waiting item of the active runs, oldest first.
// host may be nil: the main sessions' prompts are left out. A main
// session the host cannot read now (reconnecting) is left out too; the
// next count tries again.
func Collect(ctx context.Context, runs Runs, host Sessions) ([]Item, error) {
	items, _, err := collect(ctx, runs, host)
	return items, err
}

// collect also reports whether an active run has a main session, whose
// prompts come without an engine event.
func collect(ctx context.Context, runs Runs, host Sessions) ([]Item, bool, error) {
	var items []Item
	mains := false
	for _, id := range runs.Active() {
		snap, err := runs.Snapshot(ctx, id)
		if errors.Is(err, engine.ErrUnknownRun) {
			continue // finished between Active and Snapshot
		}
		if err != nil {
			return nil, false, err
		}
		items = append(items, fromSnapshot(snap)...)
		if host != nil && snap.Run.MainSessionID != "" {
			mains = true
			items = append(items, mainPrompts(ctx, host, snap.Run)...)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Since.Before(items[j].Since) })
	if items == nil {
		items = []Item{}
	}
	return items, mains, nil
}

// mainPrompts are the permission prompts and questions the run's main session
// waits on. The host gives no time for a prompt; the session's last
// activity is when it stopped to ask.
func mainPrompts(ctx context.Context, host Sessions, run store.Run) []Item {
	info, err := host.Session(ctx, session.ID(run.MainSessionID))
	if err != nil || len(info.Pending) == 0 {
		return nil
	}
	since := info.LastActivityAt
	if since.IsZero() {
		since = run.UpdatedAt
	}
	name := runName(run)
	var out []Item
	for i, p := range sessions.Permissions(info.Pending) {
		it := Item{Kind: KindPermission, RunID: run.ID, RunName: name, RequestID: p.RequestID, SessionID: run.MainSessionID,
			Title: "The main session wants permission", Detail: p.Summary, Since: since}
		if p.Question != "" {
			it.Kind, it.Title, it.Detail = KindQuestion, "The main session asks you", p.Question
		} else {
			req := info.Pending[i]
			it.Key, it.Summary = permrules.Key(req.ToolName, req.Input), permrules.Summary(req.ToolName, req.Input)
			for _, s := range permrules.Suggest(permrules.Call{Tool: req.ToolName, Input: req.Input, Root: run.Cwd}) {
				it.Suggestions = append(it.Suggestions, store.Suggestion(s))
			}
		}
		out = append(out, it)
	}
	return out
}

// inFolder shortens the paths inside the run's folder in text to paths
// relative to it, as the worker cards show them.
func inFolder(text, cwd string) string {
	if cwd == "" {
		return text
	}
	return strings.ReplaceAll(text, strings.TrimRight(cwd, string(filepath.Separator))+string(filepath.Separator), "")
}

func fromSnapshot(s engine.Snapshot) []Item {
	name := runName(s.Run)
	var out []Item
	if s.Run.Status == engine.RunConfirming.String() {
		detail := s.Run.Message
		if detail == "" {
			detail = "Review the proposed tasks and confirm them to start the workers."
		}
		out = append(out, Item{Kind: KindReview, RunID: s.Run.ID, RunName: name, Title: "Tasks to review", Detail: detail, Since: s.Run.UpdatedAt})
	}
	if it, ok := failedVerification(s, name); ok {
		out = append(out, it)
	}
	if l := s.Run.Limits; l.ResumeDue && l.WaitingUntil != nil {
		out = append(out, Item{Kind: KindLimit, RunID: s.Run.ID, RunName: name, Title: "The limit has reset",
			Detail: "The run waited for a limit that has reset; resume it now.", Since: *l.WaitingUntil})
	}
	if l := s.Run.Limits; l.BudgetPaused && s.Run.Status == engine.RunPaused.String() {
		out = append(out, Item{Kind: KindBudget, RunID: s.Run.ID, RunName: name, Title: "The budget is used up",
			Detail: "The run paused at its budget; raise the budget in the run view to go on.", Since: s.Run.UpdatedAt})
	}
	if wt := s.Worktree; wt != nil && wt.Conflict != nil && wt.Conflict.ByUser {
		out = append(out, Item{Kind: KindMergeConflict, RunID: s.Run.ID, RunName: name, TaskID: wt.Conflict.TaskID,
			Title: "A merge conflict needs you", Since: s.Run.UpdatedAt,
			Detail: "Merging " + wt.Conflict.TaskID + " conflicts in " + strings.Join(wt.Conflict.Files, ", ") +
				". Resolve the files in " + wt.RunDir + ", then choose Resolved in the run, or leave the task's changes out."})
	}
	userReviews := ReviewerIsUser(s.Run.Template)
	titles := map[string]string{}
	for _, t := range s.Tasks {
		titles[t.ID] = t.Title
	}
	for _, w := range s.Workers {
		who := w.TaskID
		if t := titles[w.TaskID]; t != "" {
			who += " “" + strings.TrimSuffix(t, ".") + "”"
		}
		if len(w.Questions) > 0 {
			out = append(out, Item{Kind: KindQuestion, RunID: s.Run.ID, RunName: name, TaskID: w.TaskID,
				Title: who + " asks you", Detail: strings.Join(w.Questions, "\n"), Since: w.UpdatedAt})
		}
		if len(w.Conflicts) > 0 && w.Status == "failed" {
			out = append(out, Item{Kind: KindConflict, RunID: s.Run.ID, RunName: name, TaskID: w.TaskID,
				Title: who + " stopped on a conflict", Detail: inFolder(strings.Join(w.Conflicts, "\n"), s.Run.Cwd),
				Since: w.UpdatedAt})
		}
		if userReviews && w.Status == "awaiting_review" {
			out = append(out, Item{Kind: KindTaskReview, RunID: s.Run.ID, RunName: name, TaskID: w.TaskID,
				Title: who + " waits for your review", Detail: w.Summary, Since: w.UpdatedAt})
		}
		if w.Waiting == nil {
			continue
		}
		it := Item{Kind: KindPermission, RunID: s.Run.ID, RunName: name, TaskID: w.TaskID, RequestID: w.Waiting.RequestID, Since: w.UpdatedAt}
		perm := sessions.Permissions([]session.PermissionRequest{{RequestID: w.Waiting.RequestID, ToolName: w.Waiting.ToolName, Input: json.RawMessage(w.Waiting.Input)}})[0]
		if perm.Question != "" {
			it.Kind, it.Title, it.Detail = KindQuestion, who+" asks you", perm.Question
		} else {
			it.Title, it.Detail = who+" wants permission", inFolder(perm.Summary, s.Run.Cwd)
			it.Key, it.Summary, it.Suggestions = w.Waiting.Key, inFolder(w.Waiting.Summary, s.Run.Cwd), w.Waiting.Suggestions
		}
		out = append(out, it)
	}
	return out
}

// failedVerification is the item of a run whose latest verification failed:
// its remediation runs, or it waits (paused, or on a task) for the user.
func failedVerification(s engine.Snapshot, name string) (Item, bool) {
	var ans *store.PhaseAnswer
	for i := len(s.Answers) - 1; i >= 0; i-- {
		a := &s.Answers[i]
		if a.Phase == string(protocol.PhaseVerification) && (a.Status == "valid" || a.Status == "repaired") {
			ans = a
			break
		}
	}
	if ans == nil {
		return Item{}, false
	}
	var v protocol.Verification
	if json.Unmarshal(ans.Data, &v) != nil || v.Status != "fail" {
		return Item{}, false
	}
	var lines []string
	if sum := strings.TrimSpace(v.Summary); sum != "" {
		lines = append(lines, sum)
	}
	for _, is := range v.Issues {
		line := "- " + strings.TrimSpace(is.Description)
		if is.TaskID != "" {
			line += " (" + is.TaskID + ")"
		}
		lines = append(lines, line)
	}
	switch s.Run.Status {
	case engine.RunSpawning.String(), engine.RunRunning.String():
		lines = append(lines, "Remediation tasks are fixing it; open the run to follow them.")
	case engine.RunAggregating.String(), engine.RunVerifying.String():
		lines = append(lines, "The main session checks the result again.")
	case engine.RunPaused.String():
		lines = append(lines, "The run is paused: resume it to fix these issues.")
	}
	return Item{Kind: KindVerification, RunID: s.Run.ID, RunName: name, Title: "Verification failed",
		Detail: strings.Join(lines, "\n"), Since: ans.CreatedAt}, true
}

// ReviewerIsUser reports whether the run's template leaves task reviews to
// the user.
func ReviewerIsUser(tmpl json.RawMessage) bool {
	var t struct {
		Phases struct {
			Review struct {
				Enabled  bool   `json:"enabled"`
				Reviewer string `json:"reviewer"`
			} `json:"review"`
		} `json:"phases"`
	}
	if json.Unmarshal(tmpl, &t) != nil {
		return false
	}
	return t.Phases.Review.Enabled && t.Phases.Review.Reviewer == engine.ReviewerUser
}

func runName(r store.Run) string {
	if r.TemplateName == "" {
		return r.ID
	}
	return r.TemplateName + " — " + r.Request
}
