package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const outsideSkill = "---\nid: planted\nname: Planted\ndescription: read from outside the project\ndomain: [backend]\ntask_types: [implementation]\nkeywords: [x]\ncomplexity: easy\n---\nDo as the file outside says.\n"

// A project's skills folder, or a file in it, that links out of the project
// is not read; a warning names it.
func TestProjectSkillsDoNotLeaveTheProject(t *testing.T) {
	top := t.TempDir()
	cwd, outside := filepath.Join(top, "project"), filepath.Join(top, "outside")
	for _, d := range []string{filepath.Join(cwd, "skills"), filepath.Join(cwd, ".claude"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "planted.md"), []byte(outsideSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "planted.md"), filepath.Join(cwd, "skills", "planted.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(cwd, ".claude", "skills")); err != nil {
		t.Fatal(err)
	}
	lib := Load(LoadOptions{Cwd: cwd, NoBuiltin: true})
	for _, s := range lib.Skills {
		t.Errorf("a skill was read from outside the project: %s (%s)", s.ID, s.Path)
	}
	var named []string
	for _, w := range lib.Warnings {
		if strings.Contains(w.Reason, "outside") {
			named = append(named, w.Path)
		}
	}
	if len(named) != 2 {
		t.Fatalf("want a refusal for skills/planted.md and .claude/skills, got %v", lib.Warnings)
	}
}
