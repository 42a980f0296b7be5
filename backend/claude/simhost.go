package claude

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/simulator"
)

// StartSimulator starts the simulator in-process (its server and a browser
// on its page, as "baton sim" does) and attaches the adapter to it: the
// host manager's "Simulator — no AI" host, and the tests' simulator.
// Closing the Host stops the simulator too.
func StartSimulator(ctx context.Context, sim simulator.InstanceOptions, opts Options) (*Host, *simulator.Instance, error) {
	in, err := simulator.Launch(ctx, sim)
	if err != nil {
		return nil, nil, fmt.Errorf("start the simulator: %w", err)
	}
	h, err := Dial(ctx, chrome.Config{Endpoint: in.Endpoint(), PagePatterns: []string{in.PagePattern()}, Logger: opts.Logger}, opts)
	if err != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return nil, nil, errors.Join(err, in.Shutdown(sctx))
	}
	h.after = in.Shutdown
	return h, in, nil
}
