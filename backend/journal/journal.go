// Package journal keeps the journal of seed 004 in <cwd>/.claude/journal:
// index.md (project, task registry, context map) and one
// task-XXX-name.md file per task (metadata, objective, acceptance
// criteria, and the execution log that workers append to, ending in a
// structured YAML handoff). It parses handoffs, computes the context a
// dependent task gets from them, and archives a finished session to
// journal/archive/session-<date>/.
//
// index.md starts with YAML front matter that holds the state, so a run
// can resume from it; the markdown below it is the same state for people,
// rewritten each time. Task files are written once by Baton and then
// appended to by workers; Baton only changes their "status:" line, with a
// compare-and-swap so an append is never lost. Every file Baton writes is
// replaced atomically.
package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/baton-app/baton/backend/safefs"
)

// Task statuses in the registry.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
	StatusPartial    = "partial"
	StatusBlocked    = "blocked"
)

// Sentinel errors.
var (
	ErrNoJournal   = errors.New("no journal")
	ErrExists      = errors.New("journal exists")
	ErrUnknownTask = errors.New("unknown task")
	ErrNoHandoff   = errors.New("no handoff")
	ErrBadIndex    = errors.New("bad index")
)

// Project is the project metadata of the index.
type Project struct {
	Name    string   `yaml:"name" json:"name"`
	Domain  []string `yaml:"domain,omitempty" json:"domain,omitempty"`
	Request string   `yaml:"request,omitempty" json:"request,omitempty"`
	Started string   `yaml:"started" json:"started"`
}

// Task is one entry of the task registry.
type Task struct {
	ID                 string   `yaml:"id" json:"id"`
	Name               string   `yaml:"name" json:"name"`
	Status             string   `yaml:"status" json:"status"`
	Type               string   `yaml:"type,omitempty" json:"type,omitempty"`
	Complexity         string   `yaml:"complexity,omitempty" json:"complexity,omitempty"`
	Dependencies       []string `yaml:"dependencies,omitempty" json:"dependencies,omitempty"`
	Objective          string   `yaml:"objective" json:"objective"`
	AcceptanceCriteria []string `yaml:"acceptance_criteria,omitempty" json:"acceptance_criteria,omitempty"`
	Assigned           string   `yaml:"assigned,omitempty" json:"assigned,omitempty"`
	// File is the task file's name inside the journal folder.
	File string `yaml:"file" json:"file"`
}

