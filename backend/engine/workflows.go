package engine

import (
	"context"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/workflows"
)

// TransportMailbox is the config.transport value of the file mailbox.
const TransportMailbox = workflows.TransportMailbox

// Workflows are a run's seed workflows as its loop sees them: the runner
// calls them at fixed points and never lets them touch its state. The
// default is backend/workflows (the file mailbox of seed 001, the skills
// and the journal of seed 004); Options.Workflows replaces it.
type Workflows interface {
	// Planned annotates tasks that were planned, edited or added and
	// returns a note for the run's message ("" none).
	Planned(tasks []store.Task) string
	// Confirmed: the plan was confirmed.
	Confirmed(tasks []store.Task)
	// Assign: the worker of task t is about to start; an error fails the
	// task.
	Assign(ctx context.Context, t *store.Task) error
	// Sections are what the workflows add to the worker prompt of task t.
	// It is called off the run's goroutine, before the worker starts.
	Sections(t *store.Task) []string
	// CheckReport says what is wrong with worker taskID's completion c by
	// the workflows' rules (nil: it may be taken).
	CheckReport(taskID string, c *protocol.Completion) error
	// Reprompt is what a worker is told when its completion report could
	// not be used because of problem ("" the engine's own words).
	Reprompt(taskID, problem string) string
	// AwaitingReview: a completion waits for its review.
	AwaitingReview(taskID string, c *protocol.Completion)
	// Decided: a review decision was taken.
	Decided(taskID string, d *protocol.Review)
	// Finished: a task completed, or failed for good; done is what its
	// worker reported.
	Finished(taskID string, completed bool, done workflows.Done)
	// Skipped: tasks that will not run (a dependency failed, the user
	// skipped them).
	Skipped(taskIDs []string)
	// Completed: the run completed; returns a sentence for its message.
	Completed() string
	// Restored: a restored run that is past confirmation is taken up.
	Restored()
	// Reports carries reports that came outside the workers' transcripts
	// to the loop (nil: none come).
	Reports() <-chan workflows.Report
	// Flush waits for the writes queued so far.
	Flush()
	// Close waits for the writes and releases what the workflows hold; the
	// loop calls it when the run's goroutine ends.
	Close()
}

// openWorkflows opens the default workflows of a run.
func openWorkflows(r workflows.Run) Workflows { return workflows.Open(r) }
