package report

import (
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/store"
)

// PullRequest is the title and body of a pull request for a finished
// run's branch, made from its request and its final report: the outcome
// and its issues, the tasks with what became of them, the files and the
// known limitations.
func PullRequest(r store.Run, rep FinalReport) (title, body string) {
	title = strings.TrimSpace(strings.Join(strings.Fields(firstLine(r.Request)), " "))
	if title == "" {
		title = "Changes of Baton run " + r.ID
	}
	title = clip(title, 72)
	var b strings.Builder
	fmt.Fprintf(&b, "Made by Baton run `%s`", r.ID)
	if r.TemplateName != "" {
		fmt.Fprintf(&b, " (%s)", r.TemplateName)
	}
	b.WriteString(" from this request:\n\n")
	for _, l := range strings.Split(strings.TrimSpace(r.Request), "\n") {
		b.WriteString("> " + l + "\n")
	}
	fmt.Fprintf(&b, "\n**Outcome: %s.**", OutcomeLabel(rep.Status))
	if len(rep.Issues) == 0 {
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, is := range rep.Issues {
		fmt.Fprintf(&b, "- %s\n", is)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	b.WriteString("\n## Tasks\n\n")
	tick := func(refs []TaskRef, mark, what string) {
		for _, t := range refs {
			fmt.Fprintf(&b, "- [%s] `%s` %s", mark, t.ID, t.Title)
			if what != "" {
				fmt.Fprintf(&b, " — %s", what)
				if t.Reason != "" {
					fmt.Fprintf(&b, ": %s", oneLine(t.Reason, 200))
				}
			}
			b.WriteString("\n")
		}
	}
	tick(rep.Completed, "x", "")
	tick(rep.Failed, " ", "failed")
	tick(rep.Skipped, " ", "skipped")
	tick(rep.NotRun, " ", "not run")
	if len(rep.Files) > 0 {
		b.WriteString("\n## Files\n\n")
		for _, f := range rep.Files {
			fmt.Fprintf(&b, "- `%s` (%s)\n", f.Path, strings.Join(f.Tasks, ", "))
		}
	}
	if len(rep.Limitations) > 0 {
		b.WriteString("\n## Known limitations\n\n")
		for _, l := range rep.Limitations {
			fmt.Fprintf(&b, "- **%s**", limitLabel(l.Kind))
			if l.TaskID != "" {
				fmt.Fprintf(&b, " `%s`", l.TaskID)
			}
			fmt.Fprintf(&b, ": %s\n", oneLine(l.Text, 300))
		}
	}
	return title, b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func oneLine(s string, n int) string { return clip(strings.Join(strings.Fields(s), " "), n) }
