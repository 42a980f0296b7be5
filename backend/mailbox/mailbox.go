// Package mailbox is the file mailbox transport of seed 001: Baton, as the
// team lead, writes task_assignment messages to
// <cwd>/.claude-orchestrator/tasks/messages/to-developer.json and watches
// to-team-lead.json (fsnotify, with a slow poll as a safety net) for the
// developers' completion_report messages; tasks/queue.json, tasks/status.json
// and logs/log.md are kept as seed 001 lays them out. Each task moves
// through the review gate of review.go.
//
// Files Baton writes are replaced atomically (temporary file + rename).
// Files agents write are read tolerantly: a missing or empty file holds no
// messages, and a file that is not valid JSON (half-written) is read again
// after a short backoff and on its next change; it never stops the mailbox.
//
// What is new in to-team-lead.json is decided by the task states in
// queue.json, not by timestamps (agents copy the example's timestamp): a
// valid report counts only for a task that is in_progress, and delivering
// it moves the task to awaiting_review and persists that before the report
// is sent on Reports. So a report is delivered once, also across a restart.
// lastRead is written as seed 001 says: the time Baton last took messages
// from to-team-lead.json, and in both files the time their messages were
// cleared. A rejected task's reports are removed
// from to-team-lead.json (their content stays in queue.json and log.md) so
// that its next report is the only one; a completed task's messages are
// cleared from both message files. A malformed message gives one error
// Report for its task per session and stays in the file, so nothing is
// lost; the developer can append a corrected report.
package mailbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/baton-app/baton/backend/safefs"
)

// Paths below the project folder (seed 001 "File Locations").
const (
	DirName        = ".claude-orchestrator"
	QueueFile      = "tasks/queue.json"
	StatusFile     = "tasks/status.json"
	ToDeveloper    = "tasks/messages/to-developer.json"
	ToTeamLead     = "tasks/messages/to-team-lead.json"
	LogFile        = "logs/log.md"
	timestampForm  = "2006-01-02T15:04:05.000Z07:00"
	defaultPoll    = 2 * time.Second
	firstRetry     = 25 * time.Millisecond
	maxRetry       = time.Second
	reportsBuffer  = 64
	maxCASAttempts = 5
)

// Options tune a mailbox.
type Options struct {
	// Run names the run the mailbox serves. When the folder holds the
	// mailbox of another run, its queue, status and message files are moved
	// to archive/<that run>-<time>/ and this run starts with empty ones;
	// log.md goes on. "" keeps whatever is there.
	Run string
	// MaxRetries bounds how often a rejected task is retried (the
	// template's maxRetries).
	MaxRetries int
	// PollInterval re-reads to-team-lead.json on a timer in case a change
	// notification is missed; 0 means 2s, a negative value turns polling
	// off.
	PollInterval time.Duration
	// Logger may be nil.
	Logger *slog.Logger
	// Now may be nil (time.Now).
	Now func() time.Time
}

// Report is what the mailbox found for one task: a valid completion report,
// or an error that names the task and why its message was rejected.
type Report struct {
	TaskID string `json:"taskId"`
	// Report is set when Err is nil.
	Report *CompletionReport `json:"report,omitempty"`
	// Err wraps ErrMalformed or ErrUnknownTask.
	Err error `json:"-"`
	// Index is the message's position in to-team-lead.json.
	Index int `json:"index"`
}

// QueueTask is one task of queue.json.
type QueueTask struct {
	TaskID   string `json:"taskId"`
	Title    string `json:"title"`
	Platform string `json:"platform"`
	Review
	// LastReport is the last valid completion report taken for the task.
	LastReport *CompletionReport `json:"lastReport,omitempty"`
	UpdatedAt  string            `json:"updatedAt"`
}

// Queue is queue.json.
type Queue struct {
	// Run is the Baton run the queue belongs to (an addition to seed 001).
	Run       string      `json:"run,omitempty"`
	Tasks     []QueueTask `json:"tasks"`
	UpdatedAt string      `json:"updatedAt,omitempty"`
}

// AgentStatus is one agent's line in status.json.
type AgentStatus struct {
	State string   `json:"state"`
	Tasks []string `json:"tasks"`
}