// ContextRef is one entry of the context map: a file and what it is.
type ContextRef struct {
	File        string `yaml:"file" json:"file"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Task        string `yaml:"task,omitempty" json:"task,omitempty"`
}

// Index is the state held by index.md.
type Index struct {
	Project        Project      `yaml:"project" json:"project"`
	Tasks          []Task       `yaml:"tasks" json:"tasks"`
	ContextMap     []ContextRef `yaml:"context_map" json:"context_map"`
	ActiveBlockers []string     `yaml:"active_blockers,omitempty" json:"active_blockers,omitempty"`
	Updated        string       `yaml:"updated" json:"updated"`
}

// Task returns the registry entry of id.
func (ix *Index) Task(id string) (*Task, bool) {
	for i := range ix.Tasks {
		if ix.Tasks[i].ID == id {
			return &ix.Tasks[i], true
		}
	}
	return nil, false
}

// Journal is the journal folder of one project.
type Journal struct {
	dir string
	fs  safefs.Dir // every file is read and written through it
	now func() time.Time
}

// New returns the journal of the project folder cwd
// (<cwd>/.claude/journal). now may be nil (time.Now). Nothing is created
// until Init.
func New(cwd string, now func() time.Time) *Journal {
	if now == nil {
		now = time.Now
	}
	return &Journal{dir: filepath.Join(cwd, ".claude", "journal"), fs: safefs.Dir{Base: cwd, Sub: ".claude/journal", Source: "index.md"}, now: now}
}

// Dir returns the journal folder.
func (j *Journal) Dir() string { return j.dir }

func (j *Journal) stamp() string { return j.now().UTC().Format(time.RFC3339) }

// Exists reports whether index.md exists (seed 004 1.1: resume from it).
func (j *Journal) Exists() bool {
	_, err := j.fs.Stat("index.md")
	return err == nil
}

// Init creates the journal: index.md with every task pending and one task
// file per task, named task-XXX-<slug>.md in registry order. An existing
// journal is not overwritten (ErrExists): Load it to resume, or Archive it.
func (j *Journal) Init(p Project, tasks []Task) (*Index, error) {
	if j.Exists() {
		return nil, fmt.Errorf("init journal in %s: %w", j.dir, ErrExists)
	}
	if err := j.fs.MkdirAll(".", 0o755); err != nil {
		return nil, fmt.Errorf("init journal: %w", err)
	}
	if p.Started == "" {
		p.Started = j.stamp()
	}
	ix := &Index{Project: p, Tasks: make([]Task, 0, len(tasks)), ContextMap: []ContextRef{}}
	seen := map[string]bool{}
	for i, t := range tasks {
		if strings.TrimSpace(t.ID) == "" || seen[t.ID] {
			return nil, fmt.Errorf("init journal: task %d has an empty or repeated id %q", i+1, t.ID)
		}
		seen[t.ID] = true
		if t.Status == "" {
			t.Status = StatusPending
		}
		if t.Assigned == "" {
			t.Assigned = "unassigned"
		}
		t.File = TaskFileName(i+1, t.Name)
		if err := j.fs.WriteFile(t.File, renderTaskFile(t), 0o644); err != nil {
			return nil, fmt.Errorf("init journal: %w", err)
		}
		ix.Tasks = append(ix.Tasks, t)
	}
	if err := j.save(ix); err != nil {
		return nil, fmt.Errorf("init journal: %w", err)
	}
	return ix, nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// TaskFileName returns "task-XXX-<slug>.md" for the n-th task (from 1): the
// slug is the lower-cased name with runs of other characters than a–z and
// 0–9 as "-", cut at a word boundary to at most 40 characters ("task" when
// nothing is left).
func TaskFileName(n int, name string) string {
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(slug) > 40 {
		cut := slug[:40]
		if slug[40] != '-' {
			if i := strings.LastIndexByte(cut, '-'); i > 0 {
				cut = cut[:i] // do not cut a word
			}
		}
		slug = strings.TrimRight(cut, "-")
	}
	if slug == "" {
		slug = "task"
	}
	return fmt.Sprintf("task-%03d-%s.md", n, slug)
}

// renderTaskFile writes a new task file (seed 004 2.3).
func renderTaskFile(t Task) []byte {
	var b bytes.Buffer
	meta := struct {
		ID           string   `yaml:"id"`
		Name         string   `yaml:"name"`
		Status       string   `yaml:"status"`
		Assigned     string   `yaml:"assigned"`
		Type         string   `yaml:"type,omitempty"`
		Complexity   string   `yaml:"complexity,omitempty"`
		Dependencies []string `yaml:"dependencies"`
	}{t.ID, t.Name, t.Status, t.Assigned, t.Type, t.Complexity, t.Dependencies}
	if meta.Dependencies == nil {
		meta.Dependencies = []string{}
	}
	y, _ := yaml.Marshal(meta)
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s: %s\n\n## Objective\n%s\n\n## Acceptance Criteria\n", t.ID, t.Name, strings.TrimSpace(t.Objective))
	if len(t.AcceptanceCriteria) == 0 {
		b.WriteString("- [ ] The objective is met.\n")
	}
	for _, c := range t.AcceptanceCriteria {
		fmt.Fprintf(&b, "- [ ] %s\n", c)
	}
	b.WriteString("\n## Execution Log\n")
	b.WriteString("<!-- Append each entry below: Actions, Files Modified, Errors, Reasoning, Outcome, and a Handoff as a ```yaml block (outcome, summary, files_created, files_modified, files_to_read, patterns_discovered, gotchas, blockers). -->\n")
	return b.Bytes()
}

// Load reads index.md. A missing journal is ErrNoJournal; an index whose
// front matter cannot be read is ErrBadIndex (the file is left as it is).
func (j *Journal) Load() (*Index, error) {
	data, err := j.fs.ReadFile("index.md")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load journal %s: %w", j.dir, ErrNoJournal)
	}
	if err != nil {
		return nil, fmt.Errorf("load journal: %w", err)
	}
	head, _, ok := splitFrontMatter(data)
	if !ok {
		return nil, fmt.Errorf("load journal: index.md has no front matter: %w", ErrBadIndex)
	}
	var ix Index
	if err := yaml.Unmarshal([]byte(head), &ix); err != nil {
		return nil, fmt.Errorf("load journal: index.md front matter: %v: %w", err, ErrBadIndex)
	}
	if ix.Tasks == nil {
		ix.Tasks = []Task{}
	}
	if ix.ContextMap == nil {
		ix.ContextMap = []ContextRef{}
	}
	return &ix, nil
}

