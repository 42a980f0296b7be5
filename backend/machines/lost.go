package machines

import (
	"context"
	"errors"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/session"
)

// A machine that drops: the pool learns it from its processes (a session
// cut, a start that cannot connect) and from its git work, keeps since
// when it is lost, and tries it again in the background every
// PoolOptions.ProbeEvery until it answers. The engine asks Lost to let the
// machine's workers wait for it rather than retry them elsewhere at once.

// Lost reports since when machine name cannot be reached; false when it
// can, as far as the pool knows (it never was lost, or a probe reached it
// since).
func (p *Pool) Lost(name string) (since time.Time, lost bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pm := p.machines[name]
	if pm == nil || pm.lostSince.IsZero() {
		return time.Time{}, false
	}
	return pm.lostSince, true
}

// lost notes that machine name was lost when err matches
// session.ErrHostLost, and starts its probe; it returns err.
func (p *Pool) lost(name string, err error) error {
	if !errors.Is(err, session.ErrHostLost) {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pm := p.machines[name]
	if pm == nil || p.closed || pm.m == nil {
		return err
	}
	if pm.lostSince.IsZero() {
		pm.lostSince = time.Now()
		p.log.Warn("a machine is lost", "machine", name, "err", err)
	}
	if !pm.probing && p.probeCtx.Err() == nil {
		pm.probing = true
		p.probes.Add(1)
		go p.probe(pm)
	}
	return err
}

// probe connects to pm again every ProbeEvery until it answers (the
// machine is back: Lost says so) or the pool closes.
func (p *Pool) probe(pm *pooled) {
	defer p.probes.Done()
	t := time.NewTicker(p.opts.ProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-p.probeCtx.Done():
			p.mu.Lock()
			pm.probing = false
			p.mu.Unlock()
			return
		case <-t.C:
		}
		if err := pm.m.Client.Connect(p.probeCtx); err != nil {
			continue
		}
		p.mu.Lock()
		away := time.Since(pm.lostSince)
		pm.lostSince, pm.probing = time.Time{}, false
		pm.downUntil = time.Time{}
		p.mu.Unlock()
		p.log.Info("a machine is back", "machine", pm.target.Name, "after", away.Round(time.Millisecond))
		return
	}
}

// watched is a machine's launcher that tells the pool when a start
// cannot reach the machine or a process's connection is lost.
type watched struct {
	*Launcher
	lost func(error)
}

func (w *watched) Start(ctx context.Context, c claudecode.Command) (claudecode.Process, error) {
	proc, err := w.Launcher.Start(ctx, c)
	if err != nil {
		w.lost(err)
		return nil, err
	}
	return watchedProcess{Process: proc, lost: w.lost}, nil
}

type watchedProcess struct {
	claudecode.Process
	lost func(error)
}

func (p watchedProcess) Wait() error {
	err := p.Process.Wait()
	if err != nil {
		p.lost(err)
	}
	return err
}
