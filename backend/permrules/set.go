package permrules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Verdict is what a rule set says of a call.
type Verdict int

// The verdicts.
const (
	// Ask: no rule covers the call; the user decides.
	Ask Verdict = iota
	Allow
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "ask"
}

// Set is allow and deny rules, each with where it came from.
type Set struct {
	allow, deny []sourced
}

type sourced struct {
	rule   Rule
	source string
}

// Lists are rules as written, in allow and deny lists (as in Claude Code's
// settings.json "permissions").
type Lists struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Empty reports whether l holds no rule.
func (l Lists) Empty() bool { return len(l.Allow) == 0 && len(l.Deny) == 0 }

// Check parses every rule of l; the error names each that does not parse.
func (l Lists) Check() error {
	_, err := ParseAll(append(append([]string{}, l.Allow...), l.Deny...))
	return err
}

// Add parses the rules of l and adds them with their source ("settings",
// "template", "run"). On error nothing is added and the error names every
// rule that does not parse.
func (s *Set) Add(l Lists, source string) error {
	allow, aerr := ParseAll(l.Allow)
	deny, derr := ParseAll(l.Deny)
	if aerr != nil || derr != nil {
		return fmt.Errorf("%s rules: %w", source, joinErr(aerr, derr))
	}
	for _, r := range allow {
		s.allow = append(s.allow, sourced{r, source})
	}
	for _, r := range deny {
		s.deny = append(s.deny, sourced{r, source})
	}
	return nil
}

func joinErr(a, b error) error {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return fmt.Errorf("%w; %w", a, b)
}

// Has reports whether the set holds rule r as an allow (or deny) rule.
func (s Set) Has(r Rule, deny bool) bool {
	list := s.allow
	if deny {
		list = s.deny
	}
	for _, x := range list {
		if x.rule.String() == r.String() {
			return true
		}
	}
	return false
}

// Decision is a set's verdict on a call and the rule that decided it.
type Decision struct {
	Verdict Verdict
	// Rule is the deciding rule as written, Source where it came from.
	Rule   string
	Source string
}

// Decide says what the set does with call c: Deny when a deny rule
// matches it, Allow when allow rules cover it, else Ask.
func (s Set) Decide(c Call) Decision {
	for _, d := range s.deny {
		if d.rule.Matches(c) {
			return Decision{Deny, d.rule.String(), d.source}
		}
	}
	if c.Tool == "Bash" {
		return s.allowCommand(c)
	}
	for _, a := range s.allow {
		if a.rule.Matches(c) {
			return Decision{Allow, a.rule.String(), a.source}
		}
	}
	return Decision{}
}

// allowCommand allows a Bash call that an allow rule matches whole (the
// tool, or the exact command) or whose every command an allow rule matches.
func (s Set) allowCommand(c Call) Decision {
	cmd := c.Command()
	for _, a := range s.allow {
		if a.rule.Tool != "Bash" {
			continue
		}
		// The tool, or the exact command (compound or not); prefix and
		// wildcard rules are matched command by command below.
		if a.rule.Spec == "" || !strings.Contains(a.rule.Spec, "*") && a.rule.matchCommand(cmd) {
			return Decision{Allow, a.rule.String(), a.source}
		}
	}
	parts := splitCommand(cmd)
	if len(parts) == 0 {
		return Decision{}
	}
	var first sourced
	for i, part := range parts {
		found := false
		for _, a := range s.allow {
			if a.rule.Tool == "Bash" && a.rule.matchCommand(part) {
				if i == 0 {
					first = a
				}
				found = true
				break
			}
		}
		if !found {
			return Decision{}
		}
	}
	return Decision{Allow, first.rule.String(), first.source}
}

// Suggestion is a rule Baton offers for a prompt, with what it covers in
// words.
type Suggestion struct {
	Rule  string `json:"rule"`
	Label string `json:"label"`
}

// Suggest offers the rules that would allow call c, narrowest first: the
// exact command and its prefixes for Bash, the file and its folder for file
// tools, the host for WebFetch, else the tool.
func Suggest(c Call) []Suggestion {
	var out []Suggestion
	add := func(rule, label string) {
		for _, s := range out {
			if s.Rule == rule {
				return
			}
		}
		if _, err := Parse(rule); err == nil {
			out = append(out, Suggestion{rule, label})
		}
	}
	switch {
	case c.Tool == "Bash":
		cmd := strings.Join(strings.Fields(c.Command()), " ")
		if cmd == "" || strings.ContainsAny(cmd, "()") {
			break
		}
		add("Bash("+cmd+")", "this exact command")
		if len(splitCommand(cmd)) > 1 {
			break
		}
		words := strings.Fields(cmd)
		if len(words) > 2 && !strings.HasPrefix(words[1], "-") {
			add("Bash("+words[0]+" "+words[1]+":*)", "commands that start with "+words[0]+" "+words[1])
		}
		if len(words) > 1 {
			add("Bash("+words[0]+":*)", "commands that start with "+words[0])
		}
	case pathTools[c.Tool] != nil || c.Tool == "Grep" || c.Tool == "Glob" || c.Tool == "LS":
		family := "Read"
		if c.Tool == "Edit" || c.Tool == "MultiEdit" || c.Tool == "Write" || c.Tool == "NotebookEdit" {
			family = "Edit"
		}
		file := c.File()
		if file == "" {
			break
		}
		rel, under := c.relative(file)
		prefix := "/"
		if !under {
			prefix = "//"
		}
		if c.Tool != "Grep" && c.Tool != "Glob" && c.Tool != "LS" {
			add(family+"("+rel+")", "this file")
			rel = path.Dir(strings.TrimPrefix(rel, prefix))
		} else {
			rel = strings.TrimPrefix(rel, prefix)
		}
		if rel == "." || rel == "" {
			if under {
				add(family+"(/**)", "every file in the project")
			}
		} else {
			add(family+"("+prefix+rel+"/**)", "files under "+rel+"/")
		}
	case c.Tool == "WebFetch":
		if h := c.Host(); h != "" {
			add("WebFetch(domain:"+h+")", "fetches from "+h)
		}
	}
	add(c.Tool, "every "+c.Tool+" call")
	return out
}

// relative is file as a rule writes it: "/path" relative to the project
// (under is true), else "//absolute".
func (c Call) relative(file string) (string, bool) {
	if c.Root != "" {
		if rel, err := filepath.Rel(c.Root, file); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if rel == "." {
				return "/", true
			}
			return "/" + filepath.ToSlash(rel), true
		}
	}
	return "/" + filepath.ToSlash(file), false
}

// Key identifies a prompt so that identical ones (the same tool with the
// same input, the Bash call's description aside) group together.
func Key(tool string, input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return tool + "\x00" + string(bytes.TrimSpace(input))
	}
	if tool == "Bash" {
		delete(m, "description")
		delete(m, "timeout")
		if cmd, ok := m["command"].(string); ok {
			m["command"] = strings.Join(strings.Fields(cmd), " ")
		}
	}
	b, _ := json.Marshal(m) // map keys come sorted
	return tool + "\x00" + string(b)
}

// Summary is a short line saying what a call does: the command, the file,
// the URL, else its input, cut to about 200 characters.
func Summary(tool string, input json.RawMessage) string {
	c := Call{Tool: tool, Input: input}
	s := ""
	for _, k := range []string{"command", "file_path", "notebook_path", "url", "pattern", "path", "query", "subagent_type"} {
		if s = strings.TrimSpace(c.str(k)); s != "" {
			break
		}
	}
	if s == "" {
		s = strings.TrimSpace(string(input))
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
