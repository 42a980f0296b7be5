package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// The final report of seed 004 (phase 5): what a finished run did — its
// tasks, how many iterations it took, the decisions taken on the way, the
// files written and what is known to be missing. It is built once, when the
// run reaches completed, cancelled or error, and stored with the change that
// finishes the run.

// ErrNotFinished: a run that has not finished has no final report.
var ErrNotFinished = errors.New("run has not finished")

// FinalReport is the stored summary of a finished run.
type FinalReport struct {
	RunID  string `json:"runId"`
	Status string `json:"status"`
	// Message is the run's closing message; Error why it ended in error.
	Message    string     `json:"message,omitempty"`
	Error      string     `json:"error,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Tasks      TaskCounts `json:"tasks"`
	Completed  []TaskRef  `json:"completed"`
	Failed     []TaskRef  `json:"failed"`
	Skipped    []TaskRef  `json:"skipped"`
	// NotRun are tasks that never finished: the run ended before them.
	NotRun     []TaskRef  `json:"notRun"`
	Iterations Iterations `json:"iterations"`
	Decisions  []Decision `json:"decisions"`
	// Files is the union of the files the workers reported, sorted.
	Files       []ReportFile `json:"files"`
	Limitations []Limitation `json:"limitations"`
	// Issues are why the run is completed_with_issues or failed (the run's
	// own Issues); empty for every other status.
	Issues []string `json:"issues"`
	// Cost is what the run cost and used, and the limits it waited for.
	Cost ReportCost `json:"cost"`
}

// ReportCost is a run's cost in the final report.
type ReportCost struct {
	USD          float64 `json:"usd"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	// Label is the cost as written, simulated or estimated said.
	Label string `json:"label"`
	// BudgetUSD and BudgetTokens are the run's budget (0: none).
	BudgetUSD    float64 `json:"budgetUsd,omitempty"`
	BudgetTokens int64   `json:"budgetTokens,omitempty"`
	// LimitWaits counts the times the run waited for a rate, overload or
	// usage limit.
	LimitWaits int `json:"limitWaits"`
}

// TaskCounts counts the run's tasks by outcome.
type TaskCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	NotRun    int `json:"notRun"`
}

// TaskRef is one task in the report.
type TaskRef struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
	// Reason says why a task failed, was skipped or is only partly done.
	Reason  string `json:"reason,omitempty"`
	Retries int    `json:"retries"`
	// Unstructured: completion was only guessed from the worker's words.
	Unstructured bool `json:"unstructured,omitempty"`
	// CostUSD is what the task's worker cost.
	CostUSD float64 `json:"costUsd,omitempty"`
}

// Iterations counts the rounds a run went through beyond the first try.
type Iterations struct {
	// Total is the QA remediation rounds plus the worker retries (a task
	// sent back by its reviewer is retried, so it counts there).
	Total       int                `json:"total"`
	Remediation []RemediationRound `json:"remediation"`
	Retries     []Attempt          `json:"retries"`
	Rejections  []Attempt          `json:"rejections"`
	// Reprompts counts the stricter re-prompts after missing or broken
	// answers, of the main session and of the workers.
	Reprompts int `json:"reprompts"`
}

// RemediationRound is one QA round that turned verification issues into
// tasks.
type RemediationRound struct {
	Round   int      `json:"round"`
	Message string   `json:"message,omitempty"`
	Tasks   []string `json:"tasks"`
}

