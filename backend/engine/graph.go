package engine

import (
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/tasklist"
)

// A run's task list before it runs is backend/tasklist: the planner's tasks
// as stored, the checks before confirming, the duplicates set aside, the
// order of starts, the parallel groups and the user's modifications to a
// proposed list. Here are the names that keep the engine's
// callers as they were.

// DefaultPriority is given to a task whose planner set none (seed 000: 1–10,
// higher is more important).
const DefaultPriority = tasklist.DefaultPriority

// ErrInvalidTasks is returned when a task list cannot be confirmed; the
// TaskListError lists every problem.
var ErrInvalidTasks = tasklist.ErrInvalid

// TaskListError lists every problem of a task list, one sentence each.
type TaskListError = tasklist.Error

// CheckTasks checks a task list before it is confirmed (tasklist.Check).
func CheckTasks(tasks []store.Task, maxTasks int) error { return tasklist.Check(tasks, maxTasks) }

// ParallelGroups groups the tasks to run by depth in the dependency graph,
// for display (tasklist.Groups).
func ParallelGroups(tasks []store.Task) [][]string { return tasklist.Groups(tasks) }

// The user's modifications to a proposed task list (tasklist.Modifications).
type (
	Modifications = tasklist.Modifications
	TaskEdit      = tasklist.TaskEdit
	NewTask       = tasklist.NewTask
)
