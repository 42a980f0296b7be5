package view

import (
	"testing"

	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/sessions"
)

// The sessions, their transcripts and prompts, and the inbox keep every
// JSON field the frontend reads, with the same names, and no list turns
// from null into empty or back.
func TestSessionViewsKeepTheJSON(t *testing.T) {
	t.Parallel()
	s := filled[session.Info](t)
	sameJSON(t, "sessions", []session.Info{s, {}}, SessionsOf([]session.Info{s, {}}))
	sameJSON(t, "no sessions", []session.Info(nil), SessionsOf(nil))
	item := filled[sessions.Item](t)
	sameJSON(t, "transcript items", []sessions.Item{item}, TranscriptItemsOf([]sessions.Item{item}))
	p := filled[sessions.Permission](t)
	sameJSON(t, "permission prompts", []sessions.Permission{p}, PermissionPromptsOf([]sessions.Permission{p}))
	in := filled[inbox.Item](t)
	sameJSON(t, "inbox", []inbox.Item{in}, InboxOf([]inbox.Item{in}))
	sameJSON(t, "empty inbox", []inbox.Item(nil), InboxOf(nil))
}
