package machines

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/session"
)

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Targets are the machines workers may be placed on.
	Targets []Target
	// Machine are the options every machine is opened with.
	Machine Options
	// Host are the options of each machine's Claude Code host; its
	// Launcher, StateDir and Notices are the pool's.
	Host claudecode.Options
	// StateDir holds each machine's host state (StateDir/<name>).
	StateDir string
	// Notices receives the notices of every machine's sessions.
	Notices chan<- session.Notice
	// DownFor is how long a machine that could not be reached gets no
	// new worker (MarkDown); one minute when zero.
	DownFor time.Duration
	// ProbeEvery is how often a machine that was lost is tried again
	// until it answers (Lost); two seconds when zero.
	ProbeEvery time.Duration
	// MemoryEvery is how long a reading of a machine's free memory is
	// used before Place reads it again; two seconds when zero.
	MemoryEvery time.Duration
	// ReadMemory reads what machine m has free (Client.Memory when nil).
	ReadMemory func(ctx context.Context, m *Machine) (int64, error)
	Logger     *slog.Logger
}

// Pool places a worktree run's workers on machines: it keeps each
// machine's shared connection, its Claude Code host (whose CLIs run there
// through the machine's Launcher) and its copies of local repositories,
// bounds each machine by its MaxWorkers, and brings each task's branch
// back into the local repository to be merged there. It is safe for
// concurrent use.
type Pool struct {
	opts PoolOptions
	log  *slog.Logger

	mu       sync.Mutex
	machines map[string]*pooled
	tasks    map[taskKey]*placement
	sessions map[session.ID]string // session → machine
	closed   bool

	// probes try lost machines again until they answer; they end with
	// the pool (Close).
	probes     sync.WaitGroup
	stopProbes context.CancelFunc
	probeCtx   context.Context
}

type taskKey struct{ run, task string }

type placement struct {
	machine string
	local   string // the local repository
	repo    *Repo
	dir     string
}

type pooled struct {
	target Target
	m      *Machine
	host   *claudecode.Host
	repos  map[string]*Repo // by local repository root
	busy   int
	// downUntil: no new worker goes there before (MarkDown).
	downUntil time.Time
	// lostSince: since then the machine cannot be reached (zero: it
	// can, as far as Baton knows); probing: a probe tries it again.
	lostSince time.Time
	probing   bool
	// room is the machine's memory at the last reading (Place); placed
	// are when workers were placed there lately (Room.Starting).
	room   Room
	placed []time.Time
}

