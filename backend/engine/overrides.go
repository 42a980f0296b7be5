package engine

import (
	"github.com/baton-app/baton/backend/template"
)

// A run's overrides of its template's settings are template.Overrides.
type (
	Overrides = template.Overrides
	// OverridesError is a run's overrides that cannot be used; it is an
	// ErrBadRequest.
	OverridesError = template.OverridesError
)
