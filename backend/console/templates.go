package console

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/baton-app/baton/backend/template"
)

const templatesUsage = `usage:
  baton templates list                  list the system and custom templates
  baton templates show ID [--resolved]  print a template as stored, or with inheritance applied,
                                        and (on a terminal) its variables, the required ones marked
  baton templates show ID --vars        list only the template's variables
  baton templates validate FILE         check a template file against the schema and its parents

Custom templates live in %s.
`

// TemplatesCLI runs "baton templates ARGS..." and returns the exit code: 0
// on success, 1 when the template is invalid or missing, 2 on a usage error.
func TemplatesCLI(args []string, stdout, stderr io.Writer) int {
	dir, err := template.DefaultDir()
	if err != nil {
		fmt.Fprintf(stderr, "baton templates: %v. Set BATON_CONFIG_DIR to a folder Baton may use.\n", err)
		return 1
	}
	return templatesCLI(dir, args, stdout, stderr)
}

func templatesCLI(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		w := stderr
		code := 2
		if len(args) > 0 {
			w, code = stdout, 0
		}
		fmt.Fprintf(w, templatesUsage, dir)
		return code
	}
	// Keep the command quiet: only the answer goes to the terminal.
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := template.New(dir, template.Options{Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "baton templates: %v.\n", err)
		return 1
	}
	switch args[0] {
	case "list":
		if len(args) != 1 {
			fmt.Fprintln(stderr, "baton templates list takes no arguments.")
			return 2
		}
		return templatesList(m, stdout, stderr)
	case "show":
		var id string
		resolved, varsOnly := false, false
		for _, a := range args[1:] {
			switch {
			case a == "--resolved" || a == "-resolved":
				resolved = true
			case a == "--vars" || a == "-vars":
				varsOnly = true
			case strings.HasPrefix(a, "-"):
				fmt.Fprintf(stderr, "baton templates show: unknown flag %s. Usage: baton templates show ID [--resolved | --vars]\n", a)
				return 2
			case id == "":
				id = a
			default:
				fmt.Fprintln(stderr, "baton templates show takes one template id. Usage: baton templates show ID [--resolved]")
				return 2
			}
		}
		if id == "" {
			fmt.Fprintln(stderr, "baton templates show needs a template id. Run \"baton templates list\" to see them.")
			return 2
		}
		if varsOnly {
			r, err := m.Resolve(id)
			if err != nil {
				return templatesError(stderr, err)
			}
			printVariables(stdout, r.Template)
			return 0
		}
		// On a terminal the variables follow the JSON; in a pipe stdout
		// stays the template's JSON alone.
		return templatesShow(m, id, resolved, isTerminal(stdout), stdout, stderr)
	case "validate":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "baton templates validate needs exactly one file. Usage: baton templates validate FILE")
			return 2
		}
		return templatesValidate(m, args[1], stdout, stderr)
	}
	fmt.Fprintf(stderr, "baton templates: unknown command %q. Run \"baton templates help\" to see the commands.\n", args[0])
	return 2
}

