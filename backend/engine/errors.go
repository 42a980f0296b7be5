package engine

import "errors"

// ErrNoSession is what a SessionHost wraps when a session id is unknown to
// it. Restore uses it to tell a worker session that never started (start it
// under the same id) from one it cannot see right now (keep following it;
// reads that keep failing end in a retry).
var ErrNoSession = errors.New("no such session")
