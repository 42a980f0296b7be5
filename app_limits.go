package main

import "github.com/baton-app/baton/backend/view"

// ResumeAfterLimit ends a run's wait for a rate, overload or usage limit
// now: its waiting workers go on in their sessions (the Inbox's Resume now).
func (a *App) ResumeAfterLimit(runID string) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.ResumeAfterLimit(ctx, runID); err != nil {
		return runError("resume after the limit", err)
	}
	return nil
}

// RaiseBudget sets a run's budget (a zero field keeps that cap) and resumes
// the run if its budget paused it.
func (a *App) RaiseBudget(runID string, maxCostUsd float64, maxTokens int64) error {
	ctx, cancel := runCtx()
	defer cancel()
	if err := a.Runs.RaiseBudget(ctx, runID, view.Budget{MaxCostUSD: maxCostUsd, MaxTokens: maxTokens}); err != nil {
		return runError("raise the budget", err)
	}
	return nil
}
