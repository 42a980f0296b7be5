package console

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// HistoryCLI is "baton history": the stored runs, newest first.
func HistoryCLI(args []string, stdout, stderr io.Writer) int {
	fs, o := historyFlagSet()
	status, tmpl, text, limit := o.status, o.tmpl, o.text, o.limit
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: baton history [--status S[,S]] [--template ID] [--search TEXT] [--limit N]")
		return ExitUsage
	}
	q := view.HistoryQuery{TemplateID: *tmpl, Text: *text, Limit: *limit}
	if *status != "" {
		for _, s := range strings.Split(*status, ",") {
			// "completed with issues" is taken as completed_with_issues.
			s = strings.Join(strings.Fields(s), "_")
			if !view.ValidRunStatus(s) {
				fmt.Fprintf(stderr, "baton history: %q is not a run status.\n", s)
				return ExitError
			}
			q.Status = append(q.Status, s)
		}
	}
	if *limit < 1 || *limit > 500 {
		fmt.Fprintln(stderr, "baton history: --limit must be between 1 and 500.")
		return ExitError
	}
	h, err := service.OpenHistory(quietLogger(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "baton history: %v\n", err)
		return ExitError
	}
	defer h.Close()
	page, err := h.Page(context.Background(), q)
	if err != nil {
		fmt.Fprintf(stderr, "baton history: %v\n", err)
		return ExitError
	}
	if len(page.Runs) == 0 {
		fmt.Fprintln(stdout, "No runs found.")
		return ExitOK
	}
	printRuns(stdout, page.Runs)
	if page.Total > len(page.Runs) {
		fmt.Fprintf(stdout, "%d of %d runs shown.\n", len(page.Runs), page.Total)
	}
	return ExitOK
}

// ActiveCLI is "baton active": the runs that have not finished, newest
// first, the same list as the window's Runs view (a run the window drives,
// one paused, interrupted or waiting for its task list).
func ActiveCLI(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "baton active takes no arguments.\nusage: "+activeUsage)
		return ExitUsage
	}
	h, ok := openHistory("active", stderr)
	if !ok {
		return ExitError
	}
	defer h.Close()
	runs, err := h.Active(context.Background())
	if err != nil {
		fmt.Fprintf(stderr, "baton active: %v\n", err)
		return ExitError
	}
	if len(runs) == 0 {
		fmt.Fprintln(stdout, "No run is active.")
		return ExitOK
	}
	printRuns(stdout, runs)
	for _, r := range runs {
		if r.DrivenBy != nil {
			fmt.Fprintf(stdout, "%s is driven by %s: act on it there.\n", r.ID, r.DrivenBy.Text)
		}
	}
	fmt.Fprintln(stdout, "Continue a paused or interrupted run with: baton run --resume RUN_ID; cancel one with: baton cancel RUN_ID")
	return ExitOK
}

const activeUsage = "baton active"

// printRuns writes one line per run.
func printRuns(w io.Writer, runs []view.Run) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tSTATUS\tTASKS\tTEMPLATE\tREQUEST")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.CreatedAt.Local().Format("2006-01-02 15:04"), statusLabel(r.Status),
			taskCounts(r), r.TemplateID, clip(strings.Join(strings.Fields(r.Request), " "), 60))
	}
	tw.Flush()
}

func taskCounts(r view.Run) string {
	s := fmt.Sprintf("%d/%d", r.TasksCompleted, r.TasksTotal)
	if r.TasksFailed > 0 {
		s += fmt.Sprintf(" %d failed", r.TasksFailed)
	}
	if r.TasksSkipped > 0 {
		s += fmt.Sprintf(" %d skipped", r.TasksSkipped)
	}
	return s
}

type historyOptions struct {
	status *string
	tmpl   *string
	text   *string
	limit  *int
}

// historyFlagSet defines the flags of "baton history": its help lists them all.
func historyFlagSet() (*flag.FlagSet, *historyOptions) {
	o := &historyOptions{}
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.status = fs.String("status", "", "only runs in this status (comma-separated)")
	o.tmpl = fs.String("template", "", "only runs of this template")
	o.text = fs.String("search", "", "only runs whose request holds these words")
	o.limit = fs.Int("limit", 20, "how many runs to show")
	return fs, o
}