// save writes index.md: front matter, then the same state as markdown.
func (j *Journal) save(ix *Index) error {
	ix.Updated = j.stamp()
	y, err := yaml.Marshal(ix)
	if err != nil {
		return fmt.Errorf("encode index: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# Journal: %s\n\n", safefs.OneLine(ix.Project.Name))
	if len(ix.Project.Domain) > 0 {
		fmt.Fprintf(&b, "Domain: %s  \n", safefs.OneLine(strings.Join(ix.Project.Domain, ", ")))
	}
	fmt.Fprintf(&b, "Started: %s  \nUpdated: %s\n\n", ix.Project.Started, ix.Updated)
	counts := map[string]int{}
	for _, t := range ix.Tasks {
		counts[t.Status]++
	}
	fmt.Fprintf(&b, "## Tasks (%d of %d completed)\n\n| ID | Task | Status | Depends on | File |\n|---|---|---|---|---|\n", counts[StatusCompleted], len(ix.Tasks))
	for _, t := range ix.Tasks {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | [%s](%s) |\n", cell(t.ID), cell(t.Name), cell(t.Status), cell(strings.Join(t.Dependencies, ", ")), cell(t.File), cell(t.File))
	}
	if len(ix.ActiveBlockers) > 0 {
		b.WriteString("\n## Active blockers\n\n")
		for _, s := range ix.ActiveBlockers {
			fmt.Fprintf(&b, "- %s\n", safefs.OneLine(s))
		}
	}
	b.WriteString("\n## Context map\n\n")
	if len(ix.ContextMap) == 0 {
		b.WriteString("(empty)\n")
	}
	for _, c := range ix.ContextMap {
		fmt.Fprintf(&b, "- `%s`", safefs.OneLine(c.File))
		if c.Description != "" {
			fmt.Fprintf(&b, " — %s", safefs.OneLine(c.Description))
		}
		if c.Task != "" {
			fmt.Fprintf(&b, " (%s)", safefs.OneLine(c.Task))
		}
		b.WriteString("\n")
	}
	return j.fs.WriteFile("index.md", b.Bytes(), 0o644)
}

// cell is text for one table cell: one line, with "|" escaped.
func cell(s string) string {
	return strings.ReplaceAll(safefs.OneLine(s), "|", `\|`)
}

// SetStatus records a task's status in index.md and in its task file's
// "status:" line.
func (j *Journal) SetStatus(id, status string) error {
	ix, err := j.Load()
	if err != nil {
		return fmt.Errorf("set status of %s: %w", id, err)
	}
	t, ok := ix.Task(id)
	if !ok {
		return fmt.Errorf("set status of %s: %w", id, ErrUnknownTask)
	}
	t.Status = status
	if status == StatusInProgress && t.Assigned == "unassigned" {
		t.Assigned = "worker"
	}
	if err := j.setFileStatus(t.File, status); err != nil {
		return fmt.Errorf("set status of %s: %w", id, err)
	}
	if err := j.save(ix); err != nil {
		return fmt.Errorf("set status of %s: %w", id, err)
	}
	return nil
}

var statusLine = regexp.MustCompile(`(?m)^status: .*$`)

// setFileStatus rewrites the status line in a task file's front matter,
// only if nobody appended meanwhile (retried a few times).
func (j *Journal) setFileStatus(file, status string) error {
	for range 5 {
		data, err := j.fs.ReadFile(file)
		if err != nil {
			return err
		}
		head, _, ok := splitFrontMatter(data)
		if !ok || !bytes.HasPrefix(data, []byte("---\n")) || !bytes.HasPrefix(data[4:], []byte(head)) {
			return nil // a worker replaced the header; the index still has the status
		}
		end := len("---\n") + len(head)
		newHead := statusLine.ReplaceAllLiteralString(string(data[:end]), "status: "+status)
		out := append([]byte(newHead), data[end:]...)
		now, err := j.fs.ReadFile(file)
		if err != nil {
			return err
		}
		if bytes.Equal(now, data) {
			return j.fs.WriteFile(file, out, 0o644)
		}
	}
	return fmt.Errorf("%s keeps changing; its status line was not updated", file)
}

// ReadTask returns the content of a task's file.
func (j *Journal) ReadTask(id string) ([]byte, error) {
	ix, err := j.Load()
	if err != nil {
		return nil, err
	}
	t, ok := ix.Task(id)
	if !ok {
		return nil, fmt.Errorf("read task %s: %w", id, ErrUnknownTask)
	}
	data, err := j.fs.ReadFile(t.File)
	if err != nil {
		return nil, fmt.Errorf("read task %s: %w", id, err)
	}
	return data, nil
}

// Record reads the handoff a worker wrote in the task file and applies it
// as seed 004 3.7 says: the status becomes the handoff's outcome
// (completed, failed or partial); for completed, the files created and
// modified enter the context map (updated or added); for failed, the
// blockers become active blockers.
func (j *Journal) Record(id string) (Handoff, error) {
	data, err := j.ReadTask(id)
	if err != nil {
		return Handoff{}, err
	}
	h, err := ParseHandoff(data)
	if err != nil {
		return Handoff{}, fmt.Errorf("record %s: %w", id, err)
	}
	ix, err := j.Load()
	if err != nil {
		return Handoff{}, err
	}
	t, _ := ix.Task(id)
	t.Status = h.Outcome
	switch h.Outcome {
	case OutcomeCompleted:
		for _, f := range append(slices.Clone(h.FilesCreated), h.FilesModified...) {
			ref := ContextRef{File: f, Task: id, Description: firstLine(h.Summary)}
			if i := slices.IndexFunc(ix.ContextMap, func(c ContextRef) bool { return c.File == f }); i >= 0 {
				ix.ContextMap[i] = ref
			} else {
				ix.ContextMap = append(ix.ContextMap, ref)
			}
		}
	case OutcomeFailed:
		for _, b := range h.Blockers {
			ix.ActiveBlockers = append(ix.ActiveBlockers, id+": "+b)
		}
	}
	if err := j.setFileStatus(t.File, h.Outcome); err != nil {
		return h, fmt.Errorf("record %s: %w", id, err)
	}
	if err := j.save(ix); err != nil {
		return h, fmt.Errorf("record %s: %w", id, err)
	}
	return h, nil
}

// RecordReport records the completion of task id for a worker that wrote
// no handoff in its task file: Baton appends an execution log entry made
// from the worker's completion report h (summary, files, notes), ending in
// the handoff, and records it as Record does, so the context map and the
// tasks that depend on it learn what the worker did.
func (j *Journal) RecordReport(id string, h Handoff) error {
	data, err := j.ReadTask(id)
	if err != nil {
		return err
	}
	ix, err := j.Load()
	if err != nil {
		return err
	}
	t, _ := ix.Task(id)
	if h.Outcome == "" {
		h.Outcome = OutcomeCompleted
	}
	y, err := yaml.Marshal(h)
	if err != nil {
		return fmt.Errorf("record %s: %w", id, err)
	}
	var b strings.Builder
	if !strings.HasSuffix(string(data), "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n### %s: recorded by Baton from the worker's completion report\n", j.stamp())
	b.WriteString("The worker wrote no entry of its own; this one is made from its report.\n\n")
	fmt.Fprintf(&b, "**Outcome**: %s\n", h.Outcome)
	if h.Summary != "" {
		fmt.Fprintf(&b, "**Summary**: %s\n", strings.TrimSpace(h.Summary))
	}
	if files := append(slices.Clone(h.FilesCreated), h.FilesModified...); len(files) > 0 {
		fmt.Fprintf(&b, "**Files Modified**: %s\n", strings.Join(files, ", "))
	}
	fmt.Fprintf(&b, "\n#### Handoff\n```yaml\n%s```\n", y)
	if err := j.fs.WriteFile(t.File, append(data, b.String()...), 0o644); err != nil {
		return fmt.Errorf("record %s: %w", id, err)
	}
	_, err = j.Record(id)
	return err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Archive moves the journal's files to archive/session-<date>/ (date as
// 2006-01-02, with -2, -3 … when that folder exists) and keeps a copy of
// index.md in place as the historical record (seed 004 5.2). It returns
// the archive folder.
func (j *Journal) Archive(date time.Time) (string, error) {
	if !j.Exists() {
		return "", fmt.Errorf("archive journal: %w", ErrNoJournal)
	}
	base := "archive/session-" + date.UTC().Format("2006-01-02")
	dest := base
	for n := 2; ; n++ {
		if _, err := j.fs.Stat(dest); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dest = fmt.Sprintf("%s-%d", base, n)
	}
	if err := j.fs.MkdirAll(dest, 0o755); err != nil {
		return "", fmt.Errorf("archive journal: %w", err)
	}
	entries, err := j.fs.ReadDir(".")
	if err != nil {
		return "", fmt.Errorf("archive journal: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		from, to := e.Name(), dest+"/"+e.Name()
		if e.Name() == "index.md" {
			data, err := j.fs.ReadFile(from)
			if err != nil {
				return "", fmt.Errorf("archive journal: %w", err)
			}
			if err := j.fs.WriteFile(to, data, 0o644); err != nil {
				return "", fmt.Errorf("archive journal: %w", err)
			}
			continue
		}
		if err := j.fs.Rename(from, to); err != nil {
			return "", fmt.Errorf("archive journal: %w", err)
		}
	}
	return j.fs.Path(dest), nil
}

// splitFrontMatter returns the YAML between a first "---" line and the
// next one, and the rest.
func splitFrontMatter(data []byte) (head, body string, ok bool) {
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return "", "", false
	}
	rest := text[4:]
	if strings.HasPrefix(rest, "---\n") {
		return "", rest[4:], true
	}
	i := strings.Index(rest, "\n---\n")
	if i < 0 {
		if strings.HasSuffix(rest, "\n---") {
			return strings.TrimSuffix(rest, "\n---"), "", true
		}
		return "", "", false
	}
	return rest[:i+1], rest[i+5:], true
}