// NewPool makes a pool of the targets; nothing connects until a task is
// placed.
func NewPool(opts PoolOptions) (*Pool, error) {
	if opts.StateDir == "" {
		return nil, errors.New("a machine pool needs a state folder")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.ProbeEvery <= 0 {
		opts.ProbeEvery = 2 * time.Second
	}
	if opts.MemoryEvery <= 0 {
		opts.MemoryEvery = 2 * time.Second
	}
	if opts.ReadMemory == nil {
		opts.ReadMemory = func(ctx context.Context, m *Machine) (int64, error) {
			free, _, err := m.Client.Memory(ctx)
			return free, err
		}
	}
	p := &Pool{opts: opts, log: log, machines: map[string]*pooled{}, tasks: map[taskKey]*placement{}, sessions: map[session.ID]string{}}
	p.probeCtx, p.stopProbes = context.WithCancel(context.Background())
	for _, t := range opts.Targets {
		t = t.Normalized()
		if err := t.Validate(); err != nil {
			return nil, err
		}
		p.machines[t.Name] = &pooled{target: t, repos: map[string]*Repo{}}
	}
	return p, nil
}

// Place chooses the machine of names (in their order) that has a free
// place for the worker of task taskID of run runID, and memory for one
// more CLI (memory.go), and takes that place; "" when none has (the
// worker runs here). A task placed before keeps its machine.
func (p *Pool) Place(runID, taskID string, names []string) string {
	k := taskKey{runID, taskID}
	p.mu.Lock()
	if pl := p.tasks[k]; pl != nil {
		p.mu.Unlock()
		return pl.machine
	}
	var free []string
	for _, n := range names {
		if p.free(n) {
			free = append(free, n)
		}
	}
	p.mu.Unlock()
	for _, n := range free {
		if !p.fits(n) {
			continue
		}
		p.mu.Lock()
		if p.free(n) { // no other run took the last place meanwhile
			pm := p.machines[n]
			pm.busy++
			pm.placed = append(pm.placed, time.Now())
			p.tasks[k] = &placement{machine: n}
			p.mu.Unlock()
			return n
		}
		p.mu.Unlock()
	}
	return ""
}

// free reports whether machine n takes a new worker now: a place is free
// there, and it is neither lost nor marked down. p.mu is held.
func (p *Pool) free(n string) bool {
	pm := p.machines[n]
	now := time.Now()
	return pm != nil && pm.busy < pm.target.MaxWorkers && !p.closed && !now.Before(pm.downUntil) && pm.lostSince.IsZero()
}

// MarkDown keeps new workers off machine name for PoolOptions.DownFor:
// it could not be reached.
func (p *Pool) MarkDown(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pm := p.machines[name]; pm != nil {
		d := p.opts.DownFor
		if d <= 0 {
			d = time.Minute
		}
		pm.downUntil = time.Now().Add(d)
	}
}

// Where is the machine task taskID of run runID was placed on ("" here).
func (p *Pool) Where(runID, taskID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl := p.tasks[taskKey{runID, taskID}]; pl != nil {
		return pl.machine
	}
	return ""
}

// Release frees the task's place on its machine (its worktree there stays
// until Cleanup).
func (p *Pool) Release(runID, taskID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := taskKey{runID, taskID}
	if pl := p.tasks[k]; pl != nil {
		if pm := p.machines[pl.machine]; pm != nil && pm.busy > 0 {
			pm.busy--
		}
		delete(p.tasks, k)
	}
}

// open returns the machine called name, opened with its host.
func (p *Pool) open(name string) (*pooled, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the machine pool is closed")
	}
	pm := p.machines[name]
	if pm == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if pm.m != nil {
		return pm, nil
	}
	m, err := Open(pm.target, p.opts.Machine)
	if err != nil {
		return nil, err
	}
	ho := p.opts.Host
	ho.Launcher, ho.StateDir, ho.Notices = &watched{Launcher: m.Launcher, lost: func(err error) { p.lost(name, err) }}, filepath.Join(p.opts.StateDir, name), p.opts.Notices
	if ho.Path == "" {
		ho.Path = pm.target.ClaudePath
	}
	if ho.Logger == nil {
		ho.Logger = p.log
	}
	h, err := claudecode.New(ho)
	if err != nil {
		_ = m.Close(context.Background())
		return nil, fmt.Errorf("the Claude Code host of %s: %w", name, err)
	}
	pm.m, pm.host = m, h
	return pm, nil
}

