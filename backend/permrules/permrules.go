// Package permrules reads Claude Code's permission rules and decides a tool
// call by them. Its one rule: a deny rule that matches a call wins over
// every allow rule; a call no rule matches is left to the user.
//
// The syntax is Claude Code's: "Tool" or "Tool(*)" matches every use of a
// tool; "Bash(npm run build)" one exact command, "Bash(go test:*)" every
// command that starts with the words "go test", "Bash(git * main)" a
// command with wildcards; "Edit(docs/**)", "Read(~/.zshrc)",
// "Write(//tmp/*.log)" files by gitignore-style patterns (relative to the
// project, "/" the project's root, "//" the file system's root, "~/" the
// home folder); "WebFetch(domain:example.com)" fetches from a host; and
// "mcp__server" or "mcp__server__tool" the tools of an MCP server. An Edit
// rule covers every tool that edits files (Edit, MultiEdit, Write,
// NotebookEdit), a Read rule those that read them (Read, Grep, Glob, LS).
// A prefix or wildcard rule allows a compound command ("a && b") only when
// every command in it is allowed; a deny rule denies it when it matches any
// of them.
package permrules

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ErrSyntax marks a rule that does not parse.
var ErrSyntax = errors.New("not a permission rule")

// Rule is one parsed permission rule.
type Rule struct {
	// Tool is the tool's name ("Bash", "Edit", "mcp__github").
	Tool string
	// Spec is what is inside the parentheses; empty matches every use.
	Spec string
	glob *regexp.Regexp // path rules: the compiled pattern
}

// String is the rule as Claude Code writes it.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

var toolName = regexp.MustCompile(`^(?:[A-Z][A-Za-z0-9_]*|mcp__[A-Za-z0-9_-]+(?:__[A-Za-z0-9_*-]+)?)$`)

// Tools whose rules name files, and which tools each covers.
var pathTools = map[string][]string{
	"Edit":         {"Edit", "MultiEdit", "Write", "NotebookEdit"},
	"Write":        {"Write"},
	"MultiEdit":    {"MultiEdit"},
	"NotebookEdit": {"NotebookEdit"},
	"Read":         {"Read", "Grep", "Glob", "LS"},
}

// Parse reads one rule. A rule that does not parse is an ErrSyntax error
// that names it and says why.
func Parse(s string) (Rule, error) {
	bad := func(why string) (Rule, error) {
		return Rule{}, fmt.Errorf("%w: %q %s", ErrSyntax, s, why)
	}
	text := strings.TrimSpace(s)
	if text == "" {
		return bad("is empty")
	}
	if !utf8.ValidString(text) {
		return bad("is not valid UTF-8")
	}
	r := Rule{Tool: text}
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return bad("opens a parenthesis it does not close at its end")
		}
		r.Tool, r.Spec = strings.TrimSpace(text[:i]), text[i+1:len(text)-1]
		if strings.TrimSpace(r.Spec) == "" {
			return bad("has nothing between its parentheses")
		}
		if r.Spec == "*" {
			r.Spec = ""
		}
	} else if strings.ContainsRune(text, ')') {
		return bad("closes a parenthesis it does not open")
	}
	if !toolName.MatchString(r.Tool) {
		return bad("does not start with a tool name such as Bash, Edit, Read, WebFetch or mcp__server (tool names start with a capital letter)")
	}
	if r.Spec == "" {
		return r, nil
	}
	switch {
	case strings.HasPrefix(r.Tool, "mcp__"):
		return bad("names an MCP tool, which takes nothing in parentheses")
	case r.Tool == "Bash":
		if i := strings.Index(r.Spec, ":*"); i >= 0 && i != len(r.Spec)-2 {
			return bad("uses :* before its end (a prefix rule ends with :*, as in Bash(npm run:*))")
		}
	case r.Tool == "WebFetch":
		host, ok := strings.CutPrefix(r.Spec, "domain:")
		if !ok || strings.TrimSpace(host) == "" || strings.ContainsAny(host, "/ ") {
			return bad("must name a host, as in WebFetch(domain:example.com)")
		}
	case pathTools[r.Tool] != nil:
		re, err := compileGlob(r.Spec)
		if err != nil {
			return bad("has a path pattern that does not parse: " + err.Error())
		}
		r.glob = re
	}
	return r, nil
}