// Status is status.json: what each agent is doing, derived from the queue.
type Status struct {
	TeamLead  AgentStatus    `json:"teamLead"`
	Developer AgentStatus    `json:"developer"`
	Counts    map[string]int `json:"counts"`
	UpdatedAt string         `json:"updatedAt"`
}

// Mailbox is the file mailbox of one project folder. Its methods are safe
// for concurrent use.
type Mailbox struct {
	root    string
	dir     safefs.Dir // every file is read and written through it
	log     *slog.Logger
	now     func() time.Time
	opts    Options
	reports chan Report
	watcher *fsnotify.Watcher
	kick    chan struct{}

	mu     sync.Mutex
	queue  Queue
	warned map[string]bool // fingerprints of messages already reported as errors
	closed bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open prepares <cwd>/.claude-orchestrator (creating the folders and empty
// message files), loads queue.json, and starts watching to-team-lead.json;
// reports already waiting there are delivered at once. Close stops it.
func Open(cwd string, opts Options) (*Mailbox, error) {
	m, err := openFiles(cwd, opts)
	if err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("open mailbox: watch: %w", err)
	}
	if err := w.Add(filepath.Dir(m.path(ToTeamLead))); err != nil {
		return nil, errors.Join(fmt.Errorf("open mailbox: watch: %w", err), w.Close())
	}
	m.watcher = w
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.wg.Add(1)
	go m.run(ctx)
	return m, nil
}

// openFiles prepares the folder and loads the queue, without watching.
func openFiles(cwd string, opts Options) (*Mailbox, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = defaultPoll
	}
	m := &Mailbox{
		root:    filepath.Join(cwd, DirName),
		dir:     safefs.Dir{Base: cwd, Sub: DirName},
		log:     opts.Logger.With("component", "mailbox"),
		now:     opts.Now,
		opts:    opts,
		reports: make(chan Report, reportsBuffer),
		kick:    make(chan struct{}, 1),
		warned:  map[string]bool{},
		cancel:  func() {},
	}
	for _, d := range []string{path.Dir(ToTeamLead), path.Dir(LogFile)} {
		if err := m.dir.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("open mailbox: %w", err)
		}
	}
	if err := m.loadQueue(); err != nil {
		return nil, fmt.Errorf("open mailbox: %w", err)
	}
	if err := m.claim(opts.Run); err != nil {
		return nil, fmt.Errorf("open mailbox: %w", err)
	}
	for _, f := range []string{ToDeveloper, ToTeamLead} {
		if _, err := m.dir.Stat(f); errors.Is(err, os.ErrNotExist) {
			data, _ := messageFile{}.encode()
			if err := m.dir.WriteFile(f, data, 0o644); err != nil {
				return nil, fmt.Errorf("open mailbox: %w", err)
			}
		}
	}
	return m, nil
}

// ArchiveDir holds the mailboxes of earlier runs, under .claude-orchestrator.
const ArchiveDir = "archive"

// claim makes the mailbox run's: another run's queue, status and messages
// are archived first, so that its tasks (the same ids, task_001 …) do not
// stand in the way of this run's.
func (m *Mailbox) claim(run string) error {
	if run == "" || m.queue.Run == run {
		return nil
	}
	files := []string{QueueFile, StatusFile, ToDeveloper, ToTeamLead}
	var present []string
	for _, f := range files {
		if _, err := m.dir.Stat(f); err == nil {
			present = append(present, f)
		}
	}
	if len(present) > 0 {
		earlier := m.queue.Run
		if earlier == "" {
			earlier = "earlier"
		}
		if !validRunName(earlier) {
			err := &safefs.EscapeError{Source: DirName + "/" + QueueFile, Path: earlier, Folder: "the folder " + filepath.Join(m.root, ArchiveDir)}
			m.log.Warn("refused run name", "err", err)
			m.logf("%s", err.Error())
			earlier = "earlier"
		}
		dest := path.Join(ArchiveDir, earlier+"-"+m.now().UTC().Format("20060102-150405"))
		for _, f := range present {
			to := path.Join(dest, f)
			if err := m.dir.MkdirAll(path.Dir(to), 0o755); err != nil {
				return err
			}
			if err := m.dir.Rename(f, to); err != nil {
				return fmt.Errorf("archive %s: %w", f, err)
			}
		}
		m.logf("Run %s starts; the mailbox of %s is in %s/%s.", run, earlier, DirName, dest)
	}
	m.queue = Queue{Run: run, Tasks: []QueueTask{}}
	return m.saveQueue()
}

