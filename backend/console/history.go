package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/store"
)

// HistoryCLI is "baton history": the stored runs, newest first.
func HistoryCLI(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	status := fs.String("status", "", "only runs in this status (comma-separated)")
	tmpl := fs.String("template", "", "only runs of this template")
	text := fs.String("search", "", "only runs whose request holds these words")
	limit := fs.Int("limit", 20, "how many runs to show")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: baton history [--status S[,S]] [--template ID] [--search TEXT] [--limit N]")
		return ExitError
	}
	q := store.HistoryQuery{TemplateID: *tmpl, Text: *text, Limit: *limit}
	if *status != "" {
		for _, s := range strings.Split(*status, ",") {
			s = strings.TrimSpace(s)
			if !store.ValidRunStatus(s) {
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
	st, err := service.OpenStore(quietLogger(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "baton history: %v\n", err)
		return ExitError
	}
	defer st.Close()
	page, err := st.Runs(context.Background(), q)
	if err != nil {
		fmt.Fprintf(stderr, "baton history: %v\n", err)
		return ExitError
	}
	if len(page.Runs) == 0 {
		fmt.Fprintln(stdout, "No runs found.")
		return ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tSTATUS\tTASKS\tTEMPLATE\tREQUEST")
	for _, r := range page.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.CreatedAt.Local().Format("2006-01-02 15:04"), r.Status,
			taskCounts(r), r.TemplateID, clip(strings.Join(strings.Fields(r.Request), " "), 60))
	}
	tw.Flush()
	if page.Total > len(page.Runs) {
		fmt.Fprintf(stdout, "%d of %d runs shown.\n", len(page.Runs), page.Total)
	}
	return ExitOK
}

func taskCounts(r store.Run) string {
	s := fmt.Sprintf("%d/%d", r.TasksCompleted, r.TasksTotal)
	if r.TasksFailed > 0 {
		s += fmt.Sprintf(" %d failed", r.TasksFailed)
	}
	if r.TasksSkipped > 0 {
		s += fmt.Sprintf(" %d skipped", r.TasksSkipped)
	}
	return s
}

// ShowCLI is "baton show RUN_ID": one stored run with its tasks and workers.
func ShowCLI(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: baton show RUN_ID")
		return ExitError
	}
	st, err := service.OpenStore(quietLogger(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "baton show: %v\n", err)
		return ExitError
	}
	defer st.Close()
	ctx := context.Background()
	r, err := st.Run(ctx, args[0])
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(stderr, "baton show: there is no run %q; \"baton history\" lists the runs.\n", args[0])
		return ExitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "baton show: %v\n", err)
		return ExitError
	}
	tasks, err := st.Tasks(ctx, r.ID)
	if err != nil {
		fmt.Fprintf(stderr, "baton show: %v\n", err)
		return ExitError
	}
	workers, err := st.Workers(ctx, r.ID)
	if err != nil {
		fmt.Fprintf(stderr, "baton show: %v\n", err)
		return ExitError
	}
	fmt.Fprintf(stdout, "Run %s (%s)\n", r.ID, r.TemplateName)
	fmt.Fprintf(stdout, "Folder:  %s\nRequest: %s\nStatus:  %s (phase %s)\nTasks:   %s\n", r.Cwd, r.Request, r.Status, r.Phase, taskCounts(r))
	fmt.Fprintf(stdout, "Created: %s", r.CreatedAt.Local().Format(time.RFC1123))
	if r.CompletedAt != nil {
		fmt.Fprintf(stdout, ", finished after %s", r.CompletedAt.Sub(r.CreatedAt).Round(time.Second))
	}
	fmt.Fprintf(stdout, "\nUsage:   %d tokens in, %d out, $%.2f\n", r.InputTokens, r.OutputTokens, r.CostUSD)
	if r.Error != "" {
		fmt.Fprintf(stdout, "Error:   %s\n", r.Error)
	}
	byTask := map[string]store.Worker{}
	for _, w := range workers {
		byTask[w.TaskID] = w
	}
	if len(tasks) > 0 {
		fmt.Fprintln(stdout)
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TASK\tSTATUS\tRETRIES\tTITLE\tNOTE")
		for _, t := range tasks {
			w := byTask[t.ID]
			note := w.Summary
			if w.Error != "" {
				note = w.Error
			}
			status := w.Status
			if status == "" {
				status = "pending"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", t.ID, status, w.RetryCount, clip(t.Title, 50), clip(strings.Join(strings.Fields(note), " "), 70))
		}
		tw.Flush()
		if l := modelsLine(tasks, byTask); l != "" {
			fmt.Fprintln(stdout, l)
		}
	}
	return ExitOK
}