// Attempt is one retry or rejection of a task.
type Attempt struct {
	TaskID string `json:"taskId"`
	// Reason is empty for a retry the user asked for.
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// Kinds of decisions.
const (
	DecisionApproved = "approved"
	DecisionRejected = "rejected"
	DecisionAnswer   = "answer"
	DecisionConflict = "conflict"
)

// Decision is one decision taken during the run: a review verdict, an
// answer to a worker's question, or a conflict and how it was resolved.
type Decision struct {
	Kind   string `json:"kind"`
	TaskID string `json:"taskId,omitempty"`
	// By is who decided: "the user", "the reviewer", "the build check",
	// "the aggregation".
	By string `json:"by,omitempty"`
	// Text is the reason, the answer, or the conflict.
	Text string `json:"text"`
	// Question is what the worker asked (answers only).
	Question string `json:"question,omitempty"`
	// Resolution is how a conflict was resolved ("" when it was not).
	Resolution string     `json:"resolution,omitempty"`
	Tasks      []string   `json:"tasks,omitempty"`
	At         *time.Time `json:"at,omitempty"`
}

// ReportFile is one file written during the run and the tasks that wrote it.
type ReportFile struct {
	Path  string   `json:"path"`
	Tasks []string `json:"tasks"`
}

// Kinds of known limitations.
const (
	LimitRun          = "run"
	LimitFailed       = "failed"
	LimitSkipped      = "skipped"
	LimitNotRun       = "notRun"
	LimitPartial      = "partial"
	LimitVerification = "verification"
	LimitConflict     = "conflict" // unresolved
	LimitUnstructured = "unstructured"
	LimitQuestion     = "question" // asked and never answered
)

// Limitation is something the run did not achieve or could not check.
type Limitation struct {
	Kind     string   `json:"kind"`
	TaskID   string   `json:"taskId,omitempty"`
	Text     string   `json:"text"`
	Severity string   `json:"severity,omitempty"`
	Files    []string `json:"files,omitempty"`
}

// BuildFinalReport builds the final report of a run from its state and its
// stored events (oldest first).
func BuildFinalReport(s Snapshot, events []store.Event) FinalReport {
	r := s.Run
	rep := FinalReport{RunID: r.ID, Status: r.Status, Message: r.Message, Error: r.Error, FinishedAt: r.CompletedAt,
		Completed: []TaskRef{}, Failed: []TaskRef{}, Skipped: []TaskRef{}, NotRun: []TaskRef{},
		Iterations: Iterations{Remediation: []RemediationRound{}, Retries: []Attempt{}, Rejections: []Attempt{}},
		Decisions:  []Decision{}, Files: []ReportFile{}, Limitations: []Limitation{}, Issues: []string{},
		// Rounded: the run's cost is a sum whose order varies.
		Cost: ReportCost{USD: math.Round(r.CostUSD*1e9) / 1e9, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, Label: CostLabel(r.CostUSD, r.Limits),
			BudgetUSD: r.Limits.BudgetUSD, BudgetTokens: r.Limits.BudgetTokens}}
	for _, e := range events {
		if e.Name == EventLimitWaiting {
			rep.Cost.LimitWaits++
		}
	}
	if len(r.Issues) > 0 {
		rep.Issues = r.Issues
	}
	switch r.Status {
	case RunError.String():
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitRun, Text: "The run stopped with an error: " + r.Error})
	case RunCancelled.String():
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitRun, Text: "The run was cancelled before it finished."})
	}

	workers := map[string]store.Worker{}
	for _, w := range s.Workers {
		workers[w.TaskID] = w
	}
	files := map[string][]string{}
	for _, t := range s.Tasks {
		w, ok := workers[t.ID]
		ref := TaskRef{ID: t.ID, Title: t.Title, Status: "not started"}
		if ok {
			ref.Status, ref.Reason, ref.Retries, ref.Unstructured = w.Status, w.Error, w.RetryCount, w.Unstructured
			ref.CostUSD = w.CostUSD
			for _, f := range w.OutputFiles {
				files[f] = append(files[f], t.ID)
			}
		}
		switch {
		case ok && w.Skipped:
			ref.Status = "skipped"
			rep.Skipped = append(rep.Skipped, ref)
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitSkipped, TaskID: t.ID,
				Text: orDefault(w.Error, "skipped")})
		case !ok && t.Skipped:
			ref.Status, ref.Reason = "skipped", "skipped by the user"
			rep.Skipped = append(rep.Skipped, ref)
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitSkipped, TaskID: t.ID, Text: ref.Reason})
		case ok && w.Status == WorkerCompleted.String():
			rep.Completed = append(rep.Completed, ref)
			if strings.HasPrefix(w.Error, "partly done") {
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitPartial, TaskID: t.ID, Text: w.Error})
			}
			if w.Unstructured {
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitUnstructured, TaskID: t.ID,
					Text: "completed without a structured report; its result was guessed from the worker's words"})
			}
		case ok && (w.Status == WorkerFailed.String() || w.Status == WorkerCancelled.String() || w.Status == WorkerTimeout.String()):
			rep.Failed = append(rep.Failed, ref)
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitFailed, TaskID: t.ID,
				Text: orDefault(w.Error, "the task "+w.Status+" without a reason")})
		default:
			ref.Reason = ""
			rep.NotRun = append(rep.NotRun, ref)
			if ok { // a confirmed task; proposed ones that never ran are only listed
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitNotRun, TaskID: t.ID,
					Text: "the run ended before the task finished (" + ref.Status + ")"})
			}
		}
		if ok && len(w.Questions) > 0 {
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitQuestion, TaskID: t.ID,
				Text: strings.Join(w.Questions, " ")})
		}
	}
	rep.Tasks = TaskCounts{Total: len(s.Tasks), Completed: len(rep.Completed), Failed: len(rep.Failed),
		Skipped: len(rep.Skipped), NotRun: len(rep.NotRun)}
	for _, f := range sortedKeys(files) {
		rep.Files = append(rep.Files, ReportFile{Path: f, Tasks: files[f]})
	}

	rep.eventsInto(events)
	rep.answersInto(s)
	// Conflicts a worker reported stand unresolved when no aggregation
	// answer took them up.
	if latestData[protocol.Aggregation](s.Answers, protocol.PhaseAggregation) == nil {
		for _, t := range s.Tasks {
			for _, c := range workers[t.ID].Conflicts {
				rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionConflict, TaskID: t.ID, By: "task " + t.ID,
					Text: c, Tasks: []string{t.ID}})
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitConflict, TaskID: t.ID, Text: c})
			}
		}
	}
	rep.Iterations.Total = len(rep.Iterations.Remediation) + len(rep.Iterations.Retries)
	return rep
}

