package engine

import "github.com/baton-app/baton/backend/isolation"

// Placement is where a worktree run's workers run: here or on the
// machines of its config.machines (isolation.Places asks it per worker).
type Placement = isolation.Placement