// validRunName reports whether a run name read from queue.json can name an
// archive folder: one path element of letters, digits, '-', '_' and '.',
// not "." or "..".
func validRunName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// Dir returns the .claude-orchestrator folder.
func (m *Mailbox) Dir() string { return m.root }

// path is the host path of a mailbox file, for the watcher and messages
// only: files are opened through m.dir.
func (m *Mailbox) path(rel string) string { return m.dir.Path(rel) }

func (m *Mailbox) stamp() string { return m.now().UTC().Format(timestampForm) }

// Reports delivers completion reports and message errors; it is closed by
// Close.
func (m *Mailbox) Reports() <-chan Report { return m.reports }

// Close stops watching, waits for the watcher goroutine and closes Reports.
// It is safe to call more than once.
func (m *Mailbox) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	var err error
	if m.watcher != nil {
		err = m.watcher.Close()
	}
	close(m.reports)
	if err != nil {
		return fmt.Errorf("close mailbox: %w", err)
	}
	return nil
}

// Rescan asks the watcher to read to-team-lead.json now.
func (m *Mailbox) Rescan() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// run owns the watcher: it re-reads to-team-lead.json on each change, on a
// backoff while the file is broken, and on the poll timer.
func (m *Mailbox) run(ctx context.Context) {
	defer m.wg.Done()
	var poll <-chan time.Time
	if m.opts.PollInterval > 0 {
		t := time.NewTicker(m.opts.PollInterval)
		defer t.Stop()
		poll = t.C
	}
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	backoff := firstRetry
	scan := func() {
		out, broken := m.scan()
		if broken {
			retry.Reset(backoff)
			backoff = min(backoff*2, maxRetry)
		} else {
			backoff = firstRetry
		}
		for _, r := range out {
			select {
			case m.reports <- r:
			case <-ctx.Done():
				return
			}
		}
	}
	scan()
	base := filepath.Base(ToTeamLead)
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-m.watcher.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) == base && !ev.Has(fsnotify.Chmod) {
				scan()
			}
		case err, ok := <-m.watcher.Errors:
			if !ok {
				return
			}
			m.log.Warn("watch error; relying on the poll", "err", err)
		case <-retry.C:
			scan()
		case <-poll:
			scan()
		case <-m.kick:
			scan()
		}
	}
}

// scan reads to-team-lead.json and takes what is new. broken says the file
// could not be read and should be read again soon.
func (m *Mailbox) scan() (out []Report, broken bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false
	}
	mf, _, st, err := readMessageFile(m.dir, ToTeamLead)
	switch st {
	case fileMissing, fileEmpty:
		return nil, false
	case fileBroken:
		m.log.Debug("to-team-lead.json is not readable yet; retrying", "err", err)
		return nil, true
	}
	changed := false
	for i, raw := range mf.Messages {
		rep, id, perr := parseReport(raw)
		t := m.task(id)
		if perr != nil {
			if t != nil && t.State != InProgress {
				continue // a stale message of a task that has moved on
			}
			if m.warnOnce(raw) {
				err := fmt.Errorf("message %d of to-team-lead.json for task %q: %v: %w", i, id, perr, ErrMalformed)
				out = append(out, Report{TaskID: id, Err: err, Index: i})
				m.logf("%s: malformed completion report: %v", orUnknown(id), perr)
			}
			continue
		}
		if t == nil {
			if m.warnOnce(raw) {
				err := fmt.Errorf("message %d of to-team-lead.json reports on task %q, which was never assigned: %w", i, id, ErrUnknownTask)
				out = append(out, Report{TaskID: id, Err: err, Index: i})
				m.logf("%s: completion report for a task that was never assigned", id)
			}
			continue
		}
		if t.State != InProgress {
			continue // already taken
		}
		if err := t.Submit(); err != nil {
			continue
		}
		rc := rep
		t.LastReport = &rc
		t.UpdatedAt = m.stamp()
		changed = true
		out = append(out, Report{TaskID: id, Report: &rc, Index: i})
		m.logf("%s: completion report, build %s: %s", id, safefs.OneLine(rep.BuildResult.Status), safefs.OneLine(rep.Summary))
	}
	if changed {
		if err := m.saveQueue(); err != nil {
			m.log.Error("save queue", "err", err)
		}
		if err := m.editTeamLead(func(mf *messageFile) { mf.LastRead = m.stamp() }); err != nil {
			m.log.Warn("update lastRead", "err", err)
		}
	}
	return out, false
}

