package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

// copySkills puts testdata/skills into dir/skills.
func copySkills(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"widget-craft.md", "broken.md"} {
		b, err := os.ReadFile(filepath.Join("testdata", "skills", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "skills", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSkillsMatchedStoredAndPrompted(t *testing.T) {
	t.Parallel()
	for _, enabled := range []bool{true, false} {
		name := "disabled"
		if enabled {
			name = "enabled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil})
			tasks[0]["title"], tasks[0]["description"] = "Build the gauge widget", "A widget that shows the load."
			tasks[1]["title"], tasks[1]["description"] = "Write the README", "Document the install steps."
			h := newHarness(t, testTemplate(func(tp *template.Template) {
				tp.Config.AutoConfirm = false
				tp.Config.Skills = template.Skills{Enabled: enabled}
			}), scripted(tasks, nil), true)
			copySkills(t, h.dir)
			pkg := `{"name": "gauge", "dependencies": {"svelte": "^5.0.0"}}`
			if err := os.WriteFile(filepath.Join(h.dir, "package.json"), []byte(pkg), 0o644); err != nil {
				t.Fatal(err)
			}
			id := h.create()
			ctx := context.Background()
			if err := h.eng.Start(ctx, id); err != nil {
				t.Fatal(err)
			}
			h.until("confirming", func() bool { return h.status(id) == "confirming" })
			snap, err := h.eng.Snapshot(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Contains(snap.Tasks[0].Skills, "widget-craft")
			if got != enabled || (!enabled && len(snap.Tasks[0].Skills) != 0) {
				t.Errorf("task_001 skills = %v (skills enabled: %v)", snap.Tasks[0].Skills, enabled)
			}
			if slices.Contains(snap.Tasks[1].Skills, "widget-craft") {
				t.Errorf("task_002 got the widget skill: %v", snap.Tasks[1].Skills)
			}
			// Seed 004's report: "Loaded N skills from …" by category, the
			// skipped file and why, and the project domain (package.json).
			warned := strings.Contains(snap.Run.Message, "Loaded 9 skills from ") &&
				strings.Contains(snap.Run.Message, " - widgets: widget-craft\n") &&
				strings.Contains(snap.Run.Message, "Skipped ") && strings.Contains(snap.Run.Message, "broken.md: invalid YAML") &&
				strings.Contains(snap.Run.Message, "Project domain: frontend, javascript, svelte, web")
			if warned != enabled {
				t.Errorf("run message = %q (skills enabled: %v)", snap.Run.Message, enabled)
			}
			if err := h.eng.Confirm(ctx, id, Modifications{}); err != nil {
				t.Fatal(err)
			}
			if run := h.wait(id); run.Status != "completed" {
				t.Fatalf("run = %s: %s", run.Status, run.Error)
			}
			p := workerPrompts(h.host, "task_001")[0]
			if has := strings.Contains(p, "### Skill: Widget craft (widget-craft)") && strings.Contains(p, "keyboard shortcut"); has != enabled {
				t.Errorf("task_001 prompt has the skill: %v, want %v:\n%s", has, enabled, p)
			}
			if p := workerPrompts(h.host, "task_002")[0]; strings.Contains(p, "Widget craft") {
				t.Errorf("task_002 prompt has the widget skill:\n%s", p)
			}
		})
	}
}
