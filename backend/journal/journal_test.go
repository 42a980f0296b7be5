package journal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var fixed = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return fixed }

func sampleTasks() []Task {
	return []Task{
		{ID: "SPEC-001", Name: "Write the reset specification", Type: "design", Complexity: "normal", Objective: "Specify the password reset flow.", AcceptanceCriteria: []string{"Every endpoint has error cases"}},
		{ID: "CODE-001", Name: "Implement password reset endpoints", Type: "implementation", Complexity: "easy", Dependencies: []string{"SPEC-001"},
			Objective: "Implement the reset endpoints in internal/auth.", AcceptanceCriteria: []string{"go test ./internal/auth/... passes"}},
		{ID: "DOC-001", Name: "Document | the flow", Type: "documentation", Complexity: "complex", Dependencies: []string{"CODE-001", "missing"}, Objective: "Document the reset flow."},
	}
}

func TestTaskFileName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		name string
		want string
	}{
		{1, "Write the spec", "task-001-write-the-spec.md"},
		{12, "  Ünïcode & symbols!! ", "task-012-n-code-symbols.md"},
		{3, "", "task-003-task.md"},
		{4, "a very long task name that goes on and on beyond forty characters", "task-004-a-very-long-task-name-that-goes-on-and.md"},
		{1000, "x", "task-1000-x.md"},
	}
	for _, tt := range tests {
		if got := TaskFileName(tt.n, tt.name); got != tt.want {
			t.Errorf("TaskFileName(%d, %q) = %q, want %q", tt.n, tt.name, got, tt.want)
		}
	}
}

func TestInitLoadAndStatus(t *testing.T) {
	t.Parallel()
	j := New(t.TempDir(), clock)
	if j.Exists() {
		t.Fatal("a new folder has a journal")
	}
	if _, err := j.Load(); !errors.Is(err, ErrNoJournal) {
		t.Fatalf("Load before Init: %v", err)
	}
	ix, err := j.Init(Project{Name: "Password reset", Domain: []string{"go", "backend"}}, sampleTasks())
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{"task-001-write-the-reset-specification.md", "task-002-implement-password-reset-endpoints.md", "task-003-document-the-flow.md"}
	for i, f := range wantFiles {
		if ix.Tasks[i].File != f || ix.Tasks[i].Status != StatusPending || ix.Tasks[i].Assigned != "unassigned" {
			t.Errorf("task %d = %+v", i, ix.Tasks[i])
		}
		data, err := os.ReadFile(filepath.Join(j.Dir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "status: pending\n") || !strings.Contains(string(data), "## Execution Log") {
			t.Errorf("%s:\n%s", f, data)
		}
	}
	if _, err := j.Init(Project{Name: "again"}, nil); !errors.Is(err, ErrExists) {
		t.Fatalf("second Init: %v", err)
	}
	loaded, err := j.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, ix) {
		t.Fatalf("Load differs from Init:\n%+v\n%+v", loaded, ix)
	}
	index, _ := os.ReadFile(filepath.Join(j.Dir(), "index.md"))
	for _, s := range []string{"# Journal: Password reset", "## Tasks (0 of 3 completed)", `| DOC-001 | Document \| the flow | pending | CODE-001, missing |`, "Started: 2026-03-04T05:06:07Z"} {
		if !strings.Contains(string(index), s) {
			t.Errorf("index.md lacks %q:\n%s", s, index)
		}
	}

	if err := j.SetStatus("CODE-001", StatusInProgress); err != nil {
		t.Fatal(err)
	}
	// A worker appends while Baton owns the header: both survive.
	path := filepath.Join(j.Dir(), wantFiles[1])
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n### Entry 1\nstatus: this line in the body is not the header\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.SetStatus("CODE-001", StatusBlocked); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "---\nid: CODE-001\nname: Implement password reset endpoints\nstatus: blocked\n") {
		t.Errorf("task file header not updated:\n%s", data)
	}
	if !strings.Contains(string(data), "status: this line in the body is not the header") {
		t.Errorf("the worker's entry was changed:\n%s", data)
	}
	loaded, _ = j.Load()
	if tk, _ := loaded.Task("CODE-001"); tk.Status != StatusBlocked || tk.Assigned != "worker" {
		t.Errorf("index entry %+v", tk)
	}
	if err := j.SetStatus("NOPE", StatusCompleted); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown task: %v", err)
	}
}

