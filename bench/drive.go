package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// recorder is the engine's Emitter and the simulator's OnEntry hook: it
// notes when each transcript entry is published and when the engine says
// each worker completed.
type recorder struct {
	mu sync.Mutex
	// first and last are the publication times of the first entry (the
	// prompt) and the latest entry of each session.
	first, last map[string]time.Time
	// completed is when worker:completed was emitted, per run and task.
	completed map[string]map[string]time.Time
	// bySession is when worker:completed was emitted, per session.
	bySession map[string]time.Time
	// detect holds, per worker:completed, the time since the session's
	// last entry (its result entry) was published.
	detect   []time.Duration
	running  int
	problems []string
	// memoryWaits counts worker:waitingMemory events; the first one's
	// message is kept.
	memoryWaits     int
	firstMemoryWait string
	ready           chan string

	// For the breakdown of each detection (tapHost fills these).
	notices  map[string][]time.Time
	reads    map[string]span // the latest Read of each session
	archives map[string]span // the Archive of each session (after its event)
	parts    []breakdown
}

// span is the start and end of one host call.
type span struct{ from, to time.Time }

// breakdown splits one detection into its steps.
type breakdown struct {
	Transport time.Duration // result entry published → notice in Go
	Wake      time.Duration // notice in Go → the engine starts its Read
	Read      time.Duration // the Read over CDP
	Commit    time.Duration // parse, SQLite commit and emit
	// Total is the whole detection; Ahead counts the other workers of
	// the same run whose completion the engine emitted between this
	// one's notice and its event (it handles them one at a time).
	Total time.Duration
	Ahead int
}

func newRecorder() *recorder {
	return &recorder{first: map[string]time.Time{}, last: map[string]time.Time{},
		completed: map[string]map[string]time.Time{}, bySession: map[string]time.Time{}, ready: make(chan string, 64),
		notices: map[string][]time.Time{}, reads: map[string]span{}, archives: map[string]span{}}
}

// onEntry is simulator.Options.OnEntry; it runs under the simulator's lock
// and only records.
func (r *recorder) onEntry(id string, at time.Time) {
	r.mu.Lock()
	if _, ok := r.first[id]; !ok {
		r.first[id] = at
	}
	r.last[id] = at
	r.mu.Unlock()
}

// Emit implements engine.Emitter. It runs on the run's goroutine and never
// blocks.
func (r *recorder) Emit(name string, p engine.Payload) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch name {
	case engine.EventWorkerStarted:
		r.running++
	case engine.EventWorkerCompleted:
		r.running--
		if r.completed[p.RunID] == nil {
			r.completed[p.RunID] = map[string]time.Time{}
		}
		r.completed[p.RunID][p.TaskID] = now
		if p.Worker != nil {
			sid := p.Worker.SessionID
			r.bySession[sid] = now
			if at, ok := r.last[sid]; ok {
				r.detect = append(r.detect, now.Sub(at))
				r.split(p.RunID, sid, at, now)
			}
		}
	case engine.EventWorkerFailed, engine.EventWorkerTimeout, engine.EventWorkerCancelled:
		r.running--
		r.problems = append(r.problems, fmt.Sprintf("%s %s %s: %s", name, p.RunID, p.TaskID, p.Message))
	case engine.EventWorkerMemory:
		if r.memoryWaits++; r.memoryWaits == 1 {
			r.firstMemoryWait = p.Message
		}
	case engine.EventError:
		r.problems = append(r.problems, fmt.Sprintf("%s %s: %s", name, p.RunID, p.Message))
	case engine.EventTasksReady:
		select {
		case r.ready <- p.RunID:
		default:
		}
	}
}

// split records the breakdown of one detection when the tap saw its
// notice and Read. (The engine archives the session after the event, in the
// background, so the Archive is not part of the detection.) r.mu is held.
func (r *recorder) split(runID, sid string, result, emitted time.Time) {
	rd, ok := r.reads[sid]
	if !ok {
		return
	}
	var notice time.Time
	for _, t := range r.notices[sid] {
		if !t.After(rd.from) {
			notice = t
		}
	}
	if notice.IsZero() {
		return
	}
	ahead := 0
	for _, t := range r.completed[runID] {
		if !t.Before(notice) && t.Before(emitted) {
			ahead++
		}
	}
	r.parts = append(r.parts, breakdown{Transport: notice.Sub(result), Wake: rd.from.Sub(notice),
		Read: rd.to.Sub(rd.from), Commit: emitted.Sub(rd.to),
		Total: emitted.Sub(result), Ahead: ahead})
}