func templatesList(m *template.Manager, stdout, stderr io.Writer) int {
	list, err := m.List()
	if err != nil {
		fmt.Fprintf(stderr, "baton templates: %v.\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tKIND\tEXTENDS\tSTATUS")
	for _, t := range list {
		kind := "custom"
		if t.IsSystem {
			kind = "system"
		}
		ext := t.Extends
		if ext == "" {
			ext = "-"
		}
		status := "ok"
		if t.Error != "" {
			status = "invalid: " + t.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, kind, ext, status)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

func templatesShow(m *template.Manager, id string, resolved, vars bool, stdout, stderr io.Writer) int {
	if !resolved {
		raw, err := m.Raw(id)
		if err != nil {
			return templatesError(stderr, err)
		}
		_, _ = stdout.Write(raw)
		if len(raw) > 0 && raw[len(raw)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
		// The variables come from the resolved template (a parent may
		// declare them); a broken one is reported by --resolved.
		if r, err := m.Resolve(id); err == nil && vars {
			printVariables(stdout, r.Template)
		}
		return 0
	}
	r, err := m.Resolve(id)
	if err != nil {
		return templatesError(stderr, err)
	}
	b, err := json.MarshalIndent(r.Template, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "baton templates: %v.\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", b)
	if vars {
		printVariables(stdout, r.Template)
	}
	return 0
}

// printVariables lists a template's variables, the required ones marked,
// with how "baton run" takes them.
func printVariables(w io.Writer, t template.Template) {
	if len(t.Variables) == 0 {
		fmt.Fprintf(w, "\nVariables: none.\n")
		return
	}
	names := make([]string, 0, len(t.Variables))
	for n := range t.Variables {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		va, vb := t.Variables[a], t.Variables[b]
		if va.Required != vb.Required {
			if va.Required {
				return -1
			}
			return 1
		}
		if va.Order != vb.Order {
			return va.Order - vb.Order
		}
		return strings.Compare(a, b)
	})
	fmt.Fprintf(w, "\nVariables (give them to baton run as --var NAME=VALUE):\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range names {
		v := t.Variables[n]
		req := "optional"
		if v.Required {
			req = "REQUIRED"
		}
		about := v.Label
		if v.Description != "" {
			about += ": " + v.Description
		}
		var extra []string
		if v.Type != "" {
			extra = append(extra, v.Type)
		}
		if len(v.Options) > 0 {
			extra = append(extra, "one of "+strings.Join(v.Options, ", "))
		}
		if v.Default != nil && fmt.Sprint(v.Default) != "" {
			extra = append(extra, fmt.Sprintf("default %v", v.Default))
		}
		if len(extra) > 0 {
			about += " (" + strings.Join(extra, "; ") + ")"
		}
		fmt.Fprintf(tw, "  --var %s=…\t%s\t%s\n", n, req, line(about))
	}
	tw.Flush()
}

// varHint names the --var flags that fix the variable problems of err
// ("" when err has none).
func varHint(err error) string {
	var names []string
	for _, p := range template.Problems(err) {
		name, ok := strings.CutPrefix(p.Pointer, "/variables/")
		if strings.HasPrefix(p.Message, "the template has no variable") {
			continue // a name the template does not know: the error says so
		}
		if ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	for i, n := range names {
		names[i] = "--var " + n + "=…"
	}
	return "Give the template's variables with " + strings.Join(names, " ") + "; \"baton templates show ID\" lists them, the required ones marked."
}

func templatesValidate(m *template.Manager, file string, stdout, stderr io.Writer) int {
	fi, err := os.Stat(file)
	if err != nil {
		fmt.Fprintf(stderr, "baton templates: cannot read %s: %v.\n", file, errors.Unwrap(err))
		return 1
	}
	if fi.Size() > template.MaxSize {
		fmt.Fprintf(stderr, "%s is larger than %d bytes, too large for a template.\n", file, template.MaxSize)
		return 1
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "baton templates: cannot read %s: %v.\n", file, err)
		return 1
	}
	problems := m.Validate(data)
	if len(problems) == 0 {
		var head struct{ ID, Extends string }
		_ = json.Unmarshal(data, &head)
		if head.Extends != "" {
			fmt.Fprintf(stdout, "%s is a valid template (id %q, extends %q).\n", file, head.ID, head.Extends)
		} else {
			fmt.Fprintf(stdout, "%s is a valid template (id %q).\n", file, head.ID)
		}
		return 0
	}
	fmt.Fprintf(stderr, "%s is not a valid template: %d %s.\n", file, len(problems), plural(len(problems), "problem", "problems"))
	for _, p := range problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(document)"
		}
		fmt.Fprintf(stderr, "  %s: %s\n", ptr, p.Message)
	}
	return 1
}

func templatesError(stderr io.Writer, err error) int {
	msg := err.Error()
	if errors.Is(err, template.ErrNotFound) {
		msg += `; run "baton templates list" to see the templates`
	}
	fmt.Fprintf(stderr, "baton templates: %s.\n", msg)
	for _, p := range template.Problems(err) {
		fmt.Fprintf(stderr, "  %s\n", p)
	}
	return 1
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// templatesFlagSet lists the flags of "baton templates" for its help
// ("show" reads --resolved itself).
func templatesFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("templates", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("resolved", false, "templates show: print the template with inheritance applied")
	fs.Bool("vars", false, "templates show: list only the template's variables, the required ones marked")
	return fs
}

// isTerminal reports whether w (under its safeWriter) is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := unwrap(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// count is "1 task" or "3 tasks".
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }
