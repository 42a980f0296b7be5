package view

import (
	"reflect"
	"testing"

	"github.com/baton-app/baton/backend/remote"
)

// Remote access keeps its JSON through the view: a field the view forgets
// shows up.
func TestRemoteViewsKeepTheJSON(t *testing.T) {
	t.Parallel()
	var link remote.Link
	fill(t, reflect.ValueOf(&link).Elem(), 0)
	sameJSON(t, "remote link", link, RemoteLinkOf(link))
	sameJSON(t, "remote status", link.Status, RemoteStatusOf(link.Status))
}
