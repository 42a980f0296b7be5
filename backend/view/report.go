package view

import (
	"time"

	"github.com/baton-app/baton/backend/engine"
)

// FinalReport is the summary stored when a run finishes: its tasks,
// iterations, decisions, files and known limitations.
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
	// Notes are facts worth saying that are no issue ("1 task skipped by
	// you: t3.").
	Notes     []string   `json:"notes"`
	Decisions []Decision `json:"decisions"`
	// Files is the union of the files the workers reported, sorted: those
	// the run's result holds.
	Files []ReportFile `json:"files"`
	// Absent are files a worker reported that the result does not hold.
	Absent      []ReportFile `json:"absent,omitempty"`
	Limitations []Limitation `json:"limitations"`
	// Issues are why the run is completed_with_issues or failed; empty for
	// every other status.
	Issues []string `json:"issues"`
	// Cost is what the run cost and used, and the limits it waited for.
	Cost ReportCost `json:"cost"`
	// Checks are the project's checks Baton ran itself (nil: the run did
	// not check).
	Checks *ReportChecks `json:"checks,omitempty"`
}

// ReportChecks is what the final report says of the project's checks.
type ReportChecks struct {
	// Ran: at least one check ran; otherwise Note says "No checks ran".
	Ran    bool `json:"ran"`
	Looked bool `json:"looked"`
	// Note says which checks Baton chose and why.
	Note     string     `json:"note"`
	Baseline []CheckRef `json:"baseline"`
	After    []CheckRef `json:"after"`
	// Contradiction: the verification said "pass" while a check the run
	// broke failed; PreExistingNote: while checks failed as before.
	Contradiction   string `json:"contradiction,omitempty"`
	PreExistingNote string `json:"preExistingNote,omitempty"`
}

// CheckRef is one check in the final report.
type CheckRef struct {
	Name       string `json:"name"`
	Command    string `json:"command"`
	Status     string `json:"status"`
	ExitCode   int    `json:"exitCode"`
	DurationMS int64  `json:"durationMs"`
	Verdict    string `json:"verdict"`
	Tail       string `json:"tail,omitempty"`
	Message    string `json:"message,omitempty"`
	Sentence   string `json:"sentence"`
}

// TaskCounts counts a run's tasks by outcome.
type TaskCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	// SkippedByUser counts the skipped tasks the user skipped (in Skipped
	// too); they are no issue.
	SkippedByUser int `json:"skippedByUser"`
	NotRun        int `json:"notRun"`
}

// TaskRef is one task in the final report.
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

// Iterations counts the rounds a run went through beyond the first try.
type Iterations struct {
	// Total is the QA remediation rounds plus the worker retries.
	Total       int                `json:"total"`
	Remediation []RemediationRound `json:"remediation"`
	Retries     []Attempt          `json:"retries"`
	Rejections  []Attempt          `json:"rejections"`
	// Reprompts counts the stricter re-prompts after missing or broken
	// answers.
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

// Decision is one decision taken during the run: a review verdict, an
// answer to a worker's question, or a conflict and how it was resolved.
type Decision struct {
	// Kind is one of the Decision* constants.
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

// DecisionConflict is the Kind of a conflict between tasks.
const DecisionConflict = engine.DecisionConflict

// ReportFile is one file written during the run and the tasks that wrote
// it.
type ReportFile struct {
	Path  string   `json:"path"`
	Tasks []string `json:"tasks"`
}

// Limitation is something the run did not achieve or could not check.
type Limitation struct {
	Kind     string   `json:"kind"`
	TaskID   string   `json:"taskId,omitempty"`
	Text     string   `json:"text"`
	Severity string   `json:"severity,omitempty"`
	Files    []string `json:"files,omitempty"`
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

// FinalReportOf is the view of a run's final report.
func FinalReportOf(r engine.FinalReport) FinalReport {
	ref := func(t engine.TaskRef) TaskRef { return TaskRef(t) }
	attempt := func(a engine.Attempt) Attempt { return Attempt(a) }
	return FinalReport{
		RunID: r.RunID, Status: r.Status, Message: r.Message, Error: r.Error, FinishedAt: r.FinishedAt,
		Tasks:     TaskCounts(r.Tasks),
		Completed: mapAll(r.Completed, ref), Failed: mapAll(r.Failed, ref), Skipped: mapAll(r.Skipped, ref), NotRun: mapAll(r.NotRun, ref),
		Iterations: Iterations{
			Total:       r.Iterations.Total,
			Remediation: mapAll(r.Iterations.Remediation, func(x engine.RemediationRound) RemediationRound { return RemediationRound(x) }),
			Retries:     mapAll(r.Iterations.Retries, attempt),
			Rejections:  mapAll(r.Iterations.Rejections, attempt),
			Reprompts:   r.Iterations.Reprompts,
		},
		Decisions:   mapAll(r.Decisions, func(d engine.Decision) Decision { return Decision(d) }),
		Files:       mapAll(r.Files, func(f engine.ReportFile) ReportFile { return ReportFile(f) }),
		Absent:      mapAll(r.Absent, func(f engine.ReportFile) ReportFile { return ReportFile(f) }),
		Limitations: mapAll(r.Limitations, func(l engine.Limitation) Limitation { return Limitation(l) }),
		Issues:      r.Issues,
		Notes:       r.Notes,
		Cost:        ReportCost(r.Cost),
		Checks:      reportChecksOf(r.Checks),
	}
}

func reportChecksOf(c *engine.ReportChecks) *ReportChecks {
	if c == nil {
		return nil
	}
	ref := func(r engine.CheckRef) CheckRef { return CheckRef(r) }
	return &ReportChecks{Ran: c.Ran, Looked: c.Looked, Note: c.Note, Baseline: mapAll(c.Baseline, ref), After: mapAll(c.After, ref),
		Contradiction: c.Contradiction, PreExistingNote: c.PreExistingNote}
}
