package workflows

import (
	"io"
	"log/slog"
	"sync"
	"testing"
)

func TestWriterKeepsOrderAndCallWaits(t *testing.T) {
	t.Parallel()
	w := newWriter(quiet)
	var mu sync.Mutex
	var got []int
	for i := 0; i < 50; i++ {
		w.do(func() {
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
		})
	}
	var seen int
	w.call(func() {
		mu.Lock()
		seen = len(got)
		mu.Unlock()
	})
	if seen != 50 {
		t.Fatalf("call saw %d of the 50 writes queued before it", seen)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("job %d ran as %d", i, v)
		}
	}
	w.do(func() {
		mu.Lock()
		got = append(got, 50)
		mu.Unlock()
	})
	w.close()
	if len(got) != 51 {
		t.Errorf("close returned before the queued write: %d", len(got))
	}
	// After close a write is done at once.
	w.do(func() { got = append(got, 51) })
	if len(got) != 52 {
		t.Errorf("write after close: %d", len(got))
	}
}

func TestWriterIdleNeedsNoGoroutine(t *testing.T) {
	t.Parallel()
	w := newWriter(quiet)
	w.flush()
	w.close()
	if w.started {
		t.Error("an idle writer started its goroutine")
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
