package skills

import (
	"fmt"
	"strings"
)

// PromptSection renders matched skills as the "Your Skills" section of a
// worker prompt (seed 004's constructPrompt: each skill's text between
// "---" lines). The front matter is left out: it is for matching, not for
// the worker. No matches give "".
func PromptSection(matches []Match) string {
	if len(matches) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Your Skills\n")
	b.WriteString("Apply the guidance of these skills to your task.\n")
	for _, m := range matches {
		b.WriteString("\n---\n")
		fmt.Fprintf(&b, "### Skill: %s (%s)\n\n", m.Skill.Name, m.Skill.ID)
		if body := strings.TrimSpace(m.Skill.Body); body != "" {
			b.WriteString(body)
			b.WriteString("\n")
		}
	}
	b.WriteString("---\n")
	return b.String()
}

// IDs returns the ids of the matched skills, for the task review table.
func IDs(matches []Match) []string {
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		out = append(out, m.Skill.ID)
	}
	return out
}
