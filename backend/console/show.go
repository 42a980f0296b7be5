package console

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/sessions"
	"github.com/baton-app/baton/backend/view"
)

// The terminal as a full client of a stored run: "baton show" prints all
// of it (the outcome and its issues, the final report, the conflicts, the
// verification, the files, the questions still open), "baton export"
// writes it as Markdown or JSON, "baton cancel" and "baton delete" act on
// it.

const (
	showUsage   = "baton show RUN_ID"
	exportUsage = "baton export RUN_ID [--format md|json] [--output FILE]"
	cancelUsage = "baton cancel RUN_ID [--host sim|desktop|claude-code] [--cdp URL] [--claude PATH] [--verbose]"
	deleteUsage = "baton delete RUN_ID"
)

// openHistory opens the history alone; on failure it prints why (as cmd).
func openHistory(cmd string, stderr io.Writer) (*service.History, bool) {
	h, err := service.OpenHistory(quietLogger(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "baton %s: %v\n", cmd, err)
		return nil, false
	}
	return h, true
}

// runFailed prints why cmd could not read run id and returns the exit code.
func runFailed(cmd, id string, err error, stderr io.Writer) int {
	if errors.Is(err, service.ErrUnknownRun) {
		fmt.Fprintf(stderr, "baton %s: there is no run %q; \"baton history\" lists the runs.\n", cmd, id)
	} else {
		fmt.Fprintf(stderr, "baton %s: %v\n", cmd, err)
	}
	return ExitError
}

