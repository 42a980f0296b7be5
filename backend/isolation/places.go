package isolation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/worktree"
)

// Placement is where a worktree run's workers run: on this machine, or on
// one of the machines of the template's config.machines (backend/machines
// over SSH). It is asked, per worker, where the worker runs and for the
// worker's folder there; the session host starts the worker's session on
// that machine once StartTask has named it. Before a placed task's branch
// merges here, Bring fetches it.
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
	// Lost reports since when machine name cannot be reached (false: it
	// can, as far as the Placement knows).
	Lost(name string) (since time.Time, lost bool)
	// EndRun frees every place of the run and removes its worktrees and
	// branches on the machines.
	EndRun(ctx context.Context, runID string) error
	// Adopt takes up after a restart a task placed on machine name whose
	// worker has session id ("" none yet), for the local repository local.
	Adopt(runID, taskID, name, local string, id session.ID) error
}

// Places are one run's workers on machines: the run's Placement, the
// machines its template names, and whether their copies were removed. A
// nil *Places (no Placement) places every worker here.
type Places struct {
	p        Placement
	runID    string
	machines []string
	// mailbox: the run's workers report through the mailbox file, which
	// is read here, so none runs elsewhere.
	mailbox bool
	log     *slog.Logger
	ended   bool
}

// NewPlaces returns the places of run runID on machines through p (nil
// when p is nil).
func NewPlaces(p Placement, runID string, machines []string, mailbox bool, log *slog.Logger) *Places {
	if p == nil {
		return nil
	}
	return &Places{p: p, runID: runID, machines: machines, mailbox: mailbox, log: log}
}

// Adopt takes up the run's workers on machines after a restart (w is the
// run's workspace, local its repository): their sessions go to their
// machines again and their branches come back from there.
func (pl *Places) Adopt(w *Workspace, local string, sessionOf func(taskID string) session.ID) {
	if pl == nil {
		return
	}
	for taskID, it := range w.Tasks {
		if it == nil || it.Machine == "" || it.Merged != nil || it.Dropped {
			continue
		}
		if err := pl.p.Adopt(pl.runID, taskID, it.Machine, local, sessionOf(taskID)); err != nil {
			pl.log.Warn("a worker on a machine cannot be taken up", "task", taskID, "machine", it.Machine, "err", err)
		}
	}
}

// End frees the places of a finished run and removes what it left on the
// machines, in the background counted by wg (a machine that is gone must
// not hold the run's end); once.
func (pl *Places) End(wg *sync.WaitGroup) {
	if pl == nil || len(pl.machines) == 0 || pl.ended {
		return
	}
	pl.ended = true
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := pl.p.EndRun(ctx, pl.runID); err != nil {
			pl.log.Warn("the run's copies stay on a machine", "err", err)
		}
	}()
}

// Take places the worker of task taskID on a machine of the run that has
// a free place and memory for it now, before it starts (Cwd then starts it
// there; a worker placed before keeps its machine); "" when it runs here
// (w is the run's workspace).
func (pl *Places) Take(w *Workspace, taskID string) string {
	if pl == nil || len(pl.machines) == 0 || pl.mailbox {
		return ""
	}
	if it := w.Tasks[taskID]; it != nil && it.Resolves != "" {
		return "" // a merge task works in the run's worktree
	}
	return pl.p.Place(pl.runID, taskID, pl.machines)
}

// Cwd gives the worker of task taskID (session id) its worktree on a
// machine when the run places workers there and one has a free place; ok
// is false when it runs here (w is the run's workspace).
func (pl *Places) Cwd(ctx context.Context, w *Workspace, taskID string, id session.ID) (cwd string, ok bool, err error) {
	name := pl.Take(w, taskID)
	if name == "" {
		return "", false, nil
	}
	cwd, err = pl.p.StartTask(ctx, w.Run.Repo, pl.runID, taskID, w.Run.Branch, id)
	if err != nil {
		pl.p.Release(pl.runID, taskID)
		if errors.Is(err, session.ErrHostLost) && ctx.Err() == nil {
			// The machine cannot be reached: the worker runs here.
			pl.p.MarkDown(name)
			pl.log.Warn("a machine cannot be reached; the worker runs here", "task", taskID, "machine", name, "err", err)
			return "", false, nil
		}
		return "", true, err
	}
	// Its folder there, as a worker's here: the run's subfolder of the
	// worktree when the run works in a subfolder of its repository.
	w.Tasks[taskID] = &Task{Branch: worktree.TaskBranch(pl.runID, taskID), Dir: cwd, Machine: name}
	cwd = w.sub(cwd)
	pl.log.Info("the worker runs on a machine", "task", taskID, "machine", name, "dir", cwd)
	return cwd, true, nil
}

// Bring fetches the branch of a task that ran on a machine before it
// merges here (Workspace.Bring).
func (pl *Places) Bring(ctx context.Context, taskID, message string) error {
	if pl == nil || pl.p.Where(pl.runID, taskID) == "" {
		return nil
	}
	defer pl.p.Release(pl.runID, taskID)
	_, err := pl.p.Bring(ctx, pl.runID, taskID, message)
	return err
}

// Away is what a worker on a machine that cannot be reached does
// (Places.Away).
type Away int

const (
	// Here: the worker runs here, or its machine is reachable.
	Here Away = iota
	// Wait: it waits for its machine, as a run waits for a lost host.
	Wait
	// Elsewhere: its machine stayed away past the bound: the worker
	// starts again elsewhere (Leave).
	Elsewhere
)

// Away says what the worker of task taskID does at now when its machine
// cannot be reached: it waits up to bound from when the machine was lost
// (msg says for what, and until when), then runs elsewhere (msg says
// why; Leave). Once the machine is back (Here), the worker goes on there
// in its session.
func (pl *Places) Away(taskID string, now time.Time, bound time.Duration) (step Away, msg string) {
	if pl == nil {
		return Here, ""
	}
	name := pl.p.Where(pl.runID, taskID)
	if name == "" {
		return Here, ""
	}
	since, lost := pl.p.Lost(name)
	if !lost {
		return Here, ""
	}
	until := since.Add(bound)
	if now.Before(until) {
		return Wait, fmt.Sprintf("waiting for machine %s to come back (lost at %s; the worker runs elsewhere at %s)",
			name, since.Format("15:04:05"), until.Format("15:04:05"))
	}
	return Elsewhere, fmt.Sprintf("machine %s was unreachable for %s; the worker starts again elsewhere", name, bound.Round(time.Second))
}

// Leave frees the place of the worker of task taskID, whose machine
// stayed away (Elsewhere), and keeps new workers off that machine for a
// while: the worker starts again elsewhere.
func (pl *Places) Leave(taskID string) {
	if pl == nil {
		return
	}
	name := pl.p.Where(pl.runID, taskID)
	if name == "" {
		return
	}
	pl.p.Release(pl.runID, taskID)
	pl.p.MarkDown(name)
	pl.log.Warn("a machine did not come back; its worker runs elsewhere", "task", taskID, "machine", name)
}
