package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/safefs"
)

// hostile makes a journal and then points its first task's file at
// victim.md outside the project, as a cloned repository could.
func hostile(t *testing.T, file string) (j *Journal, victim string) {
	t.Helper()
	top := t.TempDir()
	cwd := filepath.Join(top, "a", "b", "project")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	victim = filepath.Join(top, "outside", "victim.md")
	if err := os.MkdirAll(filepath.Dir(victim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("---\nstatus: mine\n---\nkeep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j = New(cwd, clock)
	if _, err := j.Init(Project{Name: "p"}, sampleTasks()[:1]); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(j.Dir(), "index.md")
	data, _ := os.ReadFile(index)
	data = []byte(strings.ReplaceAll(string(data), "file: task-001-write-the-reset-specification.md", "file: "+file))
	if err := os.WriteFile(index, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return j, victim
}

func TestIndexCannotNameFilesOutside(t *testing.T) {
	for _, file := range []string{"../../../../../outside/victim.md", "link.md"} {
		j, victim := hostile(t, file)
		if file == "link.md" {
			if err := os.Symlink(victim, filepath.Join(j.Dir(), "link.md")); err != nil {
				t.Fatal(err)
			}
		}
		err := j.SetStatus("SPEC-001", StatusInProgress)
		if !errors.Is(err, safefs.ErrEscape) || !strings.Contains(err.Error(), "index.md") || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: SetStatus = %v, want a refusal naming index.md and the path", file, err)
		}
		if _, err := j.ReadTask("SPEC-001"); !errors.Is(err, safefs.ErrEscape) {
			t.Errorf("%s: ReadTask = %v, want a refusal", file, err)
		}
		if data, _ := os.ReadFile(victim); string(data) != "---\nstatus: mine\n---\nkeep\n" {
			t.Fatalf("%s: Baton rewrote a file outside the project: %q", file, data)
		}
	}
}

func TestSymlinkedJournalFolderIsRefused(t *testing.T) {
	top := t.TempDir()
	cwd, outside := filepath.Join(top, "project"), filepath.Join(top, "outside")
	for _, d := range []string{filepath.Join(cwd, ".claude"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(cwd, ".claude", "journal")); err != nil {
		t.Fatal(err)
	}
	_, err := New(cwd, clock).Init(Project{Name: "p"}, sampleTasks())
	if !errors.Is(err, safefs.ErrEscape) {
		t.Fatalf("Init through a link out = %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("Init wrote %d files outside the project", len(ents))
	}
}

func TestAgentTextCannotStartLinesInTheIndex(t *testing.T) {
	j := New(t.TempDir(), clock)
	tasks := sampleTasks()[:1]
	tasks[0].Name = "Spec\n# Forged heading"
	if _, err := j.Init(Project{Name: "p\n## Forged", Domain: []string{"go\n- forged"}}, tasks); err != nil {
		t.Fatal(err)
	}
	ix, err := j.Load()
	if err != nil {
		t.Fatal(err)
	}
	ix.ActiveBlockers = []string{"SPEC-001: blocked\n# Forged blocker"}
	ix.ContextMap = []ContextRef{{File: "a.go\n# x", Description: "d\n# Forged context", Task: "SPEC-001\n# y"}}
	if err := j.save(ix); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(j.Dir(), "index.md"))
	_, body, _ := splitFrontMatter(data)
	if strings.Contains(body, "\n# Forged") || strings.Contains(body, "\n## Forged") || strings.Contains(body, "\n- forged") || strings.Contains(body, "\n# x") || strings.Contains(body, "\n# y") {
		t.Fatalf("agent text started lines in index.md:\n%s", body)
	}
	if back, err := j.Load(); err != nil || back.ActiveBlockers[0] != ix.ActiveBlockers[0] {
		t.Fatalf("the state changed: %v %v", back, err)
	}
}
