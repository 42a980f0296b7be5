package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// systemFake is a fakeHost that takes a system prompt apart, as the Claude
// Code CLI host does.
type systemFake struct{ *fakeHost }

func (systemFake) TakesSystemPrompt() bool { return true }

// runWithHost runs the test template on host until it finishes.
func runWithHost(t *testing.T, tmpl template.Template, host session.Host) store.Run {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(dir+"/baton.db", store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, err := New(Options{Store: st, Host: host, Templates: templateMap{"test": tmpl}, Emitter: newRecorder(t, st),
		ProgressInterval: 5 * time.Millisecond, Logger: quiet, Home: dir + "/home"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	defer func() { _ = eng.Shutdown(ctx) }()
	run, err := eng.Create(ctx, CreateRequest{TemplateID: "test", Cwd: dir, Request: "Document everything"})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	run, err = eng.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A host that takes a system prompt apart gets each session's system text
// in StartOptions.SystemPrompt, the message without it (later phases'
// system texts stay in their messages, as the session's system prompt is
// set once); any other host gets the system text before the first message,
// and no SystemPrompt.
func TestSystemPromptApartForHostsThatTakeIt(t *testing.T) {
	tasks := plan(planned{id: "a", priority: 5}, planned{id: "b", priority: 5})
	tmpl := testTemplate(func(tm *template.Template) {
		tm.Prompts.WorkerExecution.System = "You work on {TASK_ID} alone."
		tm.Prompts.Aggregation.System = "You bring it together."
	})
	for _, apart := range []bool{true, false} {
		fake := newFakeHost(scripted(tasks, nil), true)
		var host session.Host = fake
		if apart {
			host = systemFake{fake}
		}
		run := runWithHost(t, tmpl, host)
		if run.Status != "completed" {
			t.Fatalf("apart=%v: run %s: %s", apart, run.Status, run.Error)
		}
		fake.mu.Lock()
		starts, sends := append([]session.StartOptions{}, fake.starts...), append([]string{}, fake.sends...)
		fake.mu.Unlock()
		if len(starts) != 3 {
			t.Fatalf("apart=%v: %d starts, want the main session and two workers", apart, len(starts))
		}
		for _, o := range starts {
			worker := strings.Contains(string(o.ID), "_worker_")
			system := "You lead."
			if worker {
				task := string(o.ID)[strings.LastIndex(string(o.ID), "_")+1:]
				system = "You work on " + task + " alone."
			}
			switch {
			case apart && (o.SystemPrompt != system || strings.Contains(o.Message, system)):
				t.Errorf("start %s: system prompt %q, message %q; want %q apart", o.ID, o.SystemPrompt, o.Message, system)
			case !apart && (o.SystemPrompt != "" || !strings.HasPrefix(o.Message, system+"\n\n")):
				t.Errorf("start %s on a host without system prompts: system prompt %q, message %q", o.ID, o.SystemPrompt, o.Message)
			}
			if !strings.Contains(o.Message, "ASK ") {
				t.Errorf("start %s: the message lost the prompt: %q", o.ID, o.Message)
			}
		}
		joined := false
		for _, s := range sends {
			joined = joined || strings.HasPrefix(s, "You bring it together.\n\nASK aggregation")
		}
		if !joined {
			t.Errorf("apart=%v: the aggregation prompt was not sent with its system text: %q", apart, sends)
		}
	}
}

// WithSystemPrompt puts the system prompt before the message.
func TestWithSystemPrompt(t *testing.T) {
	o := session.WithSystemPrompt(session.StartOptions{Message: "Do it.", SystemPrompt: "You work."})
	if o.Message != "You work.\n\nDo it." || o.SystemPrompt != "" {
		t.Errorf("%+v", o)
	}
	if o := session.WithSystemPrompt(session.StartOptions{Message: "Do it."}); o.Message != "Do it." {
		t.Errorf("%+v", o)
	}
}
