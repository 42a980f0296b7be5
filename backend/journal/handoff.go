package journal

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Handoff outcomes (seed 004 3.7).
const (
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"
	OutcomePartial   = "partial"
)

// Handoff is the structured YAML handoff a worker ends its journal entry
// with. Seed 004 names outcome, files_created, files_modified, blockers,
// patterns_discovered and gotchas; summary and files_to_read carry the
// "summaries, files_to_read" its computed context hands to dependent
// tasks.
type Handoff struct {
	Outcome            string   `yaml:"outcome" json:"outcome"`
	Summary            string   `yaml:"summary" json:"summary,omitempty"`
	FilesCreated       []string `yaml:"files_created" json:"files_created,omitempty"`
	FilesModified      []string `yaml:"files_modified" json:"files_modified,omitempty"`
	FilesToRead        []string `yaml:"files_to_read" json:"files_to_read,omitempty"`
	PatternsDiscovered []Note   `yaml:"patterns_discovered" json:"patterns_discovered,omitempty"`
	Gotchas            []Note   `yaml:"gotchas" json:"gotchas,omitempty"`
	Blockers           []string `yaml:"blockers" json:"blockers,omitempty"`
}

// Note is a pattern or gotcha: a plain string in the YAML, or a mapping
// with name and description.
type Note struct {
	Name        string `yaml:"name" json:"name,omitempty"`
	Description string `yaml:"description" json:"description"`
}

// UnmarshalYAML reads a string or a {name, description} mapping.
func (n *Note) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		n.Description = v.Value
		return nil
	}
	type plain Note
	var p plain
	if err := v.Decode(&p); err != nil {
		return err
	}
	*n = Note(p)
	return nil
}

// MarshalYAML writes a note without a name as a plain string.
func (n Note) MarshalYAML() (any, error) {
	if n.Name == "" {
		return n.Description, nil
	}
	type plain Note
	return plain(n), nil
}

func (n Note) String() string {
	if n.Name == "" {
		return n.Description
	}
	if n.Description == "" {
		return n.Name
	}
	return n.Name + ": " + n.Description
}

var yamlFence = regexp.MustCompile("(?ms)^```ya?ml[ \t]*\n(.*?)^```[ \t]*$")

// ParseHandoff finds the handoff in a task file: the last ```yaml block
// that holds an outcome, either at its top level or under a "handoff:"
// key (workers write both). The outcome must be completed, failed or
// partial (case ignored). A file without one is ErrNoHandoff; a handoff
// block whose YAML is broken is an error that says so, since the worker
// meant to write one.
func ParseHandoff(file []byte) (Handoff, error) {
	text := strings.ReplaceAll(string(file), "\r\n", "\n")
	blocks := yamlFence.FindAllStringSubmatch(text, -1)
	var firstErr error
	for i := len(blocks) - 1; i >= 0; i-- {
		body := blocks[i][1]
		var probe map[string]yaml.Node
		if err := yaml.Unmarshal([]byte(body), &probe); err != nil {
			if firstErr == nil && strings.Contains(body, "outcome") {
				firstErr = fmt.Errorf("the handoff block is not valid YAML: %w", err)
			}
			continue
		}
		node, ok := probe["handoff"]
		if !ok {
			if _, has := probe["outcome"]; !has {
				continue
			}
		}
		var h Handoff
		var err error
		if ok {
			err = node.Decode(&h)
		} else {
			err = yaml.Unmarshal([]byte(body), &h)
		}
		if err != nil {
			return Handoff{}, fmt.Errorf("the handoff block does not fit the handoff schema: %w", err)
		}
		h.Outcome = strings.ToLower(strings.TrimSpace(h.Outcome))
		if !slices.Contains([]string{OutcomeCompleted, OutcomeFailed, OutcomePartial}, h.Outcome) {
			return Handoff{}, fmt.Errorf("the handoff outcome %q is not completed, failed or partial", h.Outcome)
		}
		return h, nil
	}
	if firstErr != nil {
		return Handoff{}, firstErr
	}
	return Handoff{}, ErrNoHandoff
}

// Context is the computed context of a task (seed 004 3.4): what its
// dependencies' handoffs say, and the code references of the context map
// that match it, limited by complexity.
type Context struct {
	Prior    []PriorTask  `json:"prior"`
	CodeRefs []ContextRef `json:"code_refs"`
}

