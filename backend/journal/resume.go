package journal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// StatusSkipped marks a task that never ran: the user skipped it, or a
// task it depends on failed.
const StatusSkipped = "skipped"

var fileNumber = regexp.MustCompile(`^task-(\d+)-`)

// nextNumber is the number of the next task file: one past the highest.
func nextNumber(ix *Index) int {
	n := 0
	for _, t := range ix.Tasks {
		if m := fileNumber.FindStringSubmatch(t.File); m != nil {
			if k, err := strconv.Atoi(m[1]); err == nil && k > n {
				n = k
			}
		}
	}
	return n + 1
}

// AddTasks adds tasks to the registry of an existing journal, each with a
// new task file numbered after the last one (remediation tasks, tasks added
// while the run goes). A task whose id is already there is left as it is;
// the ids added are returned.
func (j *Journal) AddTasks(tasks []Task) ([]string, error) {
	ix, err := j.Load()
	if err != nil {
		return nil, fmt.Errorf("add tasks: %w", err)
	}
	var added []string
	for _, t := range tasks {
		if strings.TrimSpace(t.ID) == "" {
			return added, fmt.Errorf("add tasks: a task has an empty id")
		}
		if _, ok := ix.Task(t.ID); ok {
			continue
		}
		if err := j.addTask(ix, t); err != nil {
			return added, fmt.Errorf("add tasks: %w", err)
		}
		added = append(added, t.ID)
	}
	if len(added) == 0 {
		return nil, nil
	}
	if err := j.save(ix); err != nil {
		return added, fmt.Errorf("add tasks: %w", err)
	}
	return added, nil
}

func (j *Journal) addTask(ix *Index, t Task) error {
	if t.Status == "" {
		t.Status = StatusPending
	}
	if t.Assigned == "" {
		t.Assigned = "unassigned"
	}
	t.File = TaskFileName(nextNumber(ix), t.Name)
	if err := j.fs.WriteFile(t.File, renderTaskFile(t), 0o644); err != nil {
		return err
	}
	ix.Tasks = append(ix.Tasks, t)
	return nil
}

// Resume takes up an existing journal for a new plan (seed 004 1.1: "IF
// index.md EXISTS: read index.md, identify current state and active tasks,
// resume from last checkpoint"). Everything recorded stays: the task files
// with their execution logs, the context map, the blockers. A planned task
// with the id and objective of a task in the registry is that task again:
// it keeps its file and log, and runs again from there (pending, its
// earlier entries the checkpoint it reads). A planned task whose id is taken by another task renames the
// older entry (<id>-earlier, -earlier-2 …) and gets a new file; every other
// planned task is added. The project's request and domain are updated. It
// returns the index and the ids of the tasks resumed from the registry.
func (j *Journal) Resume(p Project, tasks []Task) (*Index, []string, error) {
	ix, err := j.Load()
	if err != nil {
		return nil, nil, fmt.Errorf("resume journal: %w", err)
	}
	if p.Request != "" {
		ix.Project.Request = p.Request
	}
	if len(p.Domain) > 0 {
		ix.Project.Domain = p.Domain
	}
	if ix.Project.Name == "" {
		ix.Project.Name = p.Name
	}
	var resumed []string
	for _, t := range tasks {
		if strings.TrimSpace(t.ID) == "" {
			return nil, nil, fmt.Errorf("resume journal: a task has an empty id")
		}
		old, ok := ix.Task(t.ID)
		if ok && strings.TrimSpace(old.Objective) == strings.TrimSpace(t.Objective) {
			resumed = append(resumed, t.ID)
			want := t.Status // skipped in the new plan, else pending
			if want == "" {
				want = StatusPending
			}
			if old.Status != want {
				old.Status = want
				if err := j.setFileStatus(old.File, want); err != nil {
					return nil, nil, fmt.Errorf("resume journal: %w", err)
				}
			}
			continue
		}
		if ok {
			old.ID = earlierID(ix, t.ID)
		}
		if err := j.addTask(ix, t); err != nil {
			return nil, nil, fmt.Errorf("resume journal: %w", err)
		}
	}
	if err := j.save(ix); err != nil {
		return nil, nil, fmt.Errorf("resume journal: %w", err)
	}
	return ix, resumed, nil
}

// earlierID is a free id for an older entry that a new task's id displaces.
func earlierID(ix *Index, id string) string {
	for n := 1; ; n++ {
		c := id + "-earlier"
		if n > 1 {
			c += "-" + strconv.Itoa(n)
		}
		if _, taken := ix.Task(c); !taken {
			return c
		}
	}
}
