package machines

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/baton-app/baton/backend/session"
)

// Router is the session host of a run whose workers may run on machines:
// a session the pool placed (Pool.StartTask) starts and lives on its
// machine's Claude Code host, every other one on Local. Its notices are
// the pool's (PoolOptions.Notices) and Local's, on Notices.
type Router struct {
	Local session.Host
	Pool  *Pool
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

// Notices are Local's; the machines' go to PoolOptions.Notices, which the
// caller merges with these.
func (r *Router) Notices() <-chan session.Notice { return r.Local.Notices() }

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