// PriorTask is one dependency's outcome.
type PriorTask struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Outcome     string   `json:"outcome"`
	Summary     string   `json:"summary,omitempty"`
	FilesToRead []string `json:"files_to_read,omitempty"`
	Notes       []string `json:"notes,omitempty"` // patterns and gotchas inherited
}

// MaxCodeRefs returns the code reference limit of a complexity (seed 004:
// easy 5, normal 10, complex 20; low and high count as easy and complex);
// anything else gets the normal limit.
func MaxCodeRefs(complexity string) int {
	switch complexity {
	case "easy", "low":
		return 5
	case "complex", "high":
		return 20
	}
	return 10
}

// ComputeContext gathers the context of task id: for each dependency, its
// handoff (or its status when it has none), and the context-map entries
// scored by how many of the task's words they share (file path and
// description), best first, at most MaxCodeRefs(complexity). Entries with
// no shared word are left out.
func (j *Journal) ComputeContext(id string) (Context, error) {
	ix, err := j.Load()
	if err != nil {
		return Context{}, err
	}
	t, ok := ix.Task(id)
	if !ok {
		return Context{}, fmt.Errorf("compute context of %s: %w", id, ErrUnknownTask)
	}
	ctx := Context{Prior: []PriorTask{}, CodeRefs: []ContextRef{}}
	for _, dep := range t.Dependencies {
		d, ok := ix.Task(dep)
		if !ok {
			continue
		}
		p := PriorTask{ID: d.ID, Name: d.Name, Outcome: d.Status}
		if data, err := j.ReadTask(dep); err == nil {
			if h, err := ParseHandoff(data); err == nil {
				p.Outcome, p.Summary, p.FilesToRead = h.Outcome, h.Summary, h.FilesToRead
				for _, n := range append(slices.Clone(h.PatternsDiscovered), h.Gotchas...) {
					p.Notes = append(p.Notes, n.String())
				}
			}
		}
		ctx.Prior = append(ctx.Prior, p)
	}
	words := map[string]bool{}
	for _, w := range wordsOf(t.Name + " " + t.Objective + " " + strings.Join(t.AcceptanceCriteria, " ")) {
		words[w] = true
	}
	type scored struct {
		ref   ContextRef
		score int
	}
	var list []scored
	for _, c := range ix.ContextMap {
		n := 0
		seen := map[string]bool{}
		for _, w := range wordsOf(c.File + " " + c.Description) {
			if words[w] && !seen[w] {
				seen[w] = true
				n++
			}
		}
		if n > 0 {
			list = append(list, scored{c, n})
		}
	}
	slices.SortStableFunc(list, func(a, b scored) int { return b.score - a.score })
	for i, s := range list {
		if i == MaxCodeRefs(t.Complexity) {
			break
		}
		ctx.CodeRefs = append(ctx.CodeRefs, s.ref)
	}
	return ctx, nil
}

var wordRe = regexp.MustCompile(`[a-z0-9]+`)

// wordsOf returns the lower-cased words of s of three letters or more, so
// "a", "to" and path separators do not count as shared.
func wordsOf(s string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

// PromptSection renders a computed context as the "Context from Prior
// Work" and "Code References" sections of a worker prompt (seed 004 3.5).
// An empty context gives "".
func (c Context) PromptSection() string {
	if len(c.Prior) == 0 && len(c.CodeRefs) == 0 {
		return ""
	}
	var b strings.Builder
	if len(c.Prior) > 0 {
		b.WriteString("## Context from Prior Work\n")
		for _, p := range c.Prior {
			fmt.Fprintf(&b, "### %s (Task %s)\n**Outcome**: %s\n", p.Name, p.ID, p.Outcome)
			if p.Summary != "" {
				fmt.Fprintf(&b, "**Relevant Notes**: %s\n", strings.TrimSpace(p.Summary))
			}
			if len(p.FilesToRead) > 0 {
				fmt.Fprintf(&b, "**Files to read**: %s\n", strings.Join(p.FilesToRead, ", "))
			}
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "- %s\n", n)
			}
			b.WriteString("\n")
		}
	}
	if len(c.CodeRefs) > 0 {
		b.WriteString("## Code References\n")
		for _, r := range c.CodeRefs {
			fmt.Fprintf(&b, "- %s", r.File)
			if r.Description != "" {
				fmt.Fprintf(&b, " — %s", r.Description)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