// oneRunID reads the single RUN_ID argument (flags may come before or
// after it) with fs.
func oneRunID(fs *flag.FlagSet, args []string) (string, error) {
	var ids []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		ids = append(ids, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(ids) != 1 {
		return "", errors.New("give exactly one RUN_ID")
	}
	return ids[0], nil
}

// ShowCLI is "baton show RUN_ID": one stored run with everything known of
// it.
func ShowCLI(args []string, stdout, stderr io.Writer) int {
	id, err := oneRunID(noFlags("show"), args)
	if err != nil {
		fmt.Fprintf(stderr, "baton show: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), showUsage)
		return ExitUsage
	}
	h, ok := openHistory("show", stderr)
	if !ok {
		return ExitError
	}
	defer h.Close()
	snap, err := h.Show(context.Background(), id)
	if err != nil {
		return runFailed("show", id, err, stderr)
	}
	printRun(stdout, snap)
	return ExitOK
}

// printRun writes the whole of a run for the terminal.
func printRun(w io.Writer, snap view.Snapshot) {
	r := snap.Run
	fmt.Fprintf(w, "Run %s (%s)\n", r.ID, r.TemplateName)
	fmt.Fprintf(w, "Folder:  %s\nRequest: %s\nStatus:  %s (phase %s)\nTasks:   %s\n", r.Cwd, r.Request, statusLabel(r.Status), r.Phase, taskCounts(r))
	switch {
	case r.DrivenBy != nil:
		fmt.Fprintf(w, "Driven:  by %s\n", r.DrivenBy.Text)
	case !view.Finished(r.Status):
		fmt.Fprintf(w, "Driven:  by nobody now; baton run --resume %s continues it, or Resume in Baton's window\n", r.ID)
	}
	fmt.Fprintf(w, "Created: %s", r.CreatedAt.Local().Format(time.RFC1123))
	if r.CompletedAt != nil {
		fmt.Fprintf(w, ", finished after %s", r.CompletedAt.Sub(r.CreatedAt).Round(time.Second))
	}
	fmt.Fprintf(w, "\nUsage:   %d tokens in, %d out, %s\n", r.InputTokens, r.OutputTokens, view.CostLabel(r))
	if h := r.Host.Name(); h != "" {
		fmt.Fprintf(w, "Host:    %s\n", h)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "Error:   %s\n", r.Error)
	}
	if r.Message != "" {
		fmt.Fprintf(w, "Message: %s\n", line(r.Message))
	}
	printIssues(w, r)

	byTask := map[string]view.Worker{}
	for _, wk := range snap.Workers {
		byTask[wk.TaskID] = wk
	}
	if len(snap.Tasks) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TASK\tSTATUS\tRETRIES\tTITLE\tNOTE")
		for _, t := range snap.Tasks {
			wk := byTask[t.ID]
			note := wk.Summary
			if wk.Error != "" {
				note = wk.Error
			}
			status := wk.Status
			switch {
			case wk.Skipped || (status == "" && t.Skipped):
				status = "skipped"
			case status == "":
				status = "pending"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", t.ID, status, wk.RetryCount, clip(line(t.Title), 50), clip(line(note), 70))
		}
		tw.Flush()
		if l := modelsLine(snap.Tasks, byTask); l != "" {
			fmt.Fprintln(w, line(l))
		}
		if l := machinesLine(snap.Worktree); l != "" {
			fmt.Fprintln(w, line(l))
		}
		for _, t := range snap.Tasks {
			wk := byTask[t.ID]
			if len(wk.MissingOutputs) > 0 {
				fmt.Fprintf(w, "%s declared outputs it did not write: %s\n", t.ID, line(strings.Join(wk.MissingOutputs, ", ")))
			}
			if len(wk.OutOfScope) > 0 {
				fmt.Fprintf(w, "%s changed files outside its scope: %s\n", t.ID, line(strings.Join(wk.OutOfScope, ", ")))
			}
		}
	}
	printChecks(w, snap)

	if agg := latestAnswer[protocol.Aggregation](snap.Answers, protocol.PhaseAggregation); agg != nil {
		fmt.Fprintf(w, "\nResult (aggregation %s): %s\n", agg.Status, line(agg.Summary))
	}
	printConflicts(w, snap)
	if v := latestAnswer[protocol.Verification](snap.Answers, protocol.PhaseVerification); v != nil {
		fmt.Fprintf(w, "\nVerification: %s", v.Status)
		if v.Summary != "" {
			fmt.Fprintf(w, ": %s", line(v.Summary))
		}
		fmt.Fprintln(w)
		for _, c := range v.Criteria {
			mark := "met"
			if !c.Passed {
				mark = "NOT met"
			}
			fmt.Fprintf(w, "  - criterion %s: %s\n", mark, line(c.Criterion))
		}
		for _, is := range v.Issues {
			sev := ""
			if is.Severity != "" {
				sev = "[" + is.Severity + "] "
			}
			fmt.Fprintf(w, "  - issue %s%s\n", sev, line(is.Description))
		}
	}
	if q := openQuestions(snap); len(q) > 0 {
		fmt.Fprintln(w, "\nQuestions still unanswered:")
		for _, s := range q {
			fmt.Fprintf(w, "  - %s\n", s)
		}
		if !view.Finished(r.Status) {
			fmt.Fprintf(w, "Answer them with: baton run --resume %s\n", r.ID)
		}
	}
	printPermissions(w, snap.Permissions)
	rep := snap.FinalReport
	if rep == nil {
		if !view.Finished(r.Status) {
			fmt.Fprintf(w, "\nThe run has not finished (%s); its final report comes when it does.\n", statusLabel(r.Status))
		}
		return
	}
	if len(rep.Files) > 0 {
		fmt.Fprintln(w, "\nFiles:")
		for _, f := range rep.Files {
			fmt.Fprintf(w, "  %s (%s)\n", line(f.Path), strings.Join(f.Tasks, ", "))
		}
	}
	if len(rep.Absent) > 0 {
		fmt.Fprintln(w, "Reported but not in the result:")
		for _, f := range rep.Absent {
			fmt.Fprintf(w, "  %s (%s)\n", line(f.Path), strings.Join(f.Tasks, ", "))
		}
	}
	printFinalReport(w, *rep)
}

// printFinalReport prints the final report's counts and iterations, its
// notes, decisions (conflicts apart) and known limitations: "baton show"
// and the end of "baton run" print it alike.
func printFinalReport(w io.Writer, rep view.FinalReport) {
	it := rep.Iterations
	fmt.Fprintf(w, "\nFinal report: %d completed, %d failed, %d skipped, %d not run of %d; iterations %d (QA rounds %d, retries %d, rejections %d, re-prompts %d)\n",
		rep.Tasks.Completed, rep.Tasks.Failed, rep.Tasks.Skipped, rep.Tasks.NotRun, rep.Tasks.Total,
		it.Total, len(it.Remediation), len(it.Retries), len(it.Rejections), it.Reprompts)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "%s\n", line(n))
	}
	var decisions []string
	for _, d := range rep.Decisions {
		if d.Kind == view.DecisionConflict {
			continue // listed under Conflicts
		}
		s := d.Kind
		if d.TaskID != "" {
			s += " " + d.TaskID
		}
		if d.By != "" {
			s += " by " + d.By
		}
		if d.Question != "" {
			s += " (" + line(d.Question) + ")"
		}
		if d.Text != "" {
			s += ": " + line(d.Text)
		}
		decisions = append(decisions, s)
	}
	if len(decisions) > 0 {
		fmt.Fprintln(w, "Decisions:")
		for _, d := range decisions {
			fmt.Fprintf(w, "  - %s\n", d)
		}
	}
	if len(rep.Limitations) > 0 {
		fmt.Fprintln(w, "Known limitations:")
		for _, l := range rep.Limitations {
			s := l.Kind
			if l.TaskID != "" {
				s += " " + l.TaskID
			}
			fmt.Fprintf(w, "  - %s: %s\n", s, line(l.Text))
		}
	} else {
		fmt.Fprintln(w, "Known limitations: none.")
	}
}

