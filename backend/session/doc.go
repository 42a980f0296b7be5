// Package session is the contract between Baton's engine and the places that
// run agent sessions (the hosts: Claude Desktop over CDP, the embedded
// simulator, the Claude Code CLI). It holds only what both sides share: the
// Host interface, the start options, transcript cursors and batches, a
// session's state, permission requests and their decisions, change notices,
// the link state of a host whose connection can be lost, the errors a host
// returns for an unknown session or a lost connection, and the canonical
// shape of transcript entries with the one-line summary of a tool call.
//
// Its one rule: it imports the standard library only, so a host links none
// of the engine, the store or SQLite, and the engine links no host.
package session
