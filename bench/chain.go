package main

import (
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/engine"
)

// The CLI host's overhead along the chain of tasks that set a run's wall
// time: from the task whose worker:completed came last, back through each
// task's dependency completed last, to a task of the first layer. Its
// phases add up to the run's wall time.

// chainSplit splits one run's wall time along its chain.
type chainSplit struct {
	Tasks int
	// First: Confirm → the first task's Start call (the plan's commit,
	// the project's checks' baseline, scheduling).
	First time.Duration
	// Start: each task's Start call → its first event (writing the prompt
	// to the CLI, warm or not, until the CLI answers); Starts holds each
	// task's, from the first layer on.
	Start  time.Duration
	Starts []time.Duration
	// Agent: each task's first event → its result event.
	Agent time.Duration
	// Detect: each task's result event → its worker:completed.
	Detect time.Duration
	// Schedule: a dependency's worker:completed → its dependant's Start
	// call (the engine's step: outputs checked, the next worker spawned).
	Schedule time.Duration
	// Retry: a failed attempt's result event → the Start call of the
	// task's next session (a worker retried); Retries counts them.
	Retry   time.Duration
	Retries int
}

// Overhead is the chain's time that is not its agents'.
func (c chainSplit) Overhead() time.Duration {
	return c.First + c.Start + c.Detect + c.Schedule + c.Retry
}

// splitChain walks the chain of a finished run; called holds the host's
// Start call per session.
func splitChain(rec *recorder, snap engine.Snapshot, confirmed time.Time, called map[string]time.Time) (chainSplit, error) {
	deps := map[string][]string{}
	for _, t := range snap.Tasks {
		deps[t.ID] = t.Dependencies
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	sessions := map[string][]string{}
	for _, w := range snap.Workers {
		sessions[w.TaskID] = rec.sessionsOfLocked(snap.Run.ID, w)
	}
	done := rec.completed[snap.Run.ID]
	latest := func(ids []string) string {
		var at time.Time
		last := ""
		for _, id := range ids {
			if t, ok := done[id]; ok && t.After(at) {
				at, last = t, id
			}
		}
		return last
	}
	all := make([]string, 0, len(deps))
	for id := range deps {
		all = append(all, id)
	}
	var chain []string
	for t := latest(all); t != ""; t = latest(deps[t]) {
		chain = append([]string{t}, chain...)
		if len(chain) > len(deps) {
			return chainSplit{}, fmt.Errorf("run %s: the task graph has a cycle", snap.Run.ID)
		}
	}
	if len(chain) == 0 {
		return chainSplit{}, fmt.Errorf("run %s: no task completed", snap.Run.ID)
	}
	var c chainSplit
	c.Tasks = len(chain)
	for i, t := range chain {
		var result time.Time
		for j, s := range sessions[t] {
			call, ok1 := called[s]
			first, ok2 := rec.first[s]
			end, ok3 := rec.last[s]
			if !ok1 || !ok2 || !ok3 {
				if j < len(sessions[t])-1 {
					// An attempt whose Start failed: its time is part of
					// the next one's scheduling or retry.
					continue
				}
				return chainSplit{}, fmt.Errorf("run %s: no Start or result recorded for %s", snap.Run.ID, s)
			}
			switch {
			case !result.IsZero():
				c.Retry += call.Sub(result)
				c.Retries++
			case i == 0:
				c.First = call.Sub(confirmed)
			default:
				c.Schedule += call.Sub(done[chain[i-1]])
			}
			c.Start += first.Sub(call)
			c.Starts = append(c.Starts, first.Sub(call))
			c.Agent += end.Sub(first)
			result = end
		}
		c.Detect += done[t].Sub(result)
	}
	return c, nil
}

// chainText says where the CLI overhead went along the runs' chains.
func chainText(chains []chainSplit) string {
	if len(chains) == 0 {
		return ""
	}
	var first, start, detect, sched, over []time.Duration
	for _, c := range chains {
		first, start, detect = append(first, c.First), append(start, c.Start), append(detect, c.Detect)
		sched, over = append(sched, c.Schedule), append(over, c.Overhead())
	}
	return fmt.Sprintf(" Along the chain that set each run's wall time (median of %d runs, overhead %s): Confirm → the first `Start` call %s, the `Start` calls until each CLI's first event %s, result → `worker:completed` %s, `worker:completed` → the next `Start` call %s.",
		len(chains), ms(percentile(over, .5)), ms(percentile(first, .5)), ms(percentile(start, .5)), ms(percentile(detect, .5)), ms(percentile(sched, .5)))
}