// printChecks lists the project's checks Baton ran for the run, the
// baseline and each round after the workers, with the end of the output of
// a check that failed after them; or says that none ran.
func printChecks(w io.Writer, snap view.Snapshot) {
	c := snap.Checks
	if c == nil {
		return
	}
	fmt.Fprintln(w)
	if c.Note != "" {
		fmt.Fprintln(w, line(c.Note))
	}
	last := -1
	for _, r := range c.Results {
		if r.Round != last {
			last = r.Round
			if r.Round == 0 {
				fmt.Fprintln(w, "Checks before the workers (baseline):")
			} else {
				fmt.Fprintf(w, "Checks after the workers (round %d):\n", r.Round)
			}
		}
		what := ""
		switch r.Status {
		case "passed":
			what = "passed"
		case "failed":
			what = fmt.Sprintf("FAILED (exit %d)", r.ExitCode)
		case "timeout":
			what = "ENDED at its time limit"
		default:
			what = "could not run"
		}
		fmt.Fprintf(w, "  %s %s, %.1f s", line(r.Command), what, float64(r.DurationMS)/1000)
		if r.Round > 0 && r.Verdict != "" && r.Verdict != "passes" {
			fmt.Fprintf(w, " [%s]", r.Verdict)
		}
		if r.Message != "" && r.Status != "failed" {
			fmt.Fprintf(w, ": %s", line(r.Message))
		}
		fmt.Fprintln(w)
		if r.Round > 0 && r.Status != "passed" {
			lines := strings.Split(strings.TrimRight(r.Tail, "\n"), "\n")
			if len(lines) > 6 {
				lines = lines[len(lines)-6:]
			}
			for _, l := range lines {
				if strings.TrimSpace(l) != "" {
					fmt.Fprintf(w, "      | %s\n", sanitize(l))
				}
			}
		}
	}
	switch {
	case c.Running != nil && *c.Running == 0:
		fmt.Fprintln(w, "The baseline of the checks is being taken; the workers start after it.")
	case c.Running != nil:
		fmt.Fprintf(w, "The checks of round %d run now.\n", *c.Running)
	case len(c.Results) == 0 && snap.FinalReport != nil && snap.FinalReport.Checks != nil:
		fmt.Fprintln(w, line(snap.FinalReport.Checks.Note))
	}
}

