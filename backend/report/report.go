// Package report is a finished run's final report (seed 004, phase 5):
// what the run did — its tasks, how many iterations it took, the decisions
// taken on the way, the files written, what it cost and what is known to be
// missing — its outcome (completed only when nothing is left open), and the
// Markdown document a run is exported as. The engine builds the report
// once, when the run finishes, from its rows and the facts its events
// record; views and the terminal read it back.
package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/pricing"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// The statuses the report reads, as the engine names them (backend/store
// lists every status; the tests hold these to that list).
const (
	runError        = "error"
	runCancelled    = "cancelled"
	workerCompleted = "completed"
	workerFailed    = "failed"
	workerCancelled = "cancelled"
	workerTimeout   = "timeout"
)

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
	// Notes are facts worth saying that are no issue, such as the tasks
	// the user skipped ("1 task skipped by you: t3.").
	Notes     []string   `json:"notes"`
	Decisions []Decision `json:"decisions"`
	// Files is the union of the files the workers reported, sorted: only
	// those the run's result holds when Baton could look (KeepPresent).
	Files []File `json:"files"`
	// Absent are files a worker reported that the result does not hold
	// (not merged, a branch that is gone, never written).
	Absent      []File       `json:"absent,omitempty"`
	Limitations []Limitation `json:"limitations"`
	// Issues are why the run is completed_with_issues or failed (the run's
	// own Issues); empty for every other status.
	Issues []string `json:"issues"`
	// Cost is what the run cost and used, and the limits it waited for.
	Cost Cost `json:"cost"`
	// Checks are the project's checks Baton ran itself (nil: the run did
	// not check, it was made before Baton did).
	Checks *Checks `json:"checks,omitempty"`
}

// Cost is a run's cost in the final report.
type Cost struct {
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
	// SkippedByUser counts the skipped tasks the user skipped (in
	// Skipped too); they are no issue.
	SkippedByUser int `json:"skippedByUser"`
	NotRun        int `json:"notRun"`
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
	// ByUser: a skipped task the user skipped (not a failure).
	ByUser bool `json:"byUser,omitempty"`
}

// ReasonSkippedByUser is the reason of a task the user skipped in review:
// it is no failure and no issue of the run.
const ReasonSkippedByUser = "skipped by the user"

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

// File is one file written during the run and the tasks that wrote it.
type File struct {
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
	// LimitOutputs: a task declared outputs it never wrote.
	LimitOutputs = "outputs"
	// LimitScope: a task changed files outside its scope (a warning).
	LimitScope = "scope"
)

// Limitation is something the run did not achieve or could not check.
type Limitation struct {
	Kind     string   `json:"kind"`
	TaskID   string   `json:"taskId,omitempty"`
	Text     string   `json:"text"`
	Severity string   `json:"severity,omitempty"`
	Files    []string `json:"files,omitempty"`
}