func (r *recorder) runningNow() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

// agentTime is the time from the session's prompt entry to its last entry.
func (r *recorder) agentTime(sessionID string) (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok1 := r.first[sessionID]
	l, ok2 := r.last[sessionID]
	return l.Sub(f), ok1 && ok2
}

// sessionsOf lists the sessions that worked on w's task in run runID, in
// order: those of the attempts that ended before its last one (a worker
// retried in a new session, such as when its agent refused to rewrite a
// file another worker of the layer had changed since it read it), then
// w.SessionID. Their agent work is the task's; the time from a failed
// attempt's result to its retry's start is scheduling.
func (r *recorder) sessionsOf(runID string, w store.Worker) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessionsOfLocked(runID, w)
}

func (r *recorder) sessionsOfLocked(runID string, w store.Worker) []string {
	var out []string
	for n := 0; n <= w.RetryCount; n++ {
		id, err := engine.WorkerSessionID(runID, engine.AttemptPart(w.TaskID, n))
		if s := string(id); err == nil && s != w.SessionID {
			if _, ok := r.last[s]; ok {
				out = append(out, s)
			}
		}
	}
	return append(out, w.SessionID)
}

// templates serves the documentation template under several ids, one per
// maxWorkers setting.
type templates struct {
	mu sync.Mutex
	m  map[string]template.Template
}

func (t *templates) Get(id string) (template.Template, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tp, ok := t.m[id]
	if !ok {
		return template.Template{}, fmt.Errorf("bench template %q: %w", id, template.ErrNotFound)
	}
	return tp, nil
}

// newTemplates loads the system template documentation and returns a
// source of copies with autoConfirm off (the bench reshapes each plan at
// confirmation) and the given maxWorkers.
func newTemplates(dir string, maxWorkers ...int) (*templates, error) {
	mgr, err := template.New(dir, template.Options{Logger: quiet})
	if err != nil {
		return nil, err
	}
	base, err := mgr.Get("documentation")
	if err != nil {
		return nil, err
	}
	t := &templates{m: map[string]template.Template{}}
	for _, n := range maxWorkers {
		tp := base
		tp.ID = fmt.Sprintf("bench-%d", n)
		tp.Config.AutoConfirm = false
		tp.Config.MaxWorkers = n
		tp.Config.MaxTasks = 100
		t.m[tp.ID] = tp
	}
	return t, nil
}

var folderNames = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}

// makeProject writes a project with the given number of top-level folders
// (at most 8) of three small files each: the simulator's planner proposes
// one task per folder plus one "integrate" task that depends on them all.
func makeProject(dir string, folders int) ([]string, error) {
	names := folderNames[:folders]
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
			return nil, err
		}
		files := map[string]string{
			n + ".go":   fmt.Sprintf("// Package %s is part of the bench project.\npackage %s\n\n%s", n, n, strings.Repeat("// filler line\n", 40)),
			"util.go":   fmt.Sprintf("package %s\n\nfunc helper() int { return %d }\n", n, len(n)),
			"README.md": fmt.Sprintf("# %s\n\nOne part of the bench project.\n", n),
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, n, name), []byte(body), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return names, nil
}

// layered reshapes the proposed plan into layers of width tasks and total
// tasks in all: the proposed tasks (their dependencies cleared) start the
// first layer, new tasks fill it and the next ones, and every task of a
// layer depends on every task of the layer before.
func layered(proposed []store.Task, width, total int, folders []string) engine.Modifications {
	var mods engine.Modifications
	var layer, prev []string
	for _, t := range proposed {
		layer = append(layer, t.ID)
		if len(t.Dependencies) > 0 {
			none := []string{}
			mods.Edit = append(mods.Edit, engine.TaskEdit{ID: t.ID, Dependencies: &none})
		}
	}
	for n := len(proposed) + 1; n <= total; n++ {
		if len(layer) >= width {
			prev, layer = layer, nil
		}
		id := fmt.Sprintf("task_%03d", n)
		f := folders[n%len(folders)]
		mods.Add = append(mods.Add, engine.NewTask{ID: id, Title: fmt.Sprintf("Document %s, part %d", f, n),
			Description: fmt.Sprintf("Write the guide for %s, part %d.", f, n), Scope: []string{f + "/"},
			Priority: 5, Dependencies: slices.Clone(prev)})
		layer = append(layer, id)
	}
	return mods
}