func TestInitRejectsBadIDs(t *testing.T) {
	t.Parallel()
	for _, tasks := range [][]Task{{{ID: ""}}, {{ID: "a"}, {ID: "a"}}} {
		if _, err := New(t.TempDir(), clock).Init(Project{Name: "p"}, tasks); err == nil {
			t.Errorf("Init accepted %+v", tasks)
		}
	}
}

func TestLoadBadIndex(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"# no front matter\n", "---\ntasks: [\n---\n"} {
		j := New(t.TempDir(), clock)
		if err := os.MkdirAll(j.Dir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(j.Dir(), "index.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Load(); !errors.Is(err, ErrBadIndex) {
			t.Errorf("Load of %q: %v", content, err)
		}
	}
}

func TestParseHandoff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		want    Handoff
		wantErr error
		errText string
	}{
		{"handoff-nested.md", Handoff{
			Outcome:            OutcomeCompleted,
			Summary:            "POST /reset and POST /reset/confirm work; tokens expire after 30 minutes.\n",
			FilesCreated:       []string{"internal/auth/reset.go", "internal/auth/reset_test.go"},
			FilesModified:      []string{"internal/auth/routes.go"},
			FilesToRead:        []string{"docs/specs/password-reset.md"},
			PatternsDiscovered: []Note{{Name: "token store", Description: "tokens live in the sessions table with a kind column"}},
			Gotchas:            []Note{{Description: "the clock is injected; tests must pass a fake now"}},
			Blockers:           []string{},
		}, nil, ""},
		{"handoff-top-level.md", Handoff{Outcome: OutcomeFailed, Summary: "The SMTP server is unreachable from the sandbox.", Blockers: []string{"no SMTP credentials in the environment"}}, nil, ""},
		{"handoff-crlf.md", Handoff{Outcome: OutcomePartial, Summary: "half way"}, nil, ""},
		{"handoff-none.md", Handoff{}, ErrNoHandoff, ""},
		{"handoff-broken.md", Handoff{}, nil, "not valid YAML"},
		{"handoff-bad-outcome.md", Handoff{}, nil, `outcome "done" is not completed, failed or partial`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseHandoff(data)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
			case tt.errText != "":
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v, want one containing %q", err, tt.errText)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got  %#v\nwant %#v", got, tt.want)
				}
			}
		})
	}
}

