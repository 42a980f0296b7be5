package engine

import (
	"context"
	"os"
	"path/filepath"
)

// Report returns the Markdown report of a run (what ExportReport writes).
func (e *Engine) Report(ctx context.Context, runID string) (string, error) {
	snap, err := e.Snapshot(ctx, runID)
	if err != nil {
		return "", err
	}
	return Report(snap), nil
}

// ExportReport writes the Markdown report of a run to path (with ".md"
// added when it has no extension) and returns the path written. A failed
// write is an *os.PathError.
func (e *Engine) ExportReport(ctx context.Context, runID, path string) (string, error) {
	report, err := e.Report(ctx, runID)
	if err != nil {
		return "", err
	}
	if filepath.Ext(path) == "" {
		path += ".md"
	}
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
