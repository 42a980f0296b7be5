package claudecode

import (
	"sync"
	"time"

	"github.com/baton-app/baton/backend/memfree"
	"github.com/baton-app/baton/backend/session"
)

// Memory (session.Roomer): before a worker starts, the engine asks the
// host whether one more CLI fits in the memory of the CLIs' machine.

// The defaults of Options.Footprint and Options.MemoryMargin (also what a
// pool of other machines bounds each machine by).
const (
	DefaultFootprint    = 300 << 20
	DefaultMemoryMargin = 256 << 20
)

// MemoryReader is implemented by a Launcher that can tell the memory of
// the machine its children run on (Local, on Linux). A host whose launcher
// is not one has room for every session.
type MemoryReader interface {
	// Available returns the bytes that the children may still take.
	Available() (int64, string, error)
	// Footprint returns what process pid takes.
	Footprint(pid int) (int64, error)
}

// Available implements MemoryReader: the smaller of Baton's memory cgroup's
// room and MemAvailable.
func (Local) Available() (int64, string, error) { return memfree.Machine.Available() }

// Footprint implements MemoryReader: the child's PSS.
func (Local) Footprint(pid int) (int64, error) { return memfree.Machine.Footprint(pid) }

// memory is the host's running estimate of one CLI's footprint.
type memory struct {
	reader MemoryReader // nil: no memory figures, room for everything

	mu    sync.Mutex
	peaks map[int]int64 // peak footprint of each child of a session seen
	at    time.Time
	last  session.Room
}

// roomEvery bounds how often Room reads /proc.
const roomEvery = 250 * time.Millisecond

// maxPeaks bounds the children whose peak the estimate keeps apart.
const maxPeaks = 256

// Room implements session.Roomer: the memory available now, less what the
// live children are expected to take yet (each up to the estimate), and
// the estimate of one CLI plus the margin. The estimate is the mean of the
// peak footprints of the sessions' children seen so far (Options.Footprint
// before any), never below half of Options.Footprint.
func (h *Host) Room() session.Room {
	r := h.mem.reader
	if r == nil {
		return session.Room{}
	}
	h.mem.mu.Lock()
	defer h.mem.mu.Unlock()
	if time.Since(h.mem.at) < roomEvery {
		return h.mem.last
	}
	avail, _, err := r.Available()
	if err != nil {
		return session.Room{}
	}
	type child struct {
		pid  int
		warm bool
	}
	var children []child
	h.mu.Lock()
	for _, s := range h.sessions {
		if s.proc != nil {
			children = append(children, child{pid: s.proc.child.PID()})
		}
	}
	for _, w := range h.warm {
		children = append(children, child{pid: w.p.child.PID(), warm: true})
	}
	h.mu.Unlock()
	if h.mem.peaks == nil {
		h.mem.peaks = map[int]int64{}
	}
	now := map[int]int64{}
	for _, c := range children {
		fp, err := r.Footprint(c.pid)
		if err != nil {
			continue
		}
		now[c.pid] = fp
		if !c.warm {
			h.mem.peaks[c.pid] = max(h.mem.peaks[c.pid], fp)
		}
	}
	est := h.opts.Footprint
	if len(h.mem.peaks) > 0 {
		var sum int64
		for _, p := range h.mem.peaks {
			sum += p
		}
		mean := sum / int64(len(h.mem.peaks))
		if len(h.mem.peaks) > maxPeaks {
			// Bounded: the children seen so far count as one.
			h.mem.peaks = map[int]int64{0: mean}
		}
		est = max(mean, h.opts.Footprint/2)
	}
	free := avail
	for _, c := range children {
		free -= max(0, est-now[c.pid]) // still to grow
	}
	h.mem.at = time.Now()
	h.mem.last = session.Room{Free: max(0, free), Each: est, Margin: h.opts.MemoryMargin}
	return h.mem.last
}