// ParseAll parses rules; the error names every rule that does not parse.
func ParseAll(rules []string) ([]Rule, error) {
	out := make([]Rule, 0, len(rules))
	var errs []error
	for _, s := range rules {
		r, err := Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// Call is a tool call to decide: the tool, its input, and the folders its
// paths are relative to.
type Call struct {
	Tool  string
	Input json.RawMessage
	// Root is the project folder the session works in; relative paths and
	// rules are relative to it.
	Root string
	// Home is the user's home folder, for "~/" rules.
	Home string
}

// input reads the call's input as an object (empty when it is not one).
func (c Call) input() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(c.Input, &m)
	return m
}

func (c Call) str(key string) string {
	s, _ := c.input()[key].(string)
	return s
}

// Command is a Bash call's command.
func (c Call) Command() string { return strings.TrimSpace(c.str("command")) }

// File is the path a file tool's call names, absolute ("" when none).
func (c Call) File() string {
	p := ""
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		if p = c.str(k); p != "" {
			break
		}
	}
	if p == "" {
		if c.Tool == "Grep" || c.Tool == "Glob" || c.Tool == "LS" {
			p = c.Root // no path: the session's folder
		} else {
			return ""
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Root, p)
	}
	return filepath.Clean(p)
}

// Host is the host a WebFetch call fetches from.
func (c Call) Host() string {
	u, err := url.Parse(c.str("url"))
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// Matches reports whether r covers call c. For a Bash rule with a
// specifier, a compound command matches when any of its commands does (what
// a deny rule needs); Set.Decide asks more of an allow rule.
func (r Rule) Matches(c Call) bool {
	if !r.coversTool(c.Tool) {
		return false
	}
	if r.Spec == "" {
		return true
	}
	switch {
	case r.Tool == "Bash":
		cmd := c.Command()
		if r.matchCommand(cmd) {
			return true
		}
		for _, part := range splitCommand(cmd) {
			if r.matchCommand(part) {
				return true
			}
		}
		return false
	case r.Tool == "WebFetch":
		host := strings.ToLower(strings.TrimPrefix(r.Spec, "domain:"))
		h := c.Host()
		if sub, ok := strings.CutPrefix(host, "*."); ok {
			return h == sub || strings.HasSuffix(h, "."+sub)
		}
		return h != "" && h == host
	case r.glob != nil:
		return r.matchFile(c)
	}
	// A specifier on a tool Baton does not know the input of matches only
	// the input's main value spelled the same.
	for _, k := range []string{"subagent_type", "skill", "command", "query", "prompt"} {
		if v := c.str(k); v != "" {
			return v == r.Spec
		}
	}
	return false
}

func (r Rule) coversTool(tool string) bool {
	if strings.HasPrefix(r.Tool, "mcp__") {
		if r.Tool == tool {
			return true
		}
		server := strings.TrimSuffix(r.Tool, "__*")
		return strings.Count(server, "__") == 1 && strings.HasPrefix(tool, server+"__")
	}
	if tools, ok := pathTools[r.Tool]; ok {
		for _, t := range tools {
			if t == tool {
				return true
			}
		}
		return false
	}
	return r.Tool == tool
}

// matchCommand matches one command (no && or ; in it) against a Bash
// specifier: "prefix:*", a pattern with *, or the exact command.
func (r Rule) matchCommand(cmd string) bool {
	cmd = strings.Join(strings.Fields(cmd), " ")
	spec := strings.TrimSpace(r.Spec)
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		prefix = strings.Join(strings.Fields(prefix), " ")
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	if !strings.Contains(spec, "*") {
		return cmd == strings.Join(strings.Fields(spec), " ")
	}
	var re strings.Builder
	re.WriteString("^")
	parts := strings.Split(spec, "*")
	for i, p := range parts {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(p))
	}
	re.WriteString("$")
	if regexp.MustCompile(re.String()).MatchString(cmd) {
		return true
	}
	// "ls *" also matches "ls": a single trailing " *" is optional.
	if base, ok := strings.CutSuffix(spec, " *"); ok && len(parts) == 2 {
		return cmd == strings.TrimSpace(base)
	}
	return false
}

