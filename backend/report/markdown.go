package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Markdown writes a run as a Markdown document: what was asked, how it
// went, every task with its result or its failure, the main session's
// answers (oldest first) and its final report (nil: none yet).
func Markdown(r store.Run, tasks []store.Task, workers []store.Worker, answers []store.PhaseAnswer, final *FinalReport) string {
	var b strings.Builder
	title := strings.TrimSpace(strings.SplitN(r.Request, "\n", 2)[0])
	title = clip(title, 100)
	fmt.Fprintf(&b, "# %s\n\n", mdText(title))
	fmt.Fprintf(&b, "- Run: `%s`\n- Template: %s (`%s`)\n- Folder: `%s`\n- Status: **%s**\n", r.ID, mdText(r.TemplateName), r.TemplateID, r.Cwd, OutcomeLabel(r.Status))
	// Why the run is not a clean completed, first: the rest is detail.
	for _, is := range r.Issues {
		fmt.Fprintf(&b, "- Issue: %s\n", mdText(is))
	}
	fmt.Fprintf(&b, "- Created: %s\n", r.CreatedAt.UTC().Format(time.RFC3339))
	if r.StartedAt != nil && r.CompletedAt != nil {
		fmt.Fprintf(&b, "- Duration: %s\n", r.CompletedAt.Sub(*r.StartedAt).Round(time.Second))
	}
	fmt.Fprintf(&b, "- Tasks: %d completed, %d failed, %d skipped of %d\n", r.TasksCompleted, r.TasksFailed, r.TasksSkipped, r.TasksTotal)
	fmt.Fprintf(&b, "- Tokens: %d in, %d out; cost %s\n", r.InputTokens, r.OutputTokens, CostLabel(r.CostUSD, r.Limits))
	if h := r.Host; h.Kind != "" {
		fmt.Fprintf(&b, "- Host: %s\n", mdText(cmp.Or(h.Description, h.Label, h.Kind)))
	}
	if r.Limits.BudgetUSD > 0 || r.Limits.BudgetTokens > 0 {
		fmt.Fprintf(&b, "- Budget: %s\n", limits.Describe(template.Budget{MaxCostUSD: r.Limits.BudgetUSD, MaxTokens: r.Limits.BudgetTokens},
			r.CostUSD, r.InputTokens+r.OutputTokens))
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "- Error: %s\n", mdText(r.Error))
	}
	if r.Message != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Message)
	}
	fmt.Fprintf(&b, "\n## Request\n\n%s\n", r.Request)

	for _, a := range answers {
		if a.Status != "valid" && a.Status != "repaired" {
			continue
		}
		switch protocol.Phase(a.Phase) {
		case protocol.PhaseAnalysis:
			var d protocol.Analysis
			if json.Unmarshal(a.Data, &d) == nil {
				fmt.Fprintf(&b, "\n## Analysis\n\n%s\n", d.Summary)
				for _, w := range d.Warnings {
					fmt.Fprintf(&b, "- Warning: %s\n", w)
				}
			}
		case protocol.PhaseAggregation:
			var d protocol.Aggregation
			if json.Unmarshal(a.Data, &d) == nil {
				fmt.Fprintf(&b, "\n## Result (%s)\n\n%s\n", d.Status, d.Summary)
				for _, c := range d.Conflicts {
					fmt.Fprintf(&b, "- %s: %s", c.Type, c.Description)
					if c.Resolution != "" {
						fmt.Fprintf(&b, " (%s)", c.Resolution)
					}
					b.WriteString("\n")
				}
				if d.MergedOutput != "" {
					fmt.Fprintf(&b, "\n%s\n", d.MergedOutput)
				}
			}
		case protocol.PhaseVerification:
			var d protocol.Verification
			if json.Unmarshal(a.Data, &d) == nil {
				fmt.Fprintf(&b, "\n## Verification (%s)\n\n%s\n", d.Status, d.Summary)
				for _, is := range d.Issues {
					fmt.Fprintf(&b, "- [%s] %s\n", is.Severity, is.Description)
				}
			}
		}
	}

	if final != nil {
		writeFinalReport(&b, final)
	}

	if len(tasks) > 0 {
		b.WriteString("\n## Tasks\n\n| Task | Title | Priority | Status | Retries | Tools | Tokens in/out | Cost |\n|---|---|---|---|---|---|---|---|\n")
		byTask := map[string]int{}
		for i, w := range workers {
			byTask[w.TaskID] = i
		}
		for _, t := range tasks {
			status, retries, tools, tokens, cost := "not started", 0, 0, "0/0", "$0"
			if i, ok := byTask[t.ID]; ok {
				w := workers[i]
				status, retries, tools = w.Status, w.RetryCount, w.Tools.Total
				if w.Skipped {
					status = "skipped"
				}
				if w.Unstructured {
					status += " (unstructured)"
				}
				tokens = fmt.Sprintf("%d/%d", w.InputTokens, w.OutputTokens)
				cost = fmt.Sprintf("$%.4f", w.CostUSD)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %d | %d | %s | %s |\n", t.ID, cell(t.Title), t.Priority, status, retries, tools, tokens, cost)
		}
		for _, t := range tasks {
			i, ok := byTask[t.ID]
			if !ok {
				continue
			}
			w := workers[i]
			fmt.Fprintf(&b, "\n### %s: %s\n\n", t.ID, mdText(t.Title))
			if w.Summary != "" {
				fmt.Fprintf(&b, "%s\n\n", w.Summary)
			}
			if w.Error != "" {
				fmt.Fprintf(&b, "**%s:** %s\n\n", reasonLabel(w.Status, w.Skipped), w.Error)
			}
			if len(w.OutputFiles) > 0 {
				b.WriteString("Files:\n")
				for _, f := range w.OutputFiles {
					fmt.Fprintf(&b, "- `%s`\n", f)
				}
				b.WriteString("\n")
			}
			if len(w.MissingOutputs) > 0 {
				fmt.Fprintf(&b, "**Declared but not written:** `%s`\n\n", strings.Join(w.MissingOutputs, "`, `"))
			}
			if len(w.OutOfScope) > 0 {
				fmt.Fprintf(&b, "**Changed outside its scope:** `%s`\n\n", strings.Join(w.OutOfScope, "`, `"))
			}
			if w.Output != "" {
				fmt.Fprintf(&b, "%s\n\n", w.Output)
			}
		}
	}
	return b.String()
}