// eventsInto reads review verdicts, answers, retries and QA rounds from the
// run's events.
func (rep *FinalReport) eventsInto(events []store.Event) {
	asked := map[string]string{} // task → its open question
	for _, e := range events {
		var p Payload
		if len(e.Payload) > 0 {
			_ = json.Unmarshal(e.Payload, &p)
		}
		task := e.TaskID
		if task == "" {
			task = p.TaskID
		}
		at := e.CreatedAt
		switch e.Name {
		case EventWorkerCompleted:
			if who, reason, ok := verdict(p.Message, "approved by "); ok {
				rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionApproved, TaskID: task, By: who, Text: reason, At: &at})
			}
		case EventWorkerRejected:
			who, reason, ok := verdict(p.Message, "rejected by ")
			if !ok {
				reason = p.Message
			}
			rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionRejected, TaskID: task, By: who, Text: reason, At: &at})
			rep.Iterations.Rejections = append(rep.Iterations.Rejections, Attempt{TaskID: task, Reason: reason, At: at})
		case EventWorkerQuestion:
			asked[task] = p.Message
		case EventWorkerAnswered:
			rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionAnswer, TaskID: task, By: "the user",
				Question: asked[task], Text: p.Message, At: &at})
			delete(asked, task)
		case EventWorkerRetrying:
			rep.Iterations.Retries = append(rep.Iterations.Retries, Attempt{TaskID: task, Reason: p.Message, At: at})
		case EventWorkerReprompted, EventReprompted:
			rep.Iterations.Reprompts++
		case EventRemediation:
			round := RemediationRound{Round: len(rep.Iterations.Remediation) + 1, Message: p.Message, Tasks: []string{}}
			for _, t := range p.Tasks {
				round.Tasks = append(round.Tasks, t.ID)
			}
			rep.Iterations.Remediation = append(rep.Iterations.Remediation, round)
		}
	}
}

