package machines

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/baton-app/baton/backend/session"
)

// Router is the session host of a run whose workers may run on machines:
// a session the pool placed (Pool.StartTask) starts and lives on its
// machine's Claude Code host, every other one on Local. What Local says
// of itself (its link, identity, whether it is simulated or takes a
// system prompt, its session list) is the Router's.
type Router struct {
	Local session.Host
	Pool  *Pool

	notices chan session.Notice
}

// NewRouter routes between local and the pool's machines; machines are
// the notices of the pool's hosts (PoolOptions.Notices), merged with
// local's on Notices until ctx ends.
func NewRouter(ctx context.Context, local session.Host, pool *Pool, machines <-chan session.Notice) *Router {
	r := &Router{Local: local, Pool: pool, notices: make(chan session.Notice, 64)}
	forward := func(in <-chan session.Notice) {
		for {
			select {
			case n, ok := <-in:
				if !ok {
					return
				}
				select {
				case r.notices <- n:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}
	if in := local.Notices(); in != nil {
		go forward(in)
	}
	if machines != nil {
		go forward(machines)
	}
	return r
}

var _ session.Host = (*Router)(nil)

func (r *Router) host(id session.ID) session.Host {
	if h, ok := r.Pool.Host(id); ok {
		return h
	}
	return r.Local
}

func (r *Router) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	return r.host(opts.ID).Start(ctx, opts)
}

func (r *Router) Send(ctx context.Context, id session.ID, text string) error {
	return r.host(id).Send(ctx, id, text)
}

func (r *Router) Read(ctx context.Context, id session.ID, cursor session.Cursor) (session.Batch, error) {
	return r.host(id).Read(ctx, id, cursor)
}

func (r *Router) Session(ctx context.Context, id session.ID) (session.Info, error) {
	return r.host(id).Session(ctx, id)
}

func (r *Router) Interrupt(ctx context.Context, id session.ID) error {
	return r.host(id).Interrupt(ctx, id)
}

func (r *Router) Archive(ctx context.Context, id session.ID) error {
	return r.host(id).Archive(ctx, id)
}

// Notices are Local's and the machines' (NewRouter), or Local's alone.
func (r *Router) Notices() <-chan session.Notice {
	if r.notices != nil {
		return r.notices
	}
	return r.Local.Notices()
}

// Link is Local's link: a machine that drops ends its sessions' turns
// with errors that match session.ErrHostLost.
func (r *Router) Link() session.LinkState {
	if l, ok := r.Local.(session.HostLink); ok {
		return l.Link()
	}
	return session.LinkState{Up: true}
}

// Current and Identity are Local's.
func (r *Router) Current() session.Identity {
	if id, ok := r.Local.(session.Identifier); ok {
		return id.Current()
	}
	return session.Identity{}
}

func (r *Router) Identity(ctx context.Context) (session.Identity, error) {
	if id, ok := r.Local.(session.Identifier); ok {
		return id.Identity(ctx)
	}
	return session.Identity{}, nil
}

// Room is Local's (session.Roomer): the memory here bounds the workers
// here; a machine's bounds the workers placed there (Pool.Place).
func (r *Router) Room() session.Room {
	if rm, ok := r.Local.(session.Roomer); ok {
		return rm.Room()
	}
	return session.Room{}
}

// Simulated is Local's.
func (r *Router) Simulated() bool {
	s, ok := r.Local.(interface{ Simulated() bool })
	return ok && s.Simulated()
}

// TakesSystemPrompt is Local's (Claude Code's hosts take one).
func (r *Router) TakesSystemPrompt() bool { return session.TakesSystemPrompt(r.Local) }

// List is Local's sessions.
func (r *Router) List(ctx context.Context, includeHidden bool) ([]session.Info, error) {
	if b, ok := r.Local.(session.Browser); ok {
		return b.List(ctx, includeHidden)
	}
	return nil, nil
}

// Pending lists the permission requests waiting on every host.
func (r *Router) Pending(ctx context.Context) ([]session.PermissionRequest, error) {
	var out []session.PermissionRequest
	var errs []error
	if pl, ok := r.Local.(interface {
		Pending(context.Context) ([]session.PermissionRequest, error)
	}); ok {
		reqs, err := pl.Pending(ctx)
		out, errs = append(out, reqs...), append(errs, err)
	}
	for _, h := range r.Pool.hosts() {
		reqs, err := h.Pending(ctx)
		out, errs = append(out, reqs...), append(errs, err)
	}
	return out, errors.Join(errs...)
}

// RespondPermission answers the request on the host that holds it.
func (r *Router) RespondPermission(ctx context.Context, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error {
	for _, h := range r.Pool.hosts() {
		reqs, err := h.Pending(ctx)
		if err != nil {
			continue
		}
		for _, q := range reqs {
			if q.RequestID == requestID {
				return h.RespondPermission(ctx, requestID, decision, updatedInput)
			}
		}
	}
	if b, ok := r.Local.(session.Browser); ok {
		return b.RespondPermission(ctx, requestID, decision, updatedInput)
	}
	return errors.New("no host holds that permission request")
}
