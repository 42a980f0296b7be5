package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/tasklist"
)

// The ids of a run's sessions. The contract with the hosts (session.Host and
// its types) is in backend/session; how the engine names the sessions it
// starts is here.

// ErrInvalidID is returned for an orchestrator or task id that cannot be part
// of a session id.
var ErrInvalidID = errors.New("invalid id")

// WorkerSessionID returns the id a worker session is started with:
// local___orch_{orchestratorID}_worker_{taskID}, with one "orch_": a run id
// orch_abc gives local___orch_abc_worker_{taskID}. Both parts may hold
// letters, digits, '-' and single '_' between them.
func WorkerSessionID(orchestratorID, taskID string) (session.ID, error) {
	for _, p := range []string{orchestratorID, taskID} {
		if !tasklist.ValidID(p) {
			return "", fmt.Errorf("worker session id part %q: %w", p, ErrInvalidID)
		}
	}
	return session.ID("local_" + hiddenPrefix(orchestratorID) + "_worker_" + taskID), nil
}

// hiddenPrefix is the marker and the run id, with one "orch_".
func hiddenPrefix(orchestratorID string) string {
	if rest, ok := strings.CutPrefix(orchestratorID, "orch_"); ok && rest != "" {
		return session.HiddenMarker + rest
	}
	return session.HiddenMarker + orchestratorID
}

// MainSessionID returns the id the main session of a run is started with:
// local_baton_{orchestratorID}_main. It is stored before the session is
// started, so that after a crash the resume finds the session by it and
// never starts a second one. The session is not hidden.
func MainSessionID(orchestratorID string) (session.ID, error) {
	if !tasklist.ValidID(orchestratorID) {
		return "", fmt.Errorf("main session id part %q: %w", orchestratorID, ErrInvalidID)
	}
	return session.ID("local_baton_" + orchestratorID + "_main"), nil
}
