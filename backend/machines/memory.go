package machines

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/memfree"
	"github.com/baton-app/baton/backend/session"
)

// A machine's memory bounds it as this machine's bounds the workers here:
// before the pool places a worker there it reads, over the shared
// connection, what the machine has free (memfree's rule, run on the
// machine's own /proc and cgroup files), and the worker goes there only
// when one more CLI (the host's estimate) fits beside the margin.

// memoryScript prints the files memfree reads, each after a line
// "==> PATH <==" and followed by one more newline: /proc/meminfo, the
// shell's cgroups and the memory files of its cgroup (v2 and v1).
const memoryScript = `show() { if [ -r "$1" ]; then printf '==> %s <==\n' "$1"; cat "$1"; echo; fi; }
show /proc/meminfo
show /proc/self/cgroup
[ -r /proc/self/cgroup ] || exit 0
while IFS=: read -r id ctl p; do
  case "$ctl" in
  "") [ "$id" = 0 ] && for f in memory.max memory.current memory.stat; do show "/sys/fs/cgroup$p/$f"; done ;;
  *memory*) for d in "/sys/fs/cgroup/memory$p" /sys/fs/cgroup/memory; do
      for f in memory.limit_in_bytes memory.usage_in_bytes memory.stat; do show "$d/$f"; done
    done ;;
  esac
done < /proc/self/cgroup
exit 0`

var fileHeader = regexp.MustCompile(`(?m)^==> (.+) <==\n`)

// files are the files memoryScript printed, by clean path.
type files map[string][]byte

func parseFiles(out string) files {
	fsys := files{}
	heads := fileHeader.FindAllStringSubmatchIndex(out, -1)
	for i, h := range heads {
		end := len(out)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		body := strings.TrimSuffix(out[h[1]:end], "\n") // the echo after it
		fsys[path.Clean(out[h[2]:h[3]])] = []byte(body)
	}
	return fsys
}

func (f files) read(p string) ([]byte, error) {
	if b, ok := f[path.Clean(p)]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
}

// Memory returns the bytes the machine's processes may still take (the
// smaller of its MemAvailable and what the cgroup of a process started
// over SSH leaves) and where the figure came from ("meminfo" or
// "cgroup"), read over the shared connection.
func (c *Client) Memory(ctx context.Context) (int64, string, error) {
	out, err := c.Run(ctx, "read the free memory", memoryScript)
	if err != nil {
		return 0, "", err
	}
	fsys := parseFiles(out)
	return memfree.FS{Root: "/", ReadFile: fsys.read}.Available()
}

// Room is what one machine has for more workers, as its pool sees it.
type Room struct {
	// Free is the memory there at the last reading; Each what one more
	// CLI is expected to take; Margin what stays free beside them.
	Free, Each, Margin int64
	// Starting counts the workers placed there in the last startingFor:
	// their CLIs may not be in the reading yet, or still grow.
	Starting int
	// At is when the reading was taken (zero: none).
	At time.Time
}

// Fits reports whether one more worker fits.
func (r Room) Fits() bool {
	if r.At.IsZero() || r.Each <= 0 {
		return true
	}
	return r.Free-int64(r.Starting)*r.Each-r.Margin >= r.Each
}

// FreeMB is what is free for more workers, in whole mebibytes.
func (r Room) FreeMB() int64 { return max(0, r.Free-int64(r.Starting)*r.Each) >> 20 }

// fits reports whether one more worker fits in machine n's memory: the
// reading, taken again once it is MemoryEvery old, less what the workers
// placed there since may still take, less the margin. A machine that
// cannot be read is lost (Lost); one whose memory cannot be told (no
// /proc) fits.
func (p *Pool) fits(n string) bool {
	pm, err := p.open(n)
	if err != nil {
		return false
	}
	p.mu.Lock()
	room := pm.room
	p.mu.Unlock()
	if time.Since(room.At) >= p.opts.MemoryEvery {
		ctx, cancel := context.WithTimeout(p.probeCtx, pm.m.Client.opts.ConnectTimeout+10*time.Second)
		free, err := p.opts.ReadMemory(ctx, pm.m)
		cancel()
		if err != nil {
			if err = downErr(err); errors.Is(err, session.ErrHostLost) {
				_ = p.lost(n, err)
				return false
			}
			p.log.Debug("the free memory of a machine cannot be read", "machine", n, "err", err)
			return true
		}
		each, margin := p.opts.Host.Footprint, p.opts.Host.MemoryMargin
		if each <= 0 {
			each = claudecode.DefaultFootprint
		}
		if margin <= 0 {
			margin = claudecode.DefaultMemoryMargin
		}
		p.mu.Lock()
		pm.room = Room{Free: free, Each: each, Margin: margin, At: time.Now()}
		p.mu.Unlock()
	}
	p.mu.Lock()
	room = pm.room
	room.Starting = pm.starting(time.Now())
	p.mu.Unlock()
	if !room.Fits() {
		p.log.Info("waiting for memory on a machine", "machine", n, "freeMB", room.FreeMB(), "eachMB", room.Each>>20)
		return false
	}
	return true
}

// startingFor is how long a worker placed on a machine counts as starting
// there (Room.Starting).
const startingFor = 10 * time.Second

// starting counts the workers placed on pm in the last startingFor, and
// forgets older ones. p.mu is held.
func (pm *pooled) starting(now time.Time) int {
	pm.placed = slices.DeleteFunc(pm.placed, func(t time.Time) bool { return now.Sub(t) >= startingFor })
	return len(pm.placed)
}
