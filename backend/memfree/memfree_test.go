package memfree

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const meminfo = "MemTotal:       24684000 kB\nMemFree:        1000000 kB\nMemAvailable:    8000000 kB\n"

func TestAvailable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string
		want   int64
		source string
	}{
		{"meminfo only", map[string]string{"proc/self/cgroup": "0::/\n"}, 8000000 * 1024, "meminfo"},
		{"v2 limit", map[string]string{
			"proc/self/cgroup":                   "0::/bench\n",
			"sys/fs/cgroup/bench/memory.max":     "1073741824\n",
			"sys/fs/cgroup/bench/memory.current": "536870912\n",
			"sys/fs/cgroup/bench/memory.stat":    "anon 400000000\ninactive_file 100000000\n",
		}, 1073741824 - (536870912 - 100000000), "cgroup"},
		{"v2 max is no limit", map[string]string{
			"proc/self/cgroup":                   "0::/bench\n",
			"sys/fs/cgroup/bench/memory.max":     "max\n",
			"sys/fs/cgroup/bench/memory.current": "536870912\n",
		}, 8000000 * 1024, "meminfo"},
		{"v1 limit", map[string]string{
			"proc/self/cgroup": "12:pids:/\n4:memory:/process_api/x\n0::/\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "2147483648\n",
			"sys/fs/cgroup/memory/process_api/x/memory.usage_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/process_api/x/memory.stat":           "cache 5\ntotal_inactive_file 73741824\n",
		}, 2147483648 - 1000000000, "cgroup"},
		{"v1 unlimited", map[string]string{
			"proc/self/cgroup":                           "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": "1073741824\n",
		}, 8000000 * 1024, "meminfo"},
		{"limit above the machine", map[string]string{
			"proc/self/cgroup":                 "0::/big\n",
			"sys/fs/cgroup/big/memory.max":     "999999999999\n",
			"sys/fs/cgroup/big/memory.current": "1\n",
		}, 8000000 * 1024, "meminfo"},
		{"usage beyond the limit", map[string]string{
			"proc/self/cgroup":                  "0::/full\n",
			"sys/fs/cgroup/full/memory.max":     "100\n",
			"sys/fs/cgroup/full/memory.current": "200\n",
		}, 0, "cgroup"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, root, "proc/meminfo", meminfo)
			for name, text := range tc.files {
				write(t, root, name, text)
			}
			got, source, err := FS{Root: root}.Available()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || source != tc.source {
				t.Errorf("Available = %d (%s), want %d (%s)", got, source, tc.want, tc.source)
			}
		})
	}
}

func TestAvailableWithoutProc(t *testing.T) {
	t.Parallel()
	if _, _, err := (FS{Root: t.TempDir()}).Available(); err != ErrUnsupported {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
}

func TestFootprint(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "proc/7/smaps_rollup", "00400000-7fff [rollup]\nRss:              200000 kB\nPss:              120000 kB\n")
	write(t, root, "proc/8/status", "Name:\tclaude\nVmRSS:\t  210000 kB\n")
	f := FS{Root: root}
	if got, err := f.Footprint(7); err != nil || got != 120000*1024 {
		t.Errorf("Footprint(7) = %d, %v; want the PSS", got, err)
	}
	if got, err := f.Footprint(8); err != nil || got != 210000*1024 {
		t.Errorf("Footprint(8) = %d, %v; want the RSS", got, err)
	}
	if _, err := f.Footprint(9); err == nil {
		t.Error("Footprint of a process that is not there: no error")
	}
}

// The real machine: whatever it says is positive, and this process has a
// footprint.
func TestMachine(t *testing.T) {
	t.Parallel()
	got, source, err := Machine.Available()
	if err == ErrUnsupported {
		t.Skip("no /proc/meminfo")
	}
	if err != nil || got <= 0 || source == "" {
		t.Fatalf("Available = %d (%s), %v", got, source, err)
	}
	if fp, err := Machine.Footprint(os.Getpid()); err != nil || fp <= 0 {
		t.Fatalf("Footprint(self) = %d, %v", fp, err)
	}
}
