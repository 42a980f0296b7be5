package main

import (
	"os"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/template"
)

// TestFrontendKnowsEveryEvent keeps the TypeScript union of event names in
// step with the Go constants: an event the frontend cannot name is lost.
func TestFrontendKnowsEveryEvent(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("frontend/src/lib/events.ts")
	if err != nil {
		t.Fatal(err)
	}
	names := append(engine.EventNames(), hosts.EventStatus, inbox.EventChanged, EventOpenRun, EventOpenInbox,
		template.EventCreated, template.EventUpdated, template.EventDeleted, service.EventRunsChanged)
	for _, name := range names {
		if !strings.Contains(string(src), "'"+name+"'") {
			t.Errorf("frontend/src/lib/events.ts does not list the event %q", name)
		}
	}
}