// splitCommand splits a shell command at &&, ||, ;, |, & and new lines
// outside quotes.
func splitCommand(cmd string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
	)
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		ch := rs[i]
		switch {
		case quote != 0:
			if ch == '\\' && quote == '"' && i+1 < len(rs) {
				cur.WriteRune(ch)
				i++
				ch = rs[i]
			} else if ch == quote {
				quote = 0
			}
			cur.WriteRune(ch)
		case ch == '\'' || ch == '"':
			quote = ch
			cur.WriteRune(ch)
		case ch == '\\' && i+1 < len(rs):
			cur.WriteRune(ch)
			i++
			cur.WriteRune(rs[i])
		case ch == ';' || ch == '\n' || ch == '|' || ch == '&':
			flush()
			if i+1 < len(rs) && (rs[i+1] == ch) && (ch == '|' || ch == '&') {
				i++
			}
		default:
			cur.WriteRune(ch)
		}
	}
	flush()
	return out
}

// matchFile matches a file tool's path against a path rule.
func (r Rule) matchFile(c Call) bool {
	file := c.File()
	if file == "" {
		return false
	}
	base, pattern := c.Root, r.Spec
	switch {
	case strings.HasPrefix(pattern, "//"):
		base, pattern = "/", pattern[2:]
	case strings.HasPrefix(pattern, "~/"):
		base, pattern = c.Home, pattern[2:]
	}
	if base == "" {
		return false
	}
	rel, err := filepath.Rel(base, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	rel = filepath.ToSlash(rel)
	// A pattern that names a folder covers what is under it.
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if r.glob.MatchString(p) {
			return true
		}
	}
	return false
}

// compileGlob turns a gitignore-style pattern (already without a leading
// "//" or "~/") into a regular expression over a slash path relative to its
// base. A pattern with no slash but a trailing one matches at any depth.
// One that starts with "//" or "~/" is anchored at its base.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	p := pattern
	anchored := false
	for _, prefix := range []string{"//", "~/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			p, anchored = rest, true
		}
	}
	p = strings.TrimPrefix(p, "./")
	anchored = anchored || strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.TrimPrefix(strings.TrimSuffix(p, "/"), "/")
	if p == "" {
		return regexp.Compile(`^.*$`)
	}
	var re strings.Builder
	re.WriteString("^")
	if !anchored {
		re.WriteString("(?:.*/)?")
	}
	lit := 0 // start of the literal run not yet written
	for i := 0; i < len(p); i++ {
		var part string
		skip := 0
		switch p[i] {
		case '*':
			switch {
			case strings.HasPrefix(p[i:], "**/"):
				part, skip = "(?:.*/)?", 2
			case strings.HasPrefix(p[i:], "**"):
				part, skip = ".*", 1
			default:
				part = "[^/]*"
			}
		case '?':
			part = "[^/]"
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				return nil, errors.New("a [ without its ]")
			}
			class := p[i+1 : i+1+end]
			if c, ok := strings.CutPrefix(class, "!"); ok {
				class = "^" + c
			}
			part, skip = "["+strings.ReplaceAll(class, `\`, `\\`)+"]", end+1
		case '\\':
			if i+1 < len(p) {
				re.WriteString(regexp.QuoteMeta(p[lit:i]))
				lit = i + 1 // the escaped character is literal
				i++
			}
			continue
		default:
			continue
		}
		re.WriteString(regexp.QuoteMeta(p[lit:i]))
		re.WriteString(part)
		i += skip
		lit = i + 1
	}
	re.WriteString(regexp.QuoteMeta(p[lit:]))
	re.WriteString("$")
	return regexp.Compile(re.String())
}
