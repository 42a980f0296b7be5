//go:build linux

package machines_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/memfree"
)

// The free memory of the other machine (here the same kernel, a real sshd
// and its own user) is read over the shared connection by memfree's rule,
// and agrees with this process's own reading. A pool reads it before it
// places a worker there and places no more than fit: with a reading of
// 1200 MiB, three CLIs of 300 MiB beside the 256 MiB margin, and the
// fourth worker runs here although a place is free there.
func TestMemoryThere(t *testing.T) {
	s := sshtest.Start(t, sshtest.Options{})
	ctx := timeout(t, time.Minute)
	m := open(t, s, s.Target("other"))
	there, _, err := m.Client.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	here, _, err := memfree.Machine.Available()
	if err != nil {
		t.Fatal(err)
	}
	if d := there - here; there <= 0 || d > 512<<20 || d < -512<<20 {
		t.Fatalf("free there %d MiB, here %d MiB: they should agree on one kernel", there>>20, here>>20)
	}
	t.Logf("free there: %d MiB (here %d MiB)", there>>20, here>>20)

	pool := func(read func(context.Context, *machines.Machine) (int64, error)) *machines.Pool {
		tg := s.Target("other")
		tg.ClaudePath, tg.MaxWorkers = s.Claude(t), 8
		p, err := machines.NewPool(machines.PoolOptions{Targets: []machines.Target{tg}, StateDir: t.TempDir(), Logger: quiet,
			Machine: machines.Options{ClientOptions: s.ClientOptions()}, MemoryEvery: time.Minute, ReadMemory: read})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = p.Close(ctx)
		})
		return p
	}
	// The real reading: room for one worker at least.
	if got := pool(nil).Place("run1", "task_001", []string{"other"}); got != "other" {
		t.Fatalf("with %d MiB free there, the worker was placed on %q", there>>20, got)
	}
	var reads atomic.Int32
	p := pool(func(context.Context, *machines.Machine) (int64, error) {
		reads.Add(1)
		return 1200 << 20, nil
	})
	for i, want := range []string{"other", "other", "other", ""} {
		if got := p.Place("run1", []string{"task_001", "task_002", "task_003", "task_004"}[i], []string{"other"}); got != want {
			t.Fatalf("worker %d placed on %q, want %q", i+1, got, want)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the memory there was read %d times within MemoryEvery, want once", n)
	}
}
