package machines

import (
	"testing"
	"time"

	"github.com/baton-app/baton/backend/memfree"
)

// What the machine's script prints is read back as its files: memfree's
// rule then takes the smaller of MemAvailable and the cgroup's room (the
// inactive file cache counted as free), whatever the slashes of the
// cgroup's path; a file the script did not print is missing.
func TestMemoryFiles(t *testing.T) {
	out := "==> /proc/meminfo <==\nMemTotal:       8000000 kB\nMemAvailable:    4000000 kB\n\n" +
		"==> /proc/self/cgroup <==\n0::/\n\n" +
		"==> /sys/fs/cgroup//memory.max <==\n2147483648\n\n" +
		"==> /sys/fs/cgroup//memory.current <==\n1073741824\n\n" +
		"==> /sys/fs/cgroup//memory.stat <==\nanon 1\ninactive_file 104857600\n\n"
	fsys := parseFiles(out)
	free, from, err := memfree.FS{Root: "/", ReadFile: fsys.read}.Available()
	if err != nil || from != "cgroup" || free != 2147483648-1073741824+104857600 {
		t.Fatalf("Available = %d %q %v", free, from, err)
	}
	// Without the cgroup's files: MemAvailable.
	fsys = parseFiles("==> /proc/meminfo <==\nMemAvailable:    4000000 kB\n\n==> /proc/self/cgroup <==\n0::/user.slice\n\n")
	free, from, err = memfree.FS{Root: "/", ReadFile: fsys.read}.Available()
	if err != nil || from != "meminfo" || free != 4000000*1024 {
		t.Fatalf("Available without a cgroup limit = %d %q %v", free, from, err)
	}
	if _, err := fsys.read("/proc/self/status"); err == nil {
		t.Error("a file the script did not print was read")
	}
	if _, _, err := (memfree.FS{Root: "/", ReadFile: parseFiles("").read}).Available(); err == nil {
		t.Error("no /proc/meminfo: no error")
	}
}

// One more worker goes to a machine when what its reading leaves, less
// what the workers placed there lately may take yet, still holds one CLI's
// estimate beside the margin.
func TestRoomFits(t *testing.T) {
	const mb = 1 << 20
	at := time.Now()
	for _, tc := range []struct {
		name string
		room Room
		fits bool
		free int64
	}{
		{"no reading", Room{}, true, 0},
		{"plenty", Room{Free: 4000 * mb, Each: 300 * mb, Margin: 256 * mb, At: at}, true, 4000},
		{"just one", Room{Free: 556 * mb, Each: 300 * mb, Margin: 256 * mb, At: at}, true, 556},
		{"short", Room{Free: 555 * mb, Each: 300 * mb, Margin: 256 * mb, At: at}, false, 555},
		{"two starting", Room{Free: 1156 * mb, Each: 300 * mb, Margin: 256 * mb, Starting: 2, At: at}, true, 556},
		{"three starting", Room{Free: 1156 * mb, Each: 300 * mb, Margin: 256 * mb, Starting: 3, At: at}, false, 256},
		{"more starting than free", Room{Free: 100 * mb, Each: 300 * mb, Starting: 1, At: at}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.room.Fits(); got != tc.fits {
				t.Errorf("Fits() = %v, want %v", got, tc.fits)
			}
			if got := tc.room.FreeMB(); got != tc.free {
				t.Errorf("FreeMB() = %d, want %d", got, tc.free)
			}
		})
	}
}

// Workers placed lately count as starting for startingFor, then no more.
func TestStarting(t *testing.T) {
	now := time.Now()
	pm := &pooled{placed: []time.Time{now.Add(-startingFor - time.Second), now.Add(-time.Second), now}}
	if n := pm.starting(now); n != 2 || len(pm.placed) != 2 {
		t.Fatalf("starting = %d (%d kept), want 2", n, len(pm.placed))
	}
	if n := pm.starting(now.Add(startingFor)); n != 0 {
		t.Fatalf("later: %d", n)
	}
}
