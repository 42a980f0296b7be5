package agent

import (
	"fmt"
	"path"
	"time"
)

// dialectReport is the seed 001 dialect: a worker reports with a
// completion_report object (a quoted "type": "completion_report" in its
// prompt), with its build result and a timestamp.
const dialectReport = "report"

// Face is what the phase dispatch needs from a face of the agent: the
// turns that run tools (a worker's, a verification's) and the count of
// reviews of a task. The simulator page and the model face (Answer) are
// the two faces.
type Face interface {
	// Worker plays the worker's turn: it reads (WorkerReads), does the
	// Work and returns its Report.
	Worker() (Report, error)
	// Verify returns the verification answer of the attempt (see
	// Verification) and the text before its block.
	Verify(attempt int) (map[string]any, string, error)
	// Reviews counts the reviews of task id in this session, this one
	// included.
	Reviews(id string) int
}

// Respond is the one phase dispatch of the agent, shared by its faces: the
// answer to phase on its attempt-th asking, with the block in the dialect
// of the turn; whether the worker failed; and known false when the prompt
// asks for no phase the agent knows (the text then asks which one).
func (m *Mind) Respond(f Face, phase string, attempt int) (text string, failed, known bool, err error) {
	var data map[string]any
	var objs []map[string]any // delegation and report dialects: one object per block
	var before string
	m.attempt = attempt
	switch phase {
	case "analysis":
		data, before = m.analysis()
	case "task_list":
		if m.delegation {
			objs, before = m.newTasks()
		} else {
			data, before = m.taskList()
		}
	case "completion":
		rep, err := f.Worker()
		if err != nil {
			return "", false, true, err
		}
		failed = rep.kind == reportFailed
		before = rep.before
		switch {
		case m.delegation:
			objs = []map[string]any{rep.attemptCompletion()}
		case m.dialect == dialectReport:
			objs = []map[string]any{rep.completionReport(m.platform(), time.Now())}
		default:
			data = rep.completion()
		}
	case "aggregation":
		data, before = m.aggregation()
	case "verification":
		if data, before, err = f.Verify(attempt); err != nil {
			return "", false, true, err
		}
	case "review":
		id := m.TaskID()
		data, before = m.review(id, f.Reviews(id))
	default:
		return fmt.Sprintf("I looked at %d files in %s. Tell me which phase you need (analysis, task_list, completion, aggregation or verification) and I will answer with a %s block.",
			len(m.files), path.Base(m.cwd), startDelim), false, false, nil
	}
	if objs != nil {
		return m.objectBlocks(objs, before, attempt), failed, true, nil
	}
	return m.block(phase, data, before, attempt), failed, true, nil
}