func orUnknown(id string) string {
	if id == "" {
		return "(no task id)"
	}
	return id
}

// warnOnce reports whether a malformed message is seen for the first time
// this session; the message is keyed by its compact JSON, so rewriting the
// file with another indentation does not make it new.
func (m *Mailbox) warnOnce(raw json.RawMessage) bool {
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		c.Reset()
		c.Write(raw)
	}
	sum := sha256.Sum256(c.Bytes())
	k := string(sum[:])
	if m.warned[k] {
		return false
	}
	m.warned[k] = true
	return true
}

func (m *Mailbox) task(id string) *QueueTask {
	if id == "" {
		return nil
	}
	for i := range m.queue.Tasks {
		if m.queue.Tasks[i].TaskID == id {
			return &m.queue.Tasks[i]
		}
	}
	return nil
}

// Assign sends a task to the developers: the task (new, or pending again
// after a rejection) moves to in_progress, and its task_assignment replaces
// any earlier assignment of the task in to-developer.json. Type is set, and
// Timestamp when empty; FilesToCreate is written as [] when nil. On a retry
// the last rejection goes along as previousRejection.
func (m *Mailbox) Assign(ctx context.Context, a TaskAssignment) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("assign %s: %w", a.TaskID, err)
	}
	if err := validateAssignment(a); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("assign %s: %w", a.TaskID, ErrClosed)
	}
	t := m.task(a.TaskID)
	isNew := t == nil
	next := QueueTask{TaskID: a.TaskID, Title: a.Title, Platform: a.Platform, Review: Review{MaxRetries: m.opts.MaxRetries}}
	if !isNew {
		next = *t
		next.Title, next.Platform = a.Title, a.Platform
	}
	if err := next.Start(); err != nil {
		return fmt.Errorf("assign %s: %w", a.TaskID, err)
	}
	a.Type = TypeTaskAssignment
	if a.Timestamp == "" {
		a.Timestamp = m.stamp()
	}
	if a.FilesToCreate == nil {
		a.FilesToCreate = []string{}
	}
	if next.Reason != "" && a.PreviousRejection == nil {
		a.PreviousRejection = &Rejection{Reason: next.Reason, RequiredChanges: next.RequiredChanges}
	}
	msg, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("assign %s: %w", a.TaskID, err)
	}
	if err := m.editFile(ToDeveloper, func(mf *messageFile) {
		mf.Messages = slices.DeleteFunc(mf.Messages, func(raw json.RawMessage) bool { return messageTask(raw) == a.TaskID })
		mf.Messages = append(mf.Messages, msg)
	}); err != nil {
		return fmt.Errorf("assign %s: %w", a.TaskID, err)
	}
	next.UpdatedAt = m.stamp()
	if isNew {
		m.queue.Tasks = append(m.queue.Tasks, next)
	} else {
		*t = next
	}
	if err := m.saveQueue(); err != nil {
		return fmt.Errorf("assign %s: %w", a.TaskID, err)
	}
	verb := "assigned"
	if next.Retries > 0 {
		verb = fmt.Sprintf("assigned again (retry %d of %d)", next.Retries, next.MaxRetries)
	}
	m.logf("%s: %s %q (%s)", a.TaskID, verb, a.Title, safefs.OneLine(a.Platform))
	m.Rescan() // a report may already be waiting
	return nil
}

// Reported records a completion report that reached the team lead another
// way (in the developer's session transcript): the task, in progress, now
// awaits review, as if the report had come through to-team-lead.json. A task
// that already left in_progress is left as it is.
func (m *Mailbox) Reported(rep CompletionReport) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.task(rep.TaskID)
	if t == nil {
		return fmt.Errorf("report on %s: %w", rep.TaskID, ErrUnknownTask)
	}
	if t.State != InProgress {
		return nil
	}
	next := *t
	if err := next.Submit(); err != nil {
		return fmt.Errorf("report on %s: %w", rep.TaskID, err)
	}
	rep.Type = TypeCompletionReport
	next.LastReport = &rep
	next.UpdatedAt = m.stamp()
	*t = next
	m.logf("%s: completion report in the session, build %s: %s", rep.TaskID, safefs.OneLine(orNone(rep.BuildResult.Status)), safefs.OneLine(rep.Summary))
	return m.saveQueue()
}

