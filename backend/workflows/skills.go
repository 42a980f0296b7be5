package workflows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Skills (seed 004): with config.skills.enabled the run loads the skill
// library of its folder (config.skills.directory first, then <cwd>/skills,
// <cwd>/.claude/skills, ~/.claude/skills and the shipped skills), matches
// each planned task, stores the matched ids on the task (Task.Skills, for
// the review table) and adds the skills' text to the worker's prompt.

// skillsHook matches skills to tasks; it only reads files.
type skillsHook struct {
	enabled bool
	dir     string // config.skills.directory, absolute
	cwd     string
	home    string
	once    sync.Once
	lib     *skills.Library
	domains []string // the project's, detected from its files
}

func newSkillsHook(cfg template.Skills, cwd, home string) *skillsHook {
	dir := cfg.Directory
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	return &skillsHook{enabled: cfg.Enabled, dir: dir, cwd: cwd, home: home}
}

// library loads the run's skill library once (nil when skills are off);
// it is safe from any goroutine.
func (h *skillsHook) library() *skills.Library {
	if !h.enabled {
		return nil
	}
	h.once.Do(func() {
		home := h.home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		h.lib = skills.Load(skills.LoadOptions{UserDir: h.dir, Cwd: h.cwd, Home: home})
		h.domains = skills.DetectDomains(h.cwd)
	})
	return h.lib
}

// match sets the matched skill ids of every task and returns seed 004's
// report to the user: "Loaded N skills from …" by category, the skill
// files skipped and why, and the project domain used in matching ("" when
// skills are off).
func (h *skillsHook) match(tasks []store.Task) string {
	lib := h.library()
	if lib == nil {
		return ""
	}
	for i := range tasks {
		tasks[i].Skills = skills.IDs(lib.Match(h.info(tasks[i])))
	}
	note := strings.TrimSpace(lib.Summary())
	if len(h.domains) > 0 {
		note += "\nProject domain: " + strings.Join(h.domains, ", ")
	}
	return note
}

// info describes a task for matching, with the project's domain.
func (h *skillsHook) info(t store.Task) skills.TaskInfo {
	ti := taskInfo(t)
	ti.ProjectDomains = h.domains
	return ti
}

// section is the "Your Skills" part of a task's worker prompt.
func (h *skillsHook) section(t *store.Task) string {
	lib := h.library()
	if lib == nil {
		return ""
	}
	return skills.PromptSection(lib.Match(h.info(*t)))
}

// taskInfo describes a task for matching. The plan names no task type, so
// it is taken from the task's mode (seed 003) or else from its words.
func taskInfo(t store.Task) skills.TaskInfo {
	var def protocol.Task
	_ = json.Unmarshal(t.Definition, &def)
	complexity := skills.NormalizeComplexity(t.Complexity)
	if complexity == "" {
		complexity = skills.Normal
	}
	return skills.TaskInfo{ID: t.ID, Type: taskType(def.Mode, t.Title+" "+t.Description), Complexity: complexity,
		Objective: t.Title + ". " + t.Description, AcceptanceCriteria: def.AcceptanceCriteria, Keywords: t.Scope}
}

// taskType maps a seed 003 mode, or the first telling word of the text, to
// a seed 004 task type (implementation when nothing tells).
func taskType(mode, text string) string {
	switch strings.ToLower(mode) {
	case "architect", "design":
		return "design"
	case "debug":
		return "bugfix"
	case "test", "tdd", "qa":
		return "testing"
	case "docs", "docs-writer", "documentation":
		return "documentation"
	case "refactor", "refactor-optimizer":
		return "refactor"
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(c rune) bool {
		return !(c >= 'a' && c <= 'z')
	})
	for _, w := range words {
		switch w {
		case "fix", "bug", "bugfix", "crash", "regression":
			return "bugfix"
		case "test", "tests", "testing", "coverage":
			return "testing"
		case "document", "documentation", "docs", "readme":
			return "documentation"
		case "refactor", "refactoring", "restructure", "cleanup":
			return "refactor"
		case "design", "architecture", "architect":
			return "design"
		}
	}
	return "implementation"
}
