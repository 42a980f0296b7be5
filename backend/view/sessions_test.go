package view

import (
	"reflect"
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
	var s session.Info
	fill(t, reflect.ValueOf(&s).Elem(), 0)
	sameJSON(t, "sessions", []session.Info{s, {}}, SessionsOf([]session.Info{s, {}}))
	sameJSON(t, "no sessions", []session.Info(nil), SessionsOf(nil))
	var item sessions.Item
	fill(t, reflect.ValueOf(&item).Elem(), 0)
	sameJSON(t, "transcript items", []sessions.Item{item}, TranscriptItemsOf([]sessions.Item{item}))
	var p sessions.Permission
	fill(t, reflect.ValueOf(&p).Elem(), 0)
	sameJSON(t, "permission prompts", []sessions.Permission{p}, PermissionPromptsOf([]sessions.Permission{p}))
	var in inbox.Item
	fill(t, reflect.ValueOf(&in).Elem(), 0)
	sameJSON(t, "inbox", []inbox.Item{in}, InboxOf([]inbox.Item{in}))
	sameJSON(t, "empty inbox", []inbox.Item(nil), InboxOf(nil))
}
