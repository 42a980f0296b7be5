package engine

import (
	"context"
	"time"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/worktree"
)

// Placement is where a worktree run's workers run: on this machine, or on
// one of the machines of the template's config.machines (backend/machines
// over SSH). The engine asks it, per worker, where the worker runs and
// for the worker's folder there; the session host the engine is given
// starts the worker's session on that machine once StartTask has named
// it. Before a placed task's branch merges here, Bring fetches it.
type Placement interface {
	// Place takes a place for the worker of task taskID of run runID on
	// the first of names with a free one; "" when it runs here.
	Place(runID, taskID string, names []string) string
	// Where is the machine the task was placed on ("" here).
	Where(runID, taskID string) string
	// StartTask makes the task's worktree on its machine from commit from
	// of the local repository local, says that session id runs there, and
	// returns the folder there. An error matching session.ErrHostLost
	// says the machine cannot take the worker now: it runs here.
	StartTask(ctx context.Context, local, runID, taskID, from string, id session.ID) (string, error)
	// Bring commits what the worker left there and fetches the task's
	// branch into the local repository.
	Bring(ctx context.Context, runID, taskID, message string) (string, error)
	// Release frees the task's place.
	Release(runID, taskID string)
	// MarkDown keeps new workers off machine name for a while: it could
	// not be reached.
	MarkDown(name string)
	// EndRun frees every place of the run and removes its worktrees and
	// branches on the machines.
	EndRun(ctx context.Context, runID string) error
	// Adopt takes up after a restart a task placed on machine name whose
	// worker has session id ("" none yet), for the local repository local.
	Adopt(runID, taskID, name, local string, id session.ID) error
}

// adoptPlaced takes up the run's workers on machines after a restart: their
// sessions go to their machines again and their branches come back from
// there.
func (r *runner) adoptPlaced() {
	p := r.e.placement
	if p == nil || r.iso == nil || r.status.Finished() {
		return
	}
	for taskID, it := range r.iso.Tasks {
		if it == nil || it.Machine == "" || it.Merged != nil || it.Dropped {
			continue
		}
		var id session.ID
		if ws := r.plan.workers[taskID]; ws != nil {
			id = session.ID(ws.w.SessionID)
		}
		if err := p.Adopt(r.run.ID, taskID, it.Machine, r.run.Cwd, id); err != nil {
			r.log.Warn("a worker on a machine cannot be taken up", "task", taskID, "machine", it.Machine, "err", err)
		}
	}
}

// endPlacement frees the places of a finished run and removes what it
// left on the machines, in the background (a machine that is gone must not
// hold the run's end).
func (r *runner) endPlacement() {
	p := r.e.placement
	if p == nil || len(r.tmpl.Config.Machines) == 0 || r.placementEnded {
		return
	}
	r.placementEnded = true
	runID, log := r.run.ID, r.log
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := p.EndRun(ctx, runID); err != nil {
			log.Warn("the run's copies stay on a machine", "err", err)
		}
	}()
}

// placedCwd gives the worker of task id its worktree on a machine when
// the run places workers there and one has a free place; ok is false when
// it runs here.
func (r *runner) placedCwd(ctx context.Context, taskID string, id session.ID) (cwd string, ok bool, err error) {
	p := r.e.placement
	if p == nil || r.iso == nil || len(r.tmpl.Config.Machines) == 0 || r.tmpl.Config.Transport == TransportMailbox {
		return "", false, nil
	}
	if it := r.iso.Tasks[taskID]; it != nil && it.Resolves != "" {
		return "", false, nil // a merge task works in the run's worktree
	}
	name := p.Place(r.run.ID, taskID, r.tmpl.Config.Machines)
	if name == "" {
		return "", false, nil
	}
	cwd, err = p.StartTask(ctx, r.iso.Run.Repo, r.run.ID, taskID, r.iso.Run.Branch, id)
	if err != nil {
		p.Release(r.run.ID, taskID)
		if lostHost(err) && ctx.Err() == nil {
			// The machine cannot be reached: the worker runs here.
			p.MarkDown(name)
			r.log.Warn("a machine cannot be reached; the worker runs here", "task", taskID, "machine", name, "err", err)
			return "", false, nil
		}
		return "", true, err
	}
	r.iso.Tasks[taskID] = &isolation.Task{Branch: worktree.TaskBranch(r.run.ID, taskID), Machine: name}
	r.log.Info("the worker runs on a machine", "task", taskID, "machine", name, "dir", cwd)
	return cwd, true, nil
}

// bringPlaced fetches the branch of a task that ran on a machine before
// it merges here.
func (r *runner) bringPlaced(ctx context.Context, taskID, message string) error {
	p := r.e.placement
	if p == nil || p.Where(r.run.ID, taskID) == "" {
		return nil
	}
	defer p.Release(r.run.ID, taskID)
	_, err := p.Bring(ctx, r.run.ID, taskID, message)
	return err
}
