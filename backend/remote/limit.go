package remote

import (
	"sync"
	"time"
)

// limiter counts failed attempts (a wrong token, a wrong cookie) by client
// address: a client with max failures in the last window is refused until
// the oldest of them is older than window.
type limiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu    sync.Mutex
	fails map[string][]time.Time
}

// maxClients bounds the addresses remembered; past it, stale ones are
// dropped, and if that is not enough, arbitrary ones are forgotten.
const maxClients = 4096

func newLimiter(max int, window time.Duration, now func() time.Time) *limiter {
	return &limiter{max: max, window: window, now: now, fails: map[string][]time.Time{}}
}

// recent returns client's failures within the window (and drops older
// ones). Callers hold mu.
func (l *limiter) recent(client string, now time.Time) []time.Time {
	ts := l.fails[client]
	i := 0
	for i < len(ts) && now.Sub(ts[i]) >= l.window {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.fails, client)
	} else {
		l.fails[client] = ts
	}
	return ts
}

// Blocked says whether client is refused now, and for how long.
func (l *limiter) Blocked(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ts := l.recent(client, now)
	if len(ts) < l.max {
		return false, 0
	}
	return true, l.window - now.Sub(ts[len(ts)-l.max])
}

// Fail records one failed attempt of client and says whether that blocks
// it now.
func (l *limiter) Fail(client string) (blocked bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.fails) >= maxClients {
		for c := range l.fails {
			l.recent(c, now)
		}
		for c := range l.fails {
			if len(l.fails) < maxClients {
				break
			}
			delete(l.fails, c)
		}
	}
	ts := append(l.recent(client, now), now)
	if len(ts) > l.max {
		ts = ts[len(ts)-l.max:]
	}
	l.fails[client] = ts
	return len(ts) >= l.max
}
