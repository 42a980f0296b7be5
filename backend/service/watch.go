package service

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/store"
)

// EventRunsChanged: the list of runs that have not finished changed (a run
// was added, changed status or driver, or finished), also when another
// process changed it; the window reads the list again.
const EventRunsChanged = "runs:changed"

// runsWatchEvery is how often the window looks at the stored runs for what
// other processes changed: the database holds no notice across processes.
const runsWatchEvery = 2 * time.Second

// watchRuns calls changed whenever the unfinished runs in st that this
// process does not drive (mine lists those it does: their own events tell)
// differ from the last look (their ids, statuses, last changes, or the
// processes that drive them), every every until ctx ends.
func watchRuns(ctx context.Context, st *store.Store, every time.Duration, mine func() []string, changed func(), log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	last := ""
	for {
		now, err := runsPrint(ctx, st, mine())
		switch {
		case err != nil:
			if ctx.Err() == nil {
				log.Debug("look at the runs", "component", "service", "err", err)
			}
		case last != "" && now != last:
			changed()
			last = now
		default:
			last = now
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runsPrint is what watchRuns compares: a line per unfinished run and per
// lock, leaving out the runs in mine.
func runsPrint(ctx context.Context, st *store.Store, mine []string) (string, error) {
	runs, err := st.Unfinished(ctx)
	if err != nil {
		return "", err
	}
	locks, err := st.Locks(ctx)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, r := range runs {
		if !slices.Contains(mine, r.ID) {
			lines = append(lines, fmt.Sprintf("run %s %s %d", r.ID, r.Status, r.UpdatedAt.UnixMilli()))
		}
	}
	for id, l := range locks {
		if !slices.Contains(mine, id) {
			lines = append(lines, fmt.Sprintf("lock %s %d %s", id, l.PID, l.Start))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n"), nil
}
