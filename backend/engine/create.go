package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/permgate"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Creating a run: its request checked, its template resolved with the
// overrides, its row and its first event stored through the ledger.

// CreateRequest describes a new run.
type CreateRequest struct {
	TemplateID string         `json:"templateId"`
	Cwd        string         `json:"cwd"`
	Request    string         `json:"request"`
	Variables  map[string]any `json:"variables,omitempty"`
	// Overrides change some of the template's settings for this run only.
	Overrides *Overrides `json:"overrides,omitempty"`
}

// prepared is a new run's request checked: its template with the
// overrides applied, its variables' values, and the uncommitted changes a
// worktree run leaves out.
type prepared struct {
	tmpl   template.Template
	values map[string]any
	dirty  []string
}

// prepare checks everything of a new run that needs no session host: the
// request, the folder, the template, its variables, the overrides, the
// delimiters and the isolation.
func (e *Engine) prepare(ctx context.Context, req CreateRequest) (prepared, error) {
	var p prepared
	if strings.TrimSpace(req.Request) == "" {
		return p, fmt.Errorf("create run: the request is empty: %w", ErrBadRequest)
	}
	if !filepath.IsAbs(req.Cwd) {
		return p, fmt.Errorf("create run: the folder %q is not an absolute path: %w", req.Cwd, ErrBadRequest)
	}
	if fi, err := os.Stat(req.Cwd); err != nil || !fi.IsDir() {
		return p, fmt.Errorf("create run: the folder %s does not exist: %w", req.Cwd, ErrBadRequest)
	}
	tmpl, err := e.templates.Get(req.TemplateID)
	if err != nil {
		return p, fmt.Errorf("create run: %w", err)
	}
	// Every problem of the variables and of the overrides at once.
	values, verr := tmpl.Values(req.Variables)
	// The run keeps its own copy of the template, so the overrides hold for
	// its whole life, restores included.
	cfg, oerr := req.Overrides.Apply(tmpl.Config)
	if oerr != nil {
		oerr = also{oerr, ErrBadRequest}
	}
	if err := errors.Join(verr, oerr); err != nil {
		return p, fmt.Errorf("create run: %w", err)
	}
	tmpl.Config = cfg
	if _, err := protocol.NewParser(delimiters(tmpl), nil); err != nil {
		return p, fmt.Errorf("create run: template %s: %w", tmpl.ID, err)
	}
	dirty, err := e.checkIsolation(ctx, req.Cwd, tmpl)
	if err != nil {
		return p, fmt.Errorf("create run: %w", err)
	}
	return prepared{tmpl: tmpl, values: values, dirty: dirty}, nil
}

// Check checks a new run as Create would, without storing it or asking the
// session host anything: the request, folder, template, variables,
// overrides (the permission mode among them), isolation, and that the
// history database can be written now. The cheap checks come before any
// host is contacted.
func (e *Engine) Check(ctx context.Context, req CreateRequest) error {
	if _, err := e.prepare(ctx, req); err != nil {
		return err
	}
	if err := e.store.Writable(ctx); err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	return nil
}

// Create stores a new run in status created. Start begins it.
func (e *Engine) Create(ctx context.Context, req CreateRequest) (store.Run, error) {
	p, err := e.prepare(ctx, req)
	if err != nil {
		return store.Run{}, err
	}
	tmpl, values, dirty := p.tmpl, p.values, p.dirty
	tj, err := json.Marshal(tmpl)
	if err != nil {
		return store.Run{}, fmt.Errorf("create run: %w", err)
	}
	id := e.newID()
	if _, err := WorkerSessionID(id, "t"); err != nil {
		return store.Run{}, fmt.Errorf("create run: %w", err)
	}
	run := store.Run{ID: id, TemplateID: tmpl.ID, TemplateName: tmpl.Name, Cwd: req.Cwd, Request: req.Request,
		Variables: values, Status: RunCreated.String(), Template: tj, CreatedAt: e.now()}
	r, err := newRunner(e, run, tmpl, nil, nil)
	if err != nil {
		return store.Run{}, fmt.Errorf("create run: %w", err)
	}
	if sh, ok := e.host.Inner().(simulatedHost); ok && sh.Simulated() {
		r.limits.Simulated = true
	}
	r.checks = checkrounds.New(tmpl.Config.Checks)
	if r.iso != nil {
		// The run says before anything starts that it isolates its
		// workers and which uncommitted changes it leaves out.
		r.run.Message = r.iso.Created(dirty)
	}
	if err := r.sync(); err != nil {
		return store.Run{}, fmt.Errorf("create run: %w", err)
	}
	run = r.run
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return store.Run{}, ErrShuttingDown
	}
	e.mu.Unlock()
	if err := r.ledger.Create(ctx, run, newEvent(EventCreated, nil, "")); err != nil {
		return store.Run{}, fmt.Errorf("create run: %w", err)
	}
	if o := req.Overrides; o != nil && len(o.Allow)+len(o.Deny) > 0 {
		// The run's own rules, kept with the rules added to it later.
		rules := permgate.RunRules(o.Allow, o.Deny, run.CreatedAt)
		r.gate.Run = rules
		if err := r.ledger.Commit(ctx, store.Change{Rules: rules}); err != nil {
			return store.Run{}, fmt.Errorf("create run: %w", err)
		}
	}
	if err := r.ledger.Lock(ctx, e.owner); err != nil {
		return store.Run{}, fmt.Errorf("create run: %w", err)
	}
	if err := e.launch(r); err != nil {
		r.ledger.Unlock(e.owner)
		return store.Run{}, err
	}
	return run, nil
}

func delimiters(t template.Template) protocol.Delimiters {
	return protocol.Delimiters{Start: t.Prompts.ResponseFormat.StartDelimiter, End: t.Prompts.ResponseFormat.EndDelimiter}
}
