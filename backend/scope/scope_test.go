package scope

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A snapshot of a task's paths tells what changed under them afterwards:
// new, changed and removed files; not a file rewritten with what it held,
// nor anything outside the roots or in a skipped folder.
func TestSnapshotChanged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "src/a.go", "package a\n")
	write(t, root, "src/b.go", "package a\n// b\n")
	write(t, root, "src/gone.go", "package a\n")
	write(t, root, "docs/keep.md", "# keep\n")
	write(t, root, "other/x.go", "package x\n")
	s := Take(root, []string{"src/", "./docs", "../up", "*.md"})
	if !reflect.DeepEqual(s.Roots, []string{"src", "docs"}) || !s.Full || len(s.Files) != 4 {
		t.Fatalf("snapshot %+v", s)
	}
	time.Sleep(10 * time.Millisecond)
	write(t, root, "src/a.go", "package a\n\nfunc A() {}\n")
	write(t, root, "src/b.go", "package a\n// b\n") // same content, new time
	write(t, root, "src/new.go", "package a\n")
	write(t, root, "src/node_modules/dep/index.js", "x")
	write(t, root, "other/x.go", "package x // changed, but outside\n")
	if err := os.Remove(filepath.Join(root, "src/gone.go")); err != nil {
		t.Fatal(err)
	}
	got := s.Changed(root)
	if want := []string{"src/a.go", "src/gone.go", "src/new.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed %v, want %v", got, want)
	}
	if !s.Covers("docs/keep.md") || s.Covers("other/x.go") {
		t.Error("Covers")
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	scope := []string{"internal/store", "./README.md", "cmd/*.go", "*_test.go"}
	for p, want := range map[string]bool{
		"internal/store/store.go":    true,
		"internal/store":             true,
		"internal/storage/x.go":      false,
		"README.md":                  true,
		"docs/README.md":             false,
		"cmd/main.go":                true,
		"cmd/sub/main.go":            false,
		"pkg/x/y_test.go":            true,
		"../internal/store/store.go": false,
		"":                           false,
	} {
		if got := Covers(scope, p); got != want {
			t.Errorf("Covers(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	changed := []string{"docs/store.md", "internal/store/store_test.go", "go.mod", ".claude-orchestrator/tasks/x.json", "OUT-OF-SCOPE.md"}
	written := func(p string) bool { return p == "notes/outside.md" }
	v := Judge([]string{"docs/store.md", "./docs/README.md", "docs", "notes/outside.md", "docs/store.md"}, changed,
		[]string{"internal/store"}, []string{".claude-orchestrator"}, written)
	if want := []string{"docs/README.md"}; !reflect.DeepEqual(v.Missing, want) {
		t.Errorf("missing %v, want %v", v.Missing, want)
	}
	if want := []string{"go.mod", "OUT-OF-SCOPE.md"}; !reflect.DeepEqual(v.Outside, want) {
		t.Errorf("outside %v, want %v", v.Outside, want)
	}
	// No scope: nothing is outside it.
	if v := Judge(nil, changed, nil, nil, nil); len(v.Outside) != 0 || len(v.Missing) != 0 {
		t.Errorf("without scope: %+v", v)
	}
}
