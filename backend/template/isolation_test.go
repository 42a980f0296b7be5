package template

import (
	"strings"
	"testing"
)

// TestIsolationDefaults: the templates that change code in parallel isolate
// their workers in git worktrees; the ones that read or write only their
// own new files share the folder; _default says shared and why.
func TestIsolationDefaults(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, false)
	want := map[string]string{
		"_default": IsolationShared, "exploration": IsolationShared, "code-review": IsolationShared, "documentation": IsolationShared,
		"test-coverage": IsolationWorktree, "refactor": IsolationWorktree, "bug-hunt": IsolationWorktree,
		"team-review": IsolationWorktree, "sparc": IsolationWorktree,
	}
	for id, iso := range want {
		tm, err := m.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if tm.Config.Isolation != iso || tm.Config.Worktree() != (iso == IsolationWorktree) {
			t.Errorf("%s: isolation %q, want %q", id, tm.Config.Isolation, iso)
		}
	}
	def, _ := m.Get("_default")
	if !strings.Contains(def.Description, "isolation shared") || !strings.Contains(def.Description, "isolation worktree") {
		t.Errorf("_default does not say which isolation and why: %q", def.Description)
	}
	bad := []byte(`{"id": "x", "name": "X", "extends": "_default", "config": {"isolation": "docker"}}`)
	problems := m.Validate(bad)
	if len(problems) == 0 || problems[0].Pointer != "/config/isolation" {
		t.Fatalf("an unknown isolation is accepted: %v", problems)
	}
}