// Build builds the final report of a run from its rows (its answers oldest
// first) and what its history says (oldest first).
func Build(r store.Run, tasks []store.Task, workers []store.Worker, answers []store.PhaseAnswer, history []Fact) FinalReport {
	rep := FinalReport{RunID: r.ID, Status: r.Status, Message: r.Message, Error: r.Error, FinishedAt: r.CompletedAt,
		Completed: []TaskRef{}, Failed: []TaskRef{}, Skipped: []TaskRef{}, NotRun: []TaskRef{},
		Iterations: Iterations{Remediation: []RemediationRound{}, Retries: []Attempt{}, Rejections: []Attempt{}},
		Decisions:  []Decision{}, Files: []File{}, Limitations: []Limitation{}, Issues: []string{}, Notes: []string{},
		// Rounded: the run's cost is a sum whose order varies.
		Cost: Cost{USD: math.Round(r.CostUSD*1e9) / 1e9, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, Label: CostLabel(r.CostUSD, r.Limits),
			BudgetUSD: r.Limits.BudgetUSD, BudgetTokens: r.Limits.BudgetTokens}}
	if len(r.Issues) > 0 {
		rep.Issues = r.Issues
	}
	switch r.Status {
	case runError:
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitRun, Text: "The run stopped with an error: " + r.Error})
	case runCancelled:
		rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitRun, Text: "The run was cancelled before it finished."})
	}

	byTask := map[string]store.Worker{}
	for _, w := range workers {
		byTask[w.TaskID] = w
	}
	files := map[string][]string{}
	var byUser []string
	for _, t := range tasks {
		w, ok := byTask[t.ID]
		ref := TaskRef{ID: t.ID, Title: t.Title, Status: "not started"}
		if ok {
			ref.Status, ref.Reason, ref.Retries, ref.Unstructured = w.Status, w.Error, w.RetryCount, w.Unstructured
			ref.CostUSD = w.CostUSD
			for _, f := range w.OutputFiles {
				files[f] = append(files[f], t.ID)
			}
		}
		switch {
		case ok && w.Skipped || !ok && t.Skipped:
			ref.Status = "skipped"
			if !ok {
				ref.Reason = ReasonSkippedByUser
			}
			ref.ByUser = ref.Reason == ReasonSkippedByUser
			rep.Skipped = append(rep.Skipped, ref)
			if ref.ByUser {
				byUser = append(byUser, t.ID)
			} else {
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitSkipped, TaskID: t.ID,
					Text: orDefault(w.Error, "skipped")})
			}
		case ok && w.Status == workerCompleted:
			rep.Completed = append(rep.Completed, ref)
			if strings.HasPrefix(w.Error, "partly done") {
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitPartial, TaskID: t.ID, Text: w.Error})
			}
			if w.Unstructured {
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitUnstructured, TaskID: t.ID,
					Text: "completed without a structured report; its result was guessed from the worker's words"})
			}
		case ok && (w.Status == workerFailed || w.Status == workerCancelled || w.Status == workerTimeout):
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
		if ok && len(w.MissingOutputs) > 0 && w.Status == workerCompleted {
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitOutputs, TaskID: t.ID, Severity: "high",
				Text:  "it reported success, but Baton does not find these declared outputs written: " + strings.Join(w.MissingOutputs, ", "),
				Files: w.MissingOutputs})
		}
		if ok && len(w.OutOfScope) > 0 {
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitScope, TaskID: t.ID, Severity: "warning",
				Text: "it changed files outside its scope: " + strings.Join(w.OutOfScope, ", "), Files: w.OutOfScope})
		}
		if ok && len(w.Questions) > 0 {
			rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitQuestion, TaskID: t.ID,
				Text: strings.Join(w.Questions, " ")})
		}
	}
	rep.Tasks = TaskCounts{Total: len(tasks), Completed: len(rep.Completed), Failed: len(rep.Failed),
		Skipped: len(rep.Skipped), SkippedByUser: len(byUser), NotRun: len(rep.NotRun)}
	if n := len(byUser); n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d %s skipped by you: %s.", n, plural(n, "task", "tasks"), issueItems(byUser)))
	}
	for _, f := range sortedKeys(files) {
		rep.Files = append(rep.Files, File{Path: f, Tasks: files[f]})
	}

	rep.historyInto(history)
	rep.answersInto(answers)
	// Conflicts a worker reported stand unresolved when no aggregation
	// answer took them up.
	if latestData[protocol.Aggregation](answers, protocol.PhaseAggregation) == nil {
		for _, t := range tasks {
			for _, c := range byTask[t.ID].Conflicts {
				rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionConflict, TaskID: t.ID, By: "task " + t.ID,
					Text: c, Tasks: []string{t.ID}})
				rep.Limitations = append(rep.Limitations, Limitation{Kind: LimitConflict, TaskID: t.ID, Text: c})
			}
		}
	}
	rep.Iterations.Total = len(rep.Iterations.Remediation) + len(rep.Iterations.Retries)
	return rep
}