// StartTask gives the placed task its worktree on its machine, from commit
// from of the local repository local, and says that session id runs there:
// it returns the task's folder on the machine, where the session starts.
func (p *Pool) StartTask(ctx context.Context, local, runID, taskID, from string, id session.ID) (string, error) {
	name := p.Where(runID, taskID)
	if name == "" {
		return "", fmt.Errorf("task %s of run %s is not placed on a machine", taskID, runID)
	}
	pm, err := p.open(name)
	if err != nil {
		return "", err
	}
	repo, err := p.repo(ctx, pm, local)
	if err != nil {
		return "", p.lost(name, downErr(err))
	}
	t, err := repo.StartTask(ctx, runID, taskID, from)
	if err != nil {
		return "", p.lost(name, downErr(err))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl := p.tasks[taskKey{runID, taskID}]; pl != nil {
		pl.repo, pl.dir, pl.local = repo, t.Dir, local
	}
	p.sessions[id] = name
	return t.Dir, nil
}

// Adopt takes up, after a restart, the worker of task taskID of run
// runID that was placed on machine name with session id, for the local
// repository local: it holds its place there again, its session is
// routed to that machine's host (which finds it in its state folder and
// resumes its conversation there), and Bring brings its branch. Nothing
// connects until the session is used.
func (p *Pool) Adopt(runID, taskID, name, local string, id session.ID) error {
	if _, err := p.open(name); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := taskKey{runID, taskID}
	if p.tasks[k] == nil {
		p.machines[name].busy++
		p.tasks[k] = &placement{machine: name, local: local}
	}
	if id != "" {
		p.sessions[id] = name
	}
	return nil
}

func (p *Pool) repo(ctx context.Context, pm *pooled, local string) (*Repo, error) {
	p.mu.Lock()
	r := pm.repos[local]
	p.mu.Unlock()
	if r != nil {
		return r, nil
	}
	r, err := pm.m.Repo(ctx, local)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	pm.repos[local] = r
	p.mu.Unlock()
	return r, nil
}

// Bring commits on the machine what the task's worker left uncommitted
// and fetches the task's branch into the local repository, where
// worktree.Run.Merge merges it; it returns the branch's tip.
func (p *Pool) Bring(ctx context.Context, runID, taskID, message string) (string, error) {
	p.mu.Lock()
	pl := p.tasks[taskKey{runID, taskID}]
	p.mu.Unlock()
	if pl == nil || (pl.repo == nil && pl.local == "") {
		return "", fmt.Errorf("task %s of run %s has no worktree on a machine", taskID, runID)
	}
	if pl.repo == nil {
		// Adopted after a restart: find the copy there.
		pm, err := p.open(pl.machine)
		if err != nil {
			return "", err
		}
		if pl.repo, err = p.repo(ctx, pm, pl.local); err != nil {
			return "", err
		}
	}
	if _, err := pl.repo.Commit(ctx, runID, taskID, message); err != nil {
		return "", err
	}
	return pl.repo.Fetch(ctx, runID, taskID)
}

// EndRun frees every place of the run and removes its worktrees and
// branches on the machines (Cleanup).
func (p *Pool) EndRun(ctx context.Context, runID string) error {
	p.mu.Lock()
	for k, pl := range p.tasks {
		if k.run != runID {
			continue
		}
		if pm := p.machines[pl.machine]; pm != nil && pm.busy > 0 {
			pm.busy--
		}
		delete(p.tasks, k)
	}
	p.mu.Unlock()
	return p.Cleanup(ctx, runID)
}

// Cleanup removes the run's worktrees and branches on every machine that
// had its tasks.
func (p *Pool) Cleanup(ctx context.Context, runID string) error {
	p.mu.Lock()
	var repos []*Repo
	for _, pm := range p.machines {
		for _, r := range pm.repos {
			repos = append(repos, r)
		}
	}
	p.mu.Unlock()
	var errs []error
	for _, r := range repos {
		errs = append(errs, r.Cleanup(ctx, runID))
	}
	return errors.Join(errs...)
}

// Host is the Claude Code host of the machine session id runs on; false
// when it runs here.
func (p *Pool) Host(id session.ID) (*claudecode.Host, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name, ok := p.sessions[id]
	if !ok {
		return nil, false
	}
	pm := p.machines[name]
	if pm == nil || pm.host == nil {
		return nil, false
	}
	return pm.host, true
}

// hosts are the machines' open hosts.
func (p *Pool) hosts() []*claudecode.Host {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*claudecode.Host
	names := make([]string, 0, len(p.machines))
	for n := range p.machines {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if h := p.machines[n].host; h != nil {
			out = append(out, h)
		}
	}
	return out
}

// Close closes every machine's host, then its connection.
func (p *Pool) Close(ctx context.Context) error {
	p.stopProbes()
	p.probes.Wait()
	p.mu.Lock()
	p.closed = true
	var open []*pooled
	for _, pm := range p.machines {
		if pm.m != nil {
			open = append(open, pm)
		}
	}
	p.mu.Unlock()
	var errs []error
	for _, pm := range open {
		errs = append(errs, pm.host.Close(ctx), pm.m.Close(ctx))
	}
	return errors.Join(errs...)
}

// downErr makes an error of ssh (the machine unreachable, lost, its host
// key unknown or changed, the login refused) match session.ErrHostLost
// too: the machine cannot take the worker now, which runs elsewhere.
func downErr(err error) error {
	var se *SSHError
	if errors.As(err, &se) && !errors.Is(err, session.ErrHostLost) {
		return fmt.Errorf("%w (%w)", err, session.ErrHostLost)
	}
	return err
}