// printConflicts lists the conflicts: those of the latest aggregation
// (resolved or not), or those the workers reported when no aggregation
// took them up.
func printConflicts(w io.Writer, snap view.Snapshot) {
	var out []string
	if agg := latestAnswer[protocol.Aggregation](snap.Answers, protocol.PhaseAggregation); agg != nil {
		for _, c := range agg.Conflicts {
			s := line(c.Description)
			if c.Type != "" && c.Type != "conflict" {
				s = c.Type + ": " + s
			}
			if len(c.Tasks) > 0 {
				s += " (" + strings.Join(c.Tasks, ", ") + ")"
			}
			switch {
			case !view.ConflictOpen(c.Resolution):
				s += "; resolved: " + line(c.Resolution)
			case strings.TrimSpace(c.Resolution) != "":
				s += "; OPEN (" + line(c.Resolution) + ")"
			default:
				s += "; OPEN"
			}
			out = append(out, s)
		}
	} else {
		for _, wk := range snap.Workers {
			for _, c := range wk.Conflicts {
				out = append(out, wk.TaskID+": "+line(c)+"; OPEN")
			}
		}
	}
	if len(out) == 0 {
		return
	}
	fmt.Fprintln(w, "\nConflicts:")
	for _, s := range out {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}

// openQuestions are the questions of the run's workers that wait for an
// answer: a needs_input report's questions and an AskUserQuestion call.
func openQuestions(snap view.Snapshot) []string {
	var out []string
	for _, wk := range snap.Workers {
		for _, q := range wk.Questions {
			out = append(out, wk.TaskID+": "+line(q))
		}
		if wk.Waiting != nil && wk.Waiting.ToolName == "AskUserQuestion" {
			p := sessions.Permissions([]session.PermissionRequest{{RequestID: wk.Waiting.RequestID, ToolName: wk.Waiting.ToolName, Input: wk.Waiting.Input}})[0]
			out = append(out, wk.TaskID+": "+line(p.Question))
		}
	}
	return out
}

// latestAnswer decodes the newest usable answer of a phase (nil when none).
func latestAnswer[T any](answers []view.PhaseAnswer, phase protocol.Phase) *T {
	for i := len(answers) - 1; i >= 0; i-- {
		a := answers[i]
		if a.Phase != string(phase) || (a.Status != "valid" && a.Status != "repaired") {
			continue
		}
		var d T
		if json.Unmarshal(a.Data, &d) == nil {
			return &d
		}
	}
	return nil
}

// ExportCLI is "baton export RUN_ID [--format md|json] [--output FILE]":
// the run's report as Markdown (what the window exports) or the whole run
// as JSON, to stdout or to FILE.
func ExportCLI(args []string, stdout, stderr io.Writer) int {
	fs, format, output := exportFlagSet()
	id, err := oneRunID(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "baton export: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), exportUsage)
		return ExitUsage
	}
	if *format != "md" && *format != "json" {
		fmt.Fprintf(stderr, "baton export: --format is md or json, not %q.\n", *format)
		return ExitUsage
	}
	h, ok := openHistory("export", stderr)
	if !ok {
		return ExitError
	}
	defer h.Close()
	ctx := context.Background()
	if *output == "" {
		data, err := h.Export(ctx, id, *format)
		if err != nil {
			return runFailed("export", id, err, stderr)
		}
		// The report is the user's own data: written as it is, except for
		// what could control the terminal (stdout is a safeWriter).
		_, _ = stdout.Write(data)
		return ExitOK
	}
	path, err := h.ExportTo(ctx, id, *format, *output)
	var pe *os.PathError
	if errors.As(err, &pe) {
		fmt.Fprintf(stderr, "baton export: could not write %s: %v\n", pe.Path, pe.Err)
		return ExitError
	}
	if err != nil {
		return runFailed("export", id, err, stderr)
	}
	fmt.Fprintf(stdout, "Wrote the %s export of %s to %s.\n", *format, id, path)
	return ExitOK
}

// DeleteCLI is "baton delete RUN_ID": it removes a finished run and
// everything stored with it. A run that has not finished is refused, and
// nothing is touched.
func DeleteCLI(args []string, stdout, stderr io.Writer) int {
	id, err := oneRunID(noFlags("delete"), args)
	if err != nil {
		fmt.Fprintf(stderr, "baton delete: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), deleteUsage)
		return ExitUsage
	}
	h, ok := openHistory("delete", stderr)
	if !ok {
		return ExitError
	}
	defer h.Close()
	run, err := h.Delete(context.Background(), id)
	if errors.Is(err, service.ErrNotFinished) {
		fmt.Fprintf(stderr, "baton delete: run %s is %s, not finished, so it was not deleted; cancel it first with: baton cancel %s\n",
			id, statusLabel(run.Status), id)
		return ExitError
	}
	if err != nil {
		return runFailed("delete", id, err, stderr)
	}
	fmt.Fprintf(stdout, "Deleted run %s (%s) and everything stored with it. The files it wrote in %s stay.\n", id, statusLabel(run.Status), run.Cwd)
	return ExitOK
}

// exportFlagSet defines the flags of "baton export".
func exportFlagSet() (fs *flag.FlagSet, format, output *string) {
	fs = noFlags("export")
	format = fs.String("format", "md", "md (the Markdown report) or json (the whole run)")
	output = fs.String("output", "", "write to this file instead of the terminal (the format's extension is added when FILE has none)")
	return fs, format, output
}

// noFlags is the flag set of a command that takes no flags.
func noFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// printPermissions lists the run's permission log: every answer to a
// permission prompt, who gave it and when.
func printPermissions(w io.Writer, log []view.PermissionDecision) {
	if len(log) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPermissions:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TIME\tWORKER\tTOOL\tINPUT\tDECISION\tBY")
	for _, d := range log {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", d.At.Local().Format("15:04:05"), report.WhoLabel(d.TaskID), d.Tool,
			clip(line(d.Summary), 60), d.Decision, report.DecidedByLabel(d.DecidedBy, d.Rule, d.Source))
	}
	tw.Flush()
}
