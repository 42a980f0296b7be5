package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/journal"
	"github.com/baton-app/baton/backend/template"
)

var taskFileRe = regexp.MustCompile(`Your task file is (\.claude/journal/\S+?\.md)`)

func TestJournalHandoffReachesDependents(t *testing.T) {
	t.Parallel()
	for _, archive := range []bool{false, true} {
		name := "kept"
		if archive {
			name = "archived"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
			worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
				if task != "task_001" {
					return false
				}
				m := taskFileRe.FindStringSubmatch(s.opts.Message)
				if m == nil {
					t.Errorf("task_001 prompt names no task file:\n%s", s.opts.Message)
					return false
				}
				path := filepath.Join(s.opts.Cwd, m[1])
				old, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("read the task file: %v", err)
					return false
				}
				entry := "\n### Entry 1\nDid it.\n```yaml\noutcome: completed\nsummary: The parser lives in parse.go.\n" +
					"files_created: [parse.go]\nfiles_to_read: [parse.go]\ngotchas: [\"empty input is valid\"]\n```\n"
				if err := os.WriteFile(path, append(old, entry...), 0o644); err != nil {
					t.Errorf("append to the task file: %v", err)
				}
				return false // and report as usual
			}
			h := newHarness(t, testTemplate(func(tp *template.Template) {
				tp.Config.Journal = template.Journal{Enabled: true, Archive: archive}
			}), scripted(tasks, worker), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			if run.Status != "completed" || run.TasksCompleted != 2 {
				t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
			}
			p := workerPrompts(h.host, "task_002")[0]
			for _, want := range []string{"## Context from Prior Work", "The parser lives in parse.go.", "**Files to read**: parse.go", "empty input is valid"} {
				if !strings.Contains(p, want) {
					t.Errorf("task_002 prompt lacks %q:\n%s", want, p)
				}
			}
			j := journal.New(h.dir, nil)
			ix, err := j.Load()
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"task_001", "task_002"} {
				if jt, ok := ix.Task(id); !ok || jt.Status != journal.StatusCompleted {
					t.Errorf("journal task %s = %+v", id, jt)
				}
			}
			// task_002 wrote no handoff: its report's files are in the map too.
			if len(ix.ContextMap) != 2 || ix.ContextMap[0].File != "parse.go" || ix.ContextMap[1].Task != "task_002" {
				t.Errorf("context map = %+v", ix.ContextMap)
			}
			archived, _ := filepath.Glob(filepath.Join(h.dir, ".claude", "journal", "archive", "session-*", "task-001-*.md"))
			if (len(archived) == 1) != archive || strings.Contains(run.Message, "Journal archived") != archive {
				t.Errorf("archived files %v, message %q (archive %v)", archived, run.Message, archive)
			}
		})
	}
}

// A worker that writes no handoff in its task file still leaves its mark
// (seed 004 3.7): Baton's entry made from its completion report is in the
// task file's execution log, its files enter the context map, and the task
// that depends on it reads its summary and notes.
func TestJournalRecordsTheReportOfAWorkerWithoutHandoff(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		if task != "task_001" {
			return false
		}
		writeOutput(s.opts.Cwd, "lex.go", "package lex\n")
		s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "The lexer is in lex.go; tokens carry positions.",
			"output_files": []string{"lex.go"}, "warnings": []string{"unicode identifiers are not handled yet"}}))
		s.endTurn(h)
		return true
	}
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Journal = template.Journal{Enabled: true}
	}), scripted(tasks, worker), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	p := workerPrompts(h.host, "task_002")[0]
	for _, want := range []string{"## Context from Prior Work", "**Outcome**: completed", "**Relevant Notes**: The lexer is in lex.go; tokens carry positions.",
		"- unicode identifiers are not handled yet"} {
		if !strings.Contains(p, want) {
			t.Errorf("task_002 prompt lacks %q:\n%s", want, p)
		}
	}
	j := journal.New(h.dir, nil)
	ix, err := j.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.ContextMap) != 2 || ix.ContextMap[0].File != "lex.go" || ix.ContextMap[0].Task != "task_001" {
		t.Errorf("context map = %+v", ix.ContextMap)
	}
	file, err := j.ReadTask("task_001")
	if err != nil {
		t.Fatal(err)
	}
	log := string(file[strings.Index(string(file), "## Execution Log"):])
	for _, want := range []string{"recorded by Baton from the worker's completion report", "**Summary**: The lexer is in lex.go", "**Files Modified**: lex.go",
		"outcome: completed", "- unicode identifiers are not handled yet"} {
		if !strings.Contains(log, want) {
			t.Errorf("the execution log lacks %q:\n%s", want, log)
		}
	}
}
