package report

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/baton-app/baton/backend/runledger"
	"github.com/baton-app/baton/backend/store"
)

// History is what the report counts of a run's stored events (oldest
// first): review verdicts, questions and answers, retries, re-prompts, QA
// rounds and limit waits; kinds says which event is which fact. A
// completion counts when a reviewer approved it ("approved by who: why").
func History(events []store.Event, kinds map[string]FactKind) []Fact {
	var out []Fact
	for _, e := range events {
		kind, ok := kinds[e.Name]
		if !ok {
			continue
		}
		var p runledger.Payload
		if len(e.Payload) > 0 {
			_ = json.Unmarshal(e.Payload, &p)
		}
		f := Fact{Kind: kind, TaskID: cmp.Or(e.TaskID, p.TaskID), Text: p.Message, At: e.CreatedAt}
		switch kind {
		case FactApproved:
			who, reason, ok := verdict(p.Message, "approved by ")
			if !ok {
				continue
			}
			f.By, f.Text = who, reason
		case FactRejected:
			if who, reason, ok := verdict(p.Message, "rejected by "); ok {
				f.By, f.Text = who, reason
			}
		case FactRemediation:
			for _, t := range p.Tasks {
				f.Tasks = append(f.Tasks, t.ID)
			}
		}
		out = append(out, f)
	}
	return out
}

// verdict splits "approved by the reviewer: looks good" into who and why.
func verdict(msg, prefix string) (who, reason string, ok bool) {
	rest, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return "", "", false
	}
	who, reason, _ = strings.Cut(rest, ": ")
	return who, reason, true
}
