package main

// The previous figures: the summary of the report that a new one replaces
// is kept beside the new figures, row by row (matched by the measure's
// name with its sample counts left out), so that a change shows in one
// table.

import (
	"os"
	"regexp"
	"strings"
)

// previous is the summary table of an earlier report.
type previous struct {
	when    string            // "2026-11-24 18:43 UTC at commit 21abc45"
	figures map[string]string // measure → measured
}

var (
	writtenRE = regexp.MustCompile(`on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)(?: at commit (\w+))?`)
	countsRE  = regexp.MustCompile(`\d+ (detections|runs|commits|starts)`)
)

// readPrevious reads the summary of the report at path (empty when there
// is none).
func readPrevious(path string) previous {
	data, err := os.ReadFile(path)
	if err != nil {
		return previous{}
	}
	text := string(data)
	pr := previous{figures: map[string]string{}}
	if m := writtenRE.FindStringSubmatch(text); m != nil {
		pr.when = m[1]
		if m[2] != "" {
			pr.when += ", " + m[2]
		}
	}
	_, after, ok := strings.Cut(text, "## Summary\n")
	if !ok {
		return pr
	}
	col := -1
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		cells := cells(line)
		if len(cells) < 3 {
			continue
		}
		if col < 0 {
			for i, c := range cells {
				if c == "Measured" {
					col = i
				}
			}
			continue
		}
		if strings.Trim(cells[0], "-") == "" || col >= len(cells) {
			continue
		}
		pr.figures[measureKey(cells[0])] = cells[col]
	}
	return pr
}

// beside returns the summary table with a column of the previous figures
// before the measured ones (the table as it is when there are none).
func (pr previous) beside(table string) string {
	if len(pr.figures) == 0 {
		return table
	}
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		cs := cells(line)
		if len(cs) < 3 {
			b.WriteString(line + "\n")
			continue
		}
		var extra string
		switch i {
		case 0:
			extra = "Previous"
			if pr.when != "" {
				extra += " (" + pr.when + ")"
			}
		case 1:
			extra = "---"
		default:
			extra = pr.figures[measureKey(cs[0])]
			if extra == "" {
				extra = "—"
			}
		}
		cs = append(cs[:2], append([]string{extra}, cs[2:]...)...)
		b.WriteString("| " + strings.Join(cs, " | ") + " |\n")
	}
	return b.String()
}

// cells splits a Markdown table row.
func cells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
		return nil
	}
	parts := strings.Split(line[1:len(line)-1], "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// measureKey is a measure's name without its sample counts, which change
// from one report to the next.
func measureKey(m string) string { return countsRE.ReplaceAllString(m, "N $1") }