func orNone(s string) string {
	if s == "" {
		return "not reported"
	}
	return s
}

// Approve completes a task awaiting review and clears its messages from
// both message files.
func (m *Mailbox) Approve(taskID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.task(taskID)
	if t == nil {
		return fmt.Errorf("approve %s: %w", taskID, ErrUnknownTask)
	}
	next := *t
	if err := next.Approve(); err != nil {
		return fmt.Errorf("approve %s: %w", taskID, err)
	}
	var errs []error
	for _, f := range []string{ToDeveloper, ToTeamLead} {
		errs = append(errs, m.editFile(f, func(mf *messageFile) {
			// Cleared as seed 001 clears a file: lastRead says when.
			mf.Messages = slices.DeleteFunc(mf.Messages, func(raw json.RawMessage) bool { return messageTask(raw) == taskID })
			mf.LastRead = m.stamp()
		}))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("approve %s: clear messages: %w", taskID, err)
	}
	next.UpdatedAt = m.stamp()
	*t = next
	m.logf("%s: approved", taskID)
	if err := m.saveQueue(); err != nil {
		return fmt.Errorf("approve %s: %w", taskID, err)
	}
	return nil
}

// Reject rejects a task (awaiting review, or in progress) with the reason
// and the required changes, removes its reports from to-team-lead.json,
// and sends it back to pending when retries remain; Assign it again to
// retry. With no retries left the task stays rejected and the error wraps
// ErrRetriesExhausted.
func (m *Mailbox) Reject(taskID, reason string, requiredChanges []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.task(taskID)
	if t == nil {
		return fmt.Errorf("reject %s: %w", taskID, ErrUnknownTask)
	}
	next := *t
	if err := next.Reject(reason, requiredChanges); err != nil {
		return fmt.Errorf("reject %s: %w", taskID, err)
	}
	if err := m.editTeamLead(func(mf *messageFile) {
		mf.Messages = slices.DeleteFunc(mf.Messages, func(raw json.RawMessage) bool { return messageTask(raw) == taskID })
	}); err != nil {
		return fmt.Errorf("reject %s: %w", taskID, err)
	}
	m.logf("%s: rejected: %s%s", taskID, safefs.OneLine(reason), bulletList(requiredChanges))
	retryErr := next.Retry()
	next.UpdatedAt = m.stamp()
	*t = next
	if err := m.saveQueue(); err != nil {
		return fmt.Errorf("reject %s: %w", taskID, err)
	}
	if retryErr != nil {
		m.logf("%s: no retries left; the task stays rejected", taskID)
		return fmt.Errorf("reject %s: %w", taskID, retryErr)
	}
	return nil
}

func bulletList(items []string) string {
	var b strings.Builder
	for _, s := range items {
		b.WriteString("\n  - ")
		b.WriteString(safefs.OneLine(s))
	}
	return b.String()
}

// Task returns a task of the queue.
func (m *Mailbox) Task(taskID string) (QueueTask, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.task(taskID); t != nil {
		c := *t
		c.RequiredChanges = slices.Clone(c.RequiredChanges)
		return c, true
	}
	return QueueTask{}, false
}

// Queue returns a copy of the queue.
func (m *Mailbox) Queue() Queue {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.queue
	q.Tasks = slices.Clone(q.Tasks)
	return q
}

// Awaiting returns the reports of the tasks awaiting review, so a restarted
// engine picks up what was delivered before it stopped.
func (m *Mailbox) Awaiting() []Report {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Report
	for _, t := range m.queue.Tasks {
		if t.State == AwaitingReview && t.LastReport != nil {
			r := *t.LastReport
			out = append(out, Report{TaskID: t.TaskID, Report: &r, Index: -1})
		}
	}
	return out
}