// writeFinalReport writes the stored final report: limitations first, then
// decisions, iterations and files.
func writeFinalReport(b *strings.Builder, f *FinalReport) {
	c := f.Tasks
	fmt.Fprintf(b, "\n## Final report\n\n- Tasks: %d completed, %d failed, %d skipped, %d not run of %d\n",
		c.Completed, c.Failed, c.Skipped, c.NotRun, c.Total)
	it := f.Iterations
	fmt.Fprintf(b, "- Iterations: %d (QA remediation rounds: %d, worker retries: %d, review rejections: %d, re-prompts: %d)\n",
		it.Total, len(it.Remediation), len(it.Retries), len(it.Rejections), it.Reprompts)
	fmt.Fprintf(b, "- Decisions: %d\n- Files: %d\n", len(f.Decisions), len(f.Files))
	fmt.Fprintf(b, "- Cost: %s (%d tokens in, %d out)", f.Cost.Label, f.Cost.InputTokens, f.Cost.OutputTokens)
	if f.Cost.LimitWaits > 0 {
		fmt.Fprintf(b, "; limit waits: %d", f.Cost.LimitWaits)
	}
	b.WriteString("\n")
	for _, n := range f.Notes {
		fmt.Fprintf(b, "- %s\n", mdText(n))
	}

	if f.Checks != nil {
		writeChecks(b, f.Checks)
	}

	b.WriteString("\n### Known limitations\n\n")
	if len(f.Limitations) == 0 {
		b.WriteString("None known.\n")
	}
	for _, l := range f.Limitations {
		b.WriteString("- **" + limitLabel(l.Kind) + "**")
		if l.Severity != "" {
			fmt.Fprintf(b, " [%s]", l.Severity)
		}
		if l.TaskID != "" {
			fmt.Fprintf(b, " `%s`", l.TaskID)
		}
		fmt.Fprintf(b, ": %s", mdText(l.Text))
		if len(l.Files) > 0 {
			fmt.Fprintf(b, " (`%s`)", strings.Join(l.Files, "`, `"))
		}
		b.WriteString("\n")
	}

	if len(f.Decisions) > 0 {
		b.WriteString("\n### Decisions\n\n")
		for _, d := range f.Decisions {
			task := ""
			if d.TaskID != "" {
				task = " `" + d.TaskID + "`"
			}
			switch d.Kind {
			case DecisionAnswer:
				fmt.Fprintf(b, "- Answer to%s (%s): %s", task, mdText(d.Question), mdText(d.Text))
			case DecisionConflict:
				fmt.Fprintf(b, "- Conflict%s: %s", task, mdText(d.Text))
				if d.Resolution != "" {
					fmt.Fprintf(b, "; resolved: %s", mdText(d.Resolution))
				} else {
					b.WriteString("; unresolved")
				}
			default:
				label := map[string]string{DecisionApproved: "Approved", DecisionRejected: "Rejected"}[d.Kind]
				fmt.Fprintf(b, "- %s%s", orDefault(label, d.Kind), task)
				if d.By != "" {
					fmt.Fprintf(b, " by %s", d.By)
				}
				if d.Text != "" {
					fmt.Fprintf(b, ": %s", mdText(d.Text))
				}
			}
			b.WriteString("\n")
		}
	}

	if len(it.Remediation)+len(it.Retries) > 0 {
		b.WriteString("\n### Iterations\n\n")
		for _, r := range it.Remediation {
			fmt.Fprintf(b, "- QA round %d: %s\n", r.Round, strings.Join(r.Tasks, ", "))
		}
		for _, r := range it.Retries {
			fmt.Fprintf(b, "- Retry of `%s`: %s\n", r.TaskID, mdText(orDefault(r.Reason, "asked for by the user")))
		}
	}

	if len(f.Files) > 0 {
		b.WriteString("\n### Files\n\n")
		for _, file := range f.Files {
			fmt.Fprintf(b, "- `%s` (%s)\n", file.Path, strings.Join(file.Tasks, ", "))
		}
	}
	if len(f.Absent) > 0 {
		b.WriteString("\n### Reported but not in the result\n\n")
		for _, file := range f.Absent {
			fmt.Fprintf(b, "- `%s` (%s)\n", file.Path, strings.Join(file.Tasks, ", "))
		}
	}
}

func limitLabel(kind string) string {
	switch kind {
	case LimitRun:
		return "Run"
	case LimitFailed:
		return "Failed"
	case LimitSkipped:
		return "Skipped"
	case LimitNotRun:
		return "Not run"
	case LimitPartial:
		return "Partly done"
	case LimitVerification:
		return "Verification issue"
	case LimitConflict:
		return "Unresolved conflict"
	case LimitUnstructured:
		return "Unstructured"
	case LimitQuestion:
		return "Unanswered question"
	case LimitChecks:
		return "Checks"
	case LimitOutputs:
		return "Outputs not written"
	case LimitScope:
		return "Outside its scope"
	case LimitContradiction:
		return "Contradiction"
	}
	return kind
}

func reasonLabel(status string, skipped bool) string {
	switch {
	case skipped:
		return "Skipped"
	case status == "completed":
		return "Note"
	}
	return "Reason"
}

// mdText keeps text on one line.
func mdText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cell makes text safe inside a table cell.
func cell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}