// answersInto takes the conflicts of the latest aggregation and the issues
// of the latest verification.
func (rep *FinalReport) answersInto(s Snapshot) {
	if agg := latestData[protocol.Aggregation](s.Answers, protocol.PhaseAggregation); agg != nil {
		for _, c := range agg.Conflicts {
			text := strings.TrimSpace(c.Description)
			if c.Type != "" && c.Type != "conflict" {
				text = c.Type + ": " + text
			}
			rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionConflict, By: "the aggregation", Text: text,
				Resolution: strings.TrimSpace(c.Resolution), Tasks: c.Tasks})
			if ConflictOpen(c.Resolution) {
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitConflict, Text: text,
					Files: c.Files})
			}
		}
	}
	if v := latestData[protocol.Verification](s.Answers, protocol.PhaseVerification); v != nil {
		for _, is := range v.Issues {
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitVerification, TaskID: is.TaskID,
				Text: strings.TrimSpace(is.Description), Severity: is.Severity, Files: is.Files})
		}
	}
}

// latestData decodes the newest usable answer of a phase (nil when none).
func latestData[T any](answers []store.PhaseAnswer, phase protocol.Phase) *T {
	for i := len(answers) - 1; i >= 0; i-- {
		a := answers[i]
		if a.Phase != string(phase) || (a.Status != "valid" && a.Status != "repaired") {
			continue
		}
		var d T
		if json.Unmarshal(a.Data, &d) == nil {
			return &d
		}
	}
	return nil
}

// verdict splits "approved by the reviewer: looks good" into who and why.
func verdict(msg, prefix string) (who, reason string, ok bool) {
	rest, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return "", "", false
	}
	who, reason, _ = strings.Cut(rest, ": ")
	return who, reason, true
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// allEvents reads every stored event of a run, oldest first.
func allEvents(ctx context.Context, st *store.Store, runID string) ([]store.Event, error) {
	var out []store.Event
	var after int64
	for {
		page, err := st.Events(ctx, runID, after, 10000)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 10000 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// FinalReport returns the final report stored when run runID finished. A
// run that finished before Baton stored final reports gets one built from
// its history; a run that has not finished gets ErrNotFinished.
func (e *Engine) FinalReport(ctx context.Context, runID string) (FinalReport, error) {
	raw, err := e.store.FinalReport(ctx, runID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return FinalReport{}, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	case errors.Is(err, store.ErrNoReport):
		snap, err := e.storedSnapshot(ctx, runID)
		if err != nil {
			return FinalReport{}, err
		}
		if !store.Finished(snap.Run.Status) {
			return FinalReport{}, fmt.Errorf("run %s is %s: %w", runID, snap.Run.Status, ErrNotFinished)
		}
		events, err := allEvents(ctx, e.store, runID)
		if err != nil {
			return FinalReport{}, fmt.Errorf("final report of %s: %w", runID, err)
		}
		return BuildFinalReport(snap, events), nil
	case err != nil:
		return FinalReport{}, fmt.Errorf("final report of %s: %w", runID, err)
	}
	var rep FinalReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return FinalReport{}, fmt.Errorf("final report of %s: %w", runID, err)
	}
	return rep, nil
}

// finalReport builds the report of the run that is finishing into the
// change that finishes it: the state in memory, the answers stored and
// those of this change, and the stored events.
func (r *runner) finalReport(ctx context.Context, c *store.Change) {
	r.storeReport(c, r.buildReport(ctx, c))
}

// storeReport puts rep into the change that finishes the run.
func (r *runner) storeReport(c *store.Change, rep FinalReport) {
	var err error
	c.FinalReport, err = json.Marshal(rep)
	if err != nil {
		r.log().Warn("final report", "err", err)
		c.FinalReport = nil
	}
}

// buildReport builds the report of the run as it is in memory, with the
// answers stored and those of change c.
func (r *runner) buildReport(ctx context.Context, c *store.Change) FinalReport {
	ctx = context.WithoutCancel(ctx)
	r.sync()
	snap := Snapshot{Run: r.run, Tasks: r.plan.tasks}
	for _, ws := range r.plan.inOrder() {
		snap.Workers = append(snap.Workers, ws.w)
	}
	answers, err := r.e.store.Answers(ctx, r.run.ID)
	if err != nil {
		r.log().Warn("final report: read the answers", "err", err)
	}
	snap.Answers = append(answers, c.Answers...)
	events, err := allEvents(ctx, r.e.store, r.run.ID)
	if err != nil {
		r.log().Warn("final report: read the events", "err", err)
	}
	return BuildFinalReport(snap, events)
}