// driver starts runs on one engine, confirms each with its reshaped plan,
// and waits for them.
type driver struct {
	eng *engine.Engine
	rec *recorder

	mu        sync.Mutex
	plans     map[string]func([]store.Task) engine.Modifications
	confirmed map[string]time.Time
	errs      []error
}

func newDriver(ctx context.Context, eng *engine.Engine, rec *recorder) *driver {
	d := &driver{eng: eng, rec: rec, plans: map[string]func([]store.Task) engine.Modifications{}, confirmed: map[string]time.Time{}}
	go d.confirmLoop(ctx)
	return d
}

func (d *driver) confirmLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-d.rec.ready:
			go d.confirm(ctx, id)
		}
	}
}

func (d *driver) confirm(ctx context.Context, runID string) {
	d.mu.Lock()
	plan := d.plans[runID]
	_, done := d.confirmed[runID]
	d.mu.Unlock()
	if plan == nil || done {
		return
	}
	snap, err := d.eng.Snapshot(ctx, runID)
	if err != nil {
		d.fail(fmt.Errorf("snapshot %s: %w", runID, err))
		return
	}
	at := time.Now()
	d.mu.Lock()
	d.confirmed[runID] = at
	d.mu.Unlock()
	if err := d.eng.Confirm(ctx, runID, plan(snap.Tasks)); err != nil {
		d.fail(fmt.Errorf("confirm %s: %w", runID, err))
	}
}

func (d *driver) fail(err error) {
	d.mu.Lock()
	d.errs = append(d.errs, err)
	d.mu.Unlock()
}

// start creates and starts a run of template tmplID in dir, to be confirmed
// with plan.
func (d *driver) start(ctx context.Context, tmplID, dir string, plan func([]store.Task) engine.Modifications) (string, error) {
	run, err := d.eng.Create(ctx, engine.CreateRequest{TemplateID: tmplID, Cwd: dir, Request: "Document this project"})
	if err != nil {
		return "", err
	}
	d.mu.Lock()
	d.plans[run.ID] = plan
	d.mu.Unlock()
	if err := d.eng.Start(ctx, run.ID); err != nil {
		return "", err
	}
	return run.ID, nil
}

// wait waits for run id and checks that every task completed.
func (d *driver) wait(ctx context.Context, id string) (engine.Snapshot, error) {
	if _, err := d.eng.Wait(ctx, id); err != nil {
		d.mu.Lock()
		errs := d.errs
		d.mu.Unlock()
		return engine.Snapshot{}, fmt.Errorf("wait for run %s: %w (%v)", id, err, errs)
	}
	snap, err := d.eng.Snapshot(ctx, id)
	if err != nil {
		return snap, err
	}
	r := snap.Run
	if r.Status != "completed" || r.TasksCompleted != r.TasksTotal {
		return snap, fmt.Errorf("run %s ended %s with %d of %d tasks completed: %s %s", id, r.Status, r.TasksCompleted, r.TasksTotal, r.Error, r.Message)
	}
	return snap, nil
}

func (d *driver) confirmedAt(id string) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.confirmed[id]
}

// startFlat starts one run per width, each on a project of its own with its
// plan reshaped into width tasks without dependencies (maxWorkers width),
// and returns their ids.
func (d *driver) startFlat(ctx context.Context, dir string, widths []int) ([]string, error) {
	var ids []string
	for i, width := range widths {
		proj := filepath.Join(dir, fmt.Sprintf("project-%d", i))
		folders, err := makeProject(proj, min(8, width-1))
		if err != nil {
			return nil, err
		}
		id, err := d.start(ctx, fmt.Sprintf("bench-%d", width), proj, func(ts []store.Task) engine.Modifications {
			return layered(ts, width, width, folders)
		})
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// waitAll waits for every run and returns the errors of those that failed.
func (d *driver) waitAll(ctx context.Context, ids []string) []error {
	var errs []error
	for _, id := range ids {
		if _, err := d.wait(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