// messageTask returns the task id of a raw message ("" if none).
func messageTask(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return taskIDOf(m)
}

// editTeamLead changes to-team-lead.json, which agents write too: the edit
// is applied to the current content and the file is replaced only if
// nobody changed it meanwhile (compare and swap, retried).
func (m *Mailbox) editTeamLead(edit func(*messageFile)) error { return m.editFile(ToTeamLead, edit) }

// editFile reads a message file, applies edit and replaces the file when
// its content is still what was read. A file that is not valid JSON is
// left alone (an error): its content is never thrown away.
func (m *Mailbox) editFile(rel string, edit func(*messageFile)) error {
	name := path.Base(rel)
	for attempt := 0; ; attempt++ {
		mf, raw, st, err := readMessageFile(m.dir, rel)
		if st == fileBroken {
			if attempt < maxCASAttempts {
				time.Sleep(firstRetry << attempt)
				continue
			}
			return fmt.Errorf("%s is not valid JSON, so Baton leaves it as it is: %w: %w", name, err, ErrUnreadable)
		}
		edit(&mf)
		data, err := mf.encode()
		if err != nil {
			return err
		}
		now, err := m.dir.ReadFile(rel)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if !bytes.Equal(now, raw) {
			if attempt < maxCASAttempts {
				continue // changed while we worked: edit the new content
			}
			return fmt.Errorf("%s keeps changing while Baton edits it: %w", name, ErrUnreadable)
		}
		return m.dir.WriteFile(rel, data, 0o644)
	}
}

func (m *Mailbox) loadQueue() error {
	data, err := m.dir.ReadFile(QueueFile)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0) {
		m.queue = Queue{Tasks: []QueueTask{}}
		return nil
	}
	if err != nil {
		return fmt.Errorf("read queue.json: %w", err)
	}
	var q Queue
	if err := json.Unmarshal(data, &q); err != nil {
		return fmt.Errorf("queue.json is not valid (%v); move it aside to start a new queue: %w", err, ErrUnreadable)
	}
	if q.Tasks == nil {
		q.Tasks = []QueueTask{}
	}
	m.queue = q
	return nil
}

// saveQueue writes queue.json and the status.json derived from it.
func (m *Mailbox) saveQueue() error {
	now := m.stamp()
	m.queue.UpdatedAt = now
	data, err := json.MarshalIndent(m.queue, "", "  ")
	if err != nil {
		return fmt.Errorf("encode queue: %w", err)
	}
	if err := m.dir.WriteFile(QueueFile, append(data, '\n'), 0o644); err != nil {
		return err
	}
	st := Status{Counts: map[string]int{}, UpdatedAt: now,
		TeamLead: AgentStatus{State: "idle", Tasks: []string{}}, Developer: AgentStatus{State: "idle", Tasks: []string{}}}
	for _, t := range m.queue.Tasks {
		st.Counts[t.State.String()]++
		switch t.State {
		case InProgress:
			st.Developer.Tasks = append(st.Developer.Tasks, t.TaskID)
		case AwaitingReview:
			st.TeamLead.Tasks = append(st.TeamLead.Tasks, t.TaskID)
		}
	}
	if len(st.Developer.Tasks) > 0 {
		st.Developer.State = "working"
	}
	switch {
	case len(st.TeamLead.Tasks) > 0:
		st.TeamLead.State = "reviewing"
	case len(st.Developer.Tasks) > 0:
		st.TeamLead.State = "waiting"
	}
	data, err = json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode status: %w", err)
	}
	return m.dir.WriteFile(StatusFile, append(data, '\n'), 0o644)
}

// logf appends one entry to logs/log.md (created with a title). Text from
// agents must be passed through safefs.OneLine by the caller; the entry's
// first line is made one line here as well.
func (m *Mailbox) logf(format string, a ...any) {
	f, err := m.dir.OpenFile(LogFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		m.log.Warn("write log.md", "err", err)
		return
	}
	var b strings.Builder
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		b.WriteString("# Development log\n\n")
	}
	fmt.Fprintf(&b, "- %s %s\n", m.stamp(), fmt.Sprintf(format, a...))
	_, err = f.WriteString(b.String())
	err = errors.Join(err, f.Close())
	if err != nil {
		m.log.Warn("write log.md", "err", err)
	}
}