// KeepPresent keeps in Files the files the run's result holds (present
// says which) and moves the others to Absent: a report lists as written
// only what is there.
func (rep *FinalReport) KeepPresent(present func(path string) bool) {
	if present == nil {
		return
	}
	kept := []File{}
	for _, f := range rep.Files {
		if present(f.Path) {
			kept = append(kept, f)
		} else {
			rep.Absent = append(rep.Absent, f)
		}
	}
	rep.Files = kept
}

// FactKind is what a Fact of a run's history is about.
type FactKind int

// The kinds of facts the report counts.
const (
	// FactApproved: a reviewer (By) approved task TaskID (Text: why).
	FactApproved FactKind = iota + 1
	// FactRejected: a reviewer (By) rejected task TaskID (Text: why).
	FactRejected
	// FactQuestion: the worker of TaskID asked Text.
	FactQuestion
	// FactAnswered: the user answered the worker of TaskID with Text.
	FactAnswered
	// FactRetry: task TaskID runs again (Text: why; empty when the user
	// asked for it).
	FactRetry
	// FactReprompt: a session was asked again for a missing or broken
	// answer.
	FactReprompt
	// FactRemediation: a QA round (Text) added the tasks Tasks.
	FactRemediation
	// FactLimitWait: the run waited for a rate, overload or usage limit.
	FactLimitWait
)

// A Fact is one thing a run's history says that the report counts: the
// engine reads them from its events.
type Fact struct {
	Kind   FactKind
	TaskID string
	By     string
	Text   string
	Tasks  []string
	At     time.Time
}

// historyInto reads review verdicts, answers, retries, re-prompts, QA
// rounds and limit waits from the run's history.
func (rep *FinalReport) historyInto(history []Fact) {
	asked := map[string]string{} // task → its open question
	for _, f := range history {
		at := f.At
		switch f.Kind {
		case FactApproved:
			rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionApproved, TaskID: f.TaskID, By: f.By, Text: f.Text, At: &at})
		case FactRejected:
			rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionRejected, TaskID: f.TaskID, By: f.By, Text: f.Text, At: &at})
			rep.Iterations.Rejections = append(rep.Iterations.Rejections, Attempt{TaskID: f.TaskID, Reason: f.Text, At: at})
		case FactQuestion:
			asked[f.TaskID] = f.Text
		case FactAnswered:
			rep.Decisions = append(rep.Decisions, Decision{Kind: DecisionAnswer, TaskID: f.TaskID, By: "the user",
				Question: asked[f.TaskID], Text: f.Text, At: &at})
			delete(asked, f.TaskID)
		case FactRetry:
			rep.Iterations.Retries = append(rep.Iterations.Retries, Attempt{TaskID: f.TaskID, Reason: f.Text, At: at})
		case FactReprompt:
			rep.Iterations.Reprompts++
		case FactRemediation:
			rep.Iterations.Remediation = append(rep.Iterations.Remediation, RemediationRound{
				Round: len(rep.Iterations.Remediation) + 1, Message: f.Text, Tasks: append([]string{}, f.Tasks...)})
		case FactLimitWait:
			rep.Cost.LimitWaits++
		}
	}
}

// answersInto takes the conflicts of the latest aggregation and the issues
// of the latest verification.
func (rep *FinalReport) answersInto(answers []store.PhaseAnswer) {
	if agg := latestData[protocol.Aggregation](answers, protocol.PhaseAggregation); agg != nil {
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
	if v := latestData[protocol.Verification](answers, protocol.PhaseVerification); v != nil {
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

// CostLabel is how a run's cost is written, saying what it is: simulated
// on the simulator, estimated where any of it came from the price table,
// else reported by the host.
func CostLabel(usd float64, l store.RunLimits) string {
	s := fmt.Sprintf("$%.4f", usd)
	switch {
	case l.CostSimulated:
		s += " (simulated)"
	case l.CostEstimated:
		s += " (estimated from Baton's price table of " + pricing.PricesDate + ")"
	case usd > 0:
		s += " (reported by the host)"
	}
	return s
}
