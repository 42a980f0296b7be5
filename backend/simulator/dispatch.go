package simulator

import "time"

// dialectReport is the seed 001 dialect: a worker reports with a
// completion_report object (a quoted "type": "completion_report" in its
// prompt), with its build result and a timestamp.
const dialectReport = "report"

// face is what the shared phase dispatch needs from a face of the agent:
// the turns that run tools (a worker's, a verification's) and the count
// of reviews of a task.
type face interface {
	// worker reads the worker's scope and returns its report.
	worker() (report, error)
	// verify returns the verification answer of the attempt.
	verify(attempt int) (map[string]any, string, error)
	// reviews counts the reviews of task id in this session, this one
	// included.
	reviews(id string) int
}

// answer is the answer to phase, shared by both faces: the text with its
// block, whether the worker failed, and false when the prompt asks for no
// phase the agent knows.
func (m *mind) answer(f face, phase string, attempt int) (text string, failed, known bool, err error) {
	var data map[string]any
	var objs []map[string]any // delegation and report dialects: one object per block
	var before string
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
		rep, err := f.worker()
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
		if data, before, err = f.verify(attempt); err != nil {
			return "", false, true, err
		}
	case "review":
		id := m.taskID()
		data, before = m.review(id, f.reviews(id))
	default:
		return "", false, false, nil
	}
	if objs != nil {
		return m.objectBlocks(objs, before, attempt), failed, true, nil
	}
	return m.block(phase, data, before, attempt), failed, true, nil
}
