package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The previous report's summary figures go beside the new ones, matched by
// the measure with its sample counts left out.
func TestPreviousBeside(t *testing.T) {
	old := `# Baton benchmark report

Written by ` + "`make bench`" + ` on 2026-11-24 18:43 UTC at commit 21abc45; the whole bench took 2m55s.

## Summary

| Measure | Target | Measured | |
|---|---|---|---|
| Completion detection p50 (push, 20-task DAG, 100 detections) | ≤ 20 ms | 23 ms | **missed** |
| Scheduling overhead (median / worst of 2 runs) | — | 5.73 s / 5.85 s | |

## Completion detection

| Mode | p50 |
|---|---|
| push | 9 ms |
`
	path := filepath.Join(t.TempDir(), "REPORT.md")
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	pr := readPrevious(path)
	table := "| Measure | Target | Measured | |\n|---|---|---|---|\n" +
		"| Completion detection p50 (push, 20-task DAG, 40 detections) | ≤ 10 ms | 8 ms | met |\n" +
		"| Scheduling overhead (median / worst of 5 runs) | ≤ 1 s | 0.9 s / 1.1 s | **missed** |\n" +
		"| A new measure | — | 3 | |\n"
	got := pr.beside(table)
	want := "| Measure | Target | Previous (2026-11-24 18:43 UTC, 21abc45) | Measured |  |\n" +
		"| --- | --- | --- | --- | --- |\n" +
		"| Completion detection p50 (push, 20-task DAG, 40 detections) | ≤ 10 ms | 23 ms | 8 ms | met |\n" +
		"| Scheduling overhead (median / worst of 5 runs) | ≤ 1 s | 5.73 s / 5.85 s | 0.9 s / 1.1 s | **missed** |\n" +
		"| A new measure | — | — | 3 |  |\n"
	if got != want {
		t.Errorf("beside:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "9 ms") {
		t.Error("a figure from outside the summary was taken")
	}
	if none := readPrevious(filepath.Join(t.TempDir(), "missing.md")); none.beside(table) != table {
		t.Error("without a previous report the table changed")
	}
}
