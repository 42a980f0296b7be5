package isolation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/worktree"
)

// A finished run's branch: what can be applied of it task by task, where
// it was pushed, its pull request.

// Push is one push of the run branch.
type Push struct {
	Remote string    `json:"remote"`
	Commit string    `json:"commit"`
	At     time.Time `json:"at"`
}

// PullRequest is the pull request opened for the run branch.
type PullRequest struct {
	URL    string    `json:"url"`
	Remote string    `json:"remote"`
	At     time.Time `json:"at"`
}

// LeftOutError refuses a selective apply that picks Task but leaves out
// Dependency, a task it depends on whose changes it was built on.
type LeftOutError struct {
	Task, Dependency string
}

func (e *LeftOutError) Error() string {
	return fmt.Sprintf("%s depends on %s, whose changes you left out: pick %s too, or leave %s out", e.Task, e.Dependency, e.Dependency, e.Task)
}

// ErrNothingToPick is a selective apply of tasks that have no changes left
// to apply.
var ErrNothingToPick = errors.New("nothing to apply")

// HasChanges reports whether task id has changes on the run branch that are
// not applied yet.
func (s *State) HasChanges(id string) bool {
	it := s.Tasks[id]
	return it != nil && it.Merged != nil && it.Merged.Commit != "" && !slices.Contains(s.AppliedTasks, id)
}

// Picks are the merges a selective apply of the tasks ids replays: each
// task's merge commit on the run branch. A task that changed nothing is
// passed over; a task whose changes are not on the branch is refused, and
// so is a task that depends (directly or through others) on a task with
// changes that is neither picked nor applied already (*LeftOutError).
func (s *State) Picks(tasks []store.Task, ids []string) ([]worktree.Pick, error) {
	byID := map[string]store.Task{}
	for _, t := range tasks {
		byID[t.ID] = t
	}
	var picks []worktree.Pick
	for _, id := range ids {
		it := s.Tasks[id]
		switch {
		case it == nil || it.Merged == nil:
			if _, ok := byID[id]; !ok {
				return nil, fmt.Errorf("the run has no task %s", id)
			}
			return nil, fmt.Errorf("the changes of %s are not on the branch %s", id, s.Run.Branch)
		case slices.Contains(s.AppliedTasks, id):
			return nil, fmt.Errorf("the changes of %s were applied already", id)
		case it.Merged.Commit == "":
			continue // it changed nothing
		}
		for _, dep := range dependencies(byID, id) {
			if s.HasChanges(dep) && !slices.Contains(ids, dep) {
				return nil, &LeftOutError{Task: id, Dependency: dep}
			}
		}
		picks = append(picks, worktree.Pick{Task: id, Commit: it.Merged.Commit})
	}
	if len(picks) == 0 {
		return nil, fmt.Errorf("%s changed no file: %w", strings.Join(ids, ", "), ErrNothingToPick)
	}
	return picks, nil
}

// dependencies lists what task id depends on, directly or through others,
// nearest first.
func dependencies(byID map[string]store.Task, id string) []string {
	var out []string
	seen := map[string]bool{id: true}
	queue := slices.Clone(byID[id].Dependencies)
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
		queue = append(queue, byID[d].Dependencies...)
	}
	return out
}

// AllApplied reports whether every task's changes on the run branch were
// applied one by one: the branch holds nothing more.
func (s *State) AllApplied() bool {
	for id := range s.Tasks {
		if s.HasChanges(id) {
			return false
		}
	}
	return true
}