func appendFile(t *testing.T, path, fixture string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append([]byte("\n"), data...)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRecordContextAndArchive(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	j := New(cwd, clock)
	ix, err := j.Init(Project{Name: "Password reset"}, sampleTasks())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Record("SPEC-001"); !errors.Is(err, ErrNoHandoff) {
		t.Fatalf("Record without a handoff: %v", err)
	}
	appendFile(t, filepath.Join(j.Dir(), ix.Tasks[0].File), "handoff-top-level.md")
	if _, err := j.Record("SPEC-001"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(j.Dir(), ix.Tasks[1].File), "handoff-nested.md")
	h, err := j.Record("CODE-001")
	if err != nil || h.Outcome != OutcomeCompleted {
		t.Fatalf("Record: %+v %v", h, err)
	}
	loaded, err := j.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := loaded.Task("SPEC-001"); s.Status != StatusFailed {
		t.Errorf("SPEC-001 is %s", s.Status)
	}
	if !reflect.DeepEqual(loaded.ActiveBlockers, []string{"SPEC-001: no SMTP credentials in the environment"}) {
		t.Errorf("blockers %v", loaded.ActiveBlockers)
	}
	var files []string
	for _, c := range loaded.ContextMap {
		files = append(files, c.File)
		if c.Task != "CODE-001" || !strings.HasPrefix(c.Description, "POST /reset") {
			t.Errorf("context ref %+v", c)
		}
	}
	if !reflect.DeepEqual(files, []string{"internal/auth/reset.go", "internal/auth/reset_test.go", "internal/auth/routes.go"}) {
		t.Errorf("context map %v", files)
	}
	data, _ := os.ReadFile(filepath.Join(j.Dir(), ix.Tasks[1].File))
	if !strings.HasPrefix(string(data), "---\nid: CODE-001\nname: Implement password reset endpoints\nstatus: completed\n") {
		t.Errorf("task file header:\n%s", data)
	}

	ctx, err := j.ComputeContext("DOC-001")
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Prior) != 1 || ctx.Prior[0].ID != "CODE-001" || ctx.Prior[0].Outcome != OutcomeCompleted ||
		!reflect.DeepEqual(ctx.Prior[0].FilesToRead, []string{"docs/specs/password-reset.md"}) || len(ctx.Prior[0].Notes) != 2 {
		t.Fatalf("prior %+v", ctx.Prior)
	}
	// DOC-001 says "reset flow": every ref mentions reset in its path.
	if len(ctx.CodeRefs) != 3 {
		t.Fatalf("code refs %+v", ctx.CodeRefs)
	}
	section := ctx.PromptSection()
	for _, s := range []string{"## Context from Prior Work", "### Implement password reset endpoints (Task CODE-001)", "**Files to read**: docs/specs/password-reset.md", "- token store: tokens live", "## Code References", "- internal/auth/reset.go — POST /reset"} {
		if !strings.Contains(section, s) {
			t.Errorf("prompt section lacks %q:\n%s", s, section)
		}
	}
	if (Context{}).PromptSection() != "" {
		t.Error("an empty context renders text")
	}
	if _, err := j.ComputeContext("NOPE"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown task: %v", err)
	}

	dest, err := j.Archive(fixed)
	if err != nil {
		t.Fatal(err)
	}
	if dest != filepath.Join(j.Dir(), "archive", "session-2026-03-04") {
		t.Fatalf("archived to %s", dest)
	}
	moved, _ := filepath.Glob(filepath.Join(dest, "*.md"))
	left, _ := filepath.Glob(filepath.Join(j.Dir(), "*.md"))
	if len(moved) != 4 || len(left) != 1 || filepath.Base(left[0]) != "index.md" {
		t.Fatalf("archive holds %v, journal keeps %v", moved, left)
	}
	dest2, err := j.Archive(fixed)
	if err != nil || dest2 != dest+"-2" {
		t.Fatalf("second archive the same day: %s %v", dest2, err)
	}
	if _, err := New(t.TempDir(), clock).Archive(fixed); !errors.Is(err, ErrNoJournal) {
		t.Fatalf("archiving nothing: %v", err)
	}
}

func TestCodeRefLimits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		complexity string
		want       int
	}{{"easy", 5}, {"normal", 10}, {"complex", 20}, {"low", 5}, {"high", 20}, {"", 10}} {
		if got := MaxCodeRefs(tt.complexity); got != tt.want {
			t.Errorf("MaxCodeRefs(%q) = %d, want %d", tt.complexity, got, tt.want)
		}
	}
	j := New(t.TempDir(), clock)
	if _, err := j.Init(Project{Name: "p"}, []Task{{ID: "T", Name: "store work", Complexity: "easy", Objective: "Touch the store."}}); err != nil {
		t.Fatal(err)
	}
	ix, _ := j.Load()
	for i := range 12 {
		ix.ContextMap = append(ix.ContextMap, ContextRef{File: filepath.Join("pkg", "store", string(rune('a'+i))+".go")})
	}
	ix.ContextMap = append(ix.ContextMap, ContextRef{File: "unrelated/file.go"})
	if err := j.save(ix); err != nil {
		t.Fatal(err)
	}
	ctx, err := j.ComputeContext("T")
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.CodeRefs) != 5 {
		t.Fatalf("an easy task got %d code refs, want 5", len(ctx.CodeRefs))
	}
}
