package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

var markdownFilter = []wailsruntime.FileFilter{{DisplayName: "Markdown (*.md)", Pattern: "*.md"}}

// RunReport returns the Markdown report of a run (what Export writes).
func (a *App) RunReport(runID string) (string, error) {
	ctx, cancel := runCtx()
	defer cancel()
	report, err := a.Runs.Report(ctx, runID)
	if err != nil {
		return "", runError("read the run", err)
	}
	return report, nil
}

// FinalReport returns the report stored when a run finished: its tasks,
// iterations, decisions, files and known limitations.
func (a *App) FinalReport(runID string) (view.FinalReport, error) {
	if strings.TrimSpace(runID) == "" {
		return view.FinalReport{}, errors.New("No run is selected.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	rep, err := a.Runs.FinalReport(ctx, runID)
	if errors.Is(err, service.ErrNotFinished) {
		return view.FinalReport{}, errors.New("This run has not finished yet; its final report is written when it completes, fails or is cancelled.")
	}
	if err != nil {
		return view.FinalReport{}, runError("read the final report", err)
	}
	return rep, nil
}

// ExportRunReport asks where to save the Markdown report of a run and writes
// it there.
func (a *App) ExportRunReport(runID string) (view.ReportExport, error) {
	if a.ctx == nil {
		return view.ReportExport{}, errNeedsWindow("Saving the report to a file")
	}
	if _, err := a.RunReport(runID); err != nil {
		return view.ReportExport{}, err
	}
	path, err := wailsruntime.SaveFileDialog(a.ctx, wailsruntime.SaveDialogOptions{
		Title:           "Export the run report",
		DefaultFilename: "baton-" + runID + ".md",
		Filters:         markdownFilter,
	})
	if err != nil {
		return view.ReportExport{}, errors.New("Baton could not open the file picker: " + err.Error() + ".")
	}
	if path == "" {
		return view.ReportExport{Cancelled: true}, nil
	}
	ctx, cancel := runCtx()
	defer cancel()
	written, err := a.Runs.ExportTo(ctx, runID, service.FormatMarkdown, path)
	var pe *os.PathError
	if errors.As(err, &pe) {
		slog.Error("export run report", "component", "app", "run", runID, "err", err)
		return view.ReportExport{}, fmt.Errorf("Baton could not write the report to %s: %s.", pe.Path, pe.Err.Error())
	}
	if err != nil {
		return view.ReportExport{}, runError("read the run", err)
	}
	return view.ReportExport{Path: written}, nil
}

// OpenPath shows a file or folder of a run in the system file manager: a
// folder opens, a file opens the folder that holds it. path is absolute or
// relative to the run's folder and must lie inside the run's folder.
func (a *App) OpenPath(runID, path string) error {
	if a.Files == nil {
		return errNeedsWindow("Opening a folder in the file manager")
	}
	ctx, cancel := runCtx()
	defer cancel()
	run, err := a.Runs.Run(ctx, runID)
	if err != nil {
		return runError("read the run", err)
	}
	return a.Files.Show(run.Cwd, path)
}

// AnswerWorkerQuestion answers the question (AskUserQuestion) a worker waits
// on: answers maps each question's text to the chosen option or the user's
// own words.
func (a *App) AnswerWorkerQuestion(runID, taskID string, answers map[string]string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.AnswerQuestion(ctx, runID, taskID, answers); err != nil {
		return runError("answer the worker", err)
	}
	return nil
}
