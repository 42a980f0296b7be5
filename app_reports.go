package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/baton-app/baton/backend/engine"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// ReportExport is where ExportRunReport wrote the report, or that the user
// cancelled the file picker.
type ReportExport struct {
	Cancelled bool   `json:"cancelled"`
	Path      string `json:"path"`
}

var markdownFilter = []wailsruntime.FileFilter{{DisplayName: "Markdown (*.md)", Pattern: "*.md"}}

// RunReport returns the Markdown report of a run (what Export writes).
func (a *App) RunReport(runID string) (string, error) {
	ctx, cancel := runCtx()
	defer cancel()
	snap, err := a.Engine.Snapshot(ctx, runID)
	if err != nil {
		return "", runError("read the run", err)
	}
	return engine.Report(snap), nil
}

// FinalReport returns the report stored when a run finished: its tasks,
// iterations, decisions, files and known limitations.
func (a *App) FinalReport(runID string) (engine.FinalReport, error) {
	if strings.TrimSpace(runID) == "" {
		return engine.FinalReport{}, errors.New("No run is selected.")
	}
	ctx, cancel := runCtx()
	defer cancel()
	rep, err := a.Engine.FinalReport(ctx, runID)
	if errors.Is(err, engine.ErrNotFinished) {
		return engine.FinalReport{}, errors.New("This run has not finished yet; its final report is written when it completes, fails or is cancelled.")
	}
	if err != nil {
		return engine.FinalReport{}, runError("read the final report", err)
	}
	return rep, nil
}

// ExportRunReport asks where to save the Markdown report of a run and writes
// it there.
func (a *App) ExportRunReport(runID string) (ReportExport, error) {
	report, err := a.RunReport(runID)
	if err != nil {
		return ReportExport{}, err
	}
	path, err := wailsruntime.SaveFileDialog(a.ctx, wailsruntime.SaveDialogOptions{
		Title:           "Export the run report",
		DefaultFilename: "baton-" + runID + ".md",
		Filters:         markdownFilter,
	})
	if err != nil {
		return ReportExport{}, errors.New("Baton could not open the file picker: " + err.Error() + ".")
	}
	if path == "" {
		return ReportExport{Cancelled: true}, nil
	}
	if filepath.Ext(path) == "" {
		path += ".md"
	}
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		slog.Error("export run report", "component", "app", "run", runID, "err", err)
		return ReportExport{}, fmt.Errorf("Baton could not write the report to %s: %s.", path, plainPathError(err))
	}
	return ReportExport{Path: path}, nil
}

// OpenPath shows a file or folder of a run in the system file manager: a
// folder opens, a file opens the folder that holds it. path is absolute or
// relative to the run's folder and must lie inside the run's folder.
func (a *App) OpenPath(runID, path string) error {
	ctx, cancel := runCtx()
	defer cancel()
	snap, err := a.Engine.Snapshot(ctx, runID)
	if err != nil {
		return runError("read the run", err)
	}
	target, err := insideRun(snap.Run.Cwd, path)
	if err != nil {
		return err
	}
	info, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("%s does not exist any more.", target)
	}
	if !info.IsDir() {
		target = filepath.Dir(target)
	}
	if err := openInFileManager(target); err != nil {
		slog.Error("open path", "component", "app", "path", target, "err", err)
		return fmt.Errorf("Baton could not open %s in the file manager: %s.", target, err.Error())
	}
	return nil
}

// insideRun resolves path against the run folder root and refuses anything
// outside it, following symbolic links.
func insideRun(root, path string) (string, error) {
	if strings.TrimSpace(root) == "" {
		return "", errors.New("This run has no project folder.")
	}
	if strings.TrimSpace(path) == "" {
		path = root
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	path = filepath.Clean(path)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("The run's folder %s does not exist any more.", root)
	}
	ok := false
	if real, err := filepath.EvalSymlinks(path); err == nil {
		ok = within(realRoot, real)
	} else {
		// A missing file: checked lexically; the caller reports it missing.
		ok = within(filepath.Clean(root), path) || within(realRoot, path)
	}
	if !ok {
		return "", fmt.Errorf("%s is outside the run's folder %s; Baton only opens files of the run.", path, root)
	}
	return path, nil
}

func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func plainPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// openInFileManager starts the platform's opener on dir without waiting for
// it to exit.
func openInFileManager(dir string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", dir)
	case "windows":
		cmd = exec.Command("explorer", dir)
	default:
		cmd = exec.Command("xdg-open", dir)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// AnswerWorkerQuestion answers the question (AskUserQuestion) a worker waits
// on: answers maps each question's text to the chosen option or the user's
// own words. The tool call is allowed once with the answers added to its
// input, as Claude Code expects.
func (a *App) AnswerWorkerQuestion(runID, taskID string, answers map[string]string) error {
	ctx, cancel := runCtx()
	defer cancel()
	snap, err := a.Engine.Snapshot(ctx, runID)
	if err != nil {
		return runError("read the run", err)
	}
	var input json.RawMessage
	for _, w := range snap.Workers {
		if w.TaskID == taskID && w.Waiting != nil {
			input = w.Waiting.Input
		}
	}
	if input == nil {
		return errors.New("That worker does not wait for an answer any more; refresh the run.")
	}
	updated, err := withAnswers(input, answers)
	if err != nil {
		return err
	}
	if err := a.Engine.RespondPermission(ctx, runID, taskID, engine.PermissionDecision("once"), updated); err != nil {
		return runError("answer the worker", err)
	}
	return nil
}

// withAnswers returns the AskUserQuestion input with "answers" set; every
// answer must be non-empty.
func withAnswers(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	if len(answers) == 0 {
		return nil, errors.New("Type an answer or choose an option first.")
	}
	for q, v := range answers {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("Type an answer to %q or choose an option.", q)
		}
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, errors.New("The worker's question could not be read; answer it in the session's transcript.")
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	fields["answers"] = b
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	return out, nil
}
