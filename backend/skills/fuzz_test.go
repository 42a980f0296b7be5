package skills

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that any file content either parses into a skill with
// every required field or gives an error, never a panic; and that a parsed
// skill matches a task of its own type and complexity.
func FuzzParse(f *testing.F) {
	for _, root := range []string{"builtin", filepath.Join("testdata", "layout")} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if data, err := os.ReadFile(p); err == nil {
					f.Add(data)
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if s.ID != "" {
				t.Fatalf("an error (%v) came with a skill %q", err, s.ID)
			}
			return
		}
		if s.ID == "" || s.Name == "" || len(s.Domain) == 0 || len(s.TaskTypes) == 0 || len(s.Keywords) == 0 || len(s.Complexity) == 0 || strings.ContainsAny(s.ID, " \t\n") {
			t.Fatalf("a parsed skill lacks a required field: %+v", s)
		}
		ms := MatchSkills(TaskInfo{Type: s.TaskTypes[0], Complexity: s.Complexity[0], Objective: strings.Join(s.Keywords, " ")}, []Skill{s})
		if s.TaskTypes[0] != "" && (len(ms) != 1 || ms[0].Skill.ID != s.ID) {
			t.Fatalf("the skill does not match a task of its own type and complexity: %+v", ms)
		}
	})
}
