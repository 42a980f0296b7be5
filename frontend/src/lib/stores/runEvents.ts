// The engine's events as one subscription: every store that follows runs
// (the dashboard's list, one run's detail) listens through onRunEvents.
import type { Run, RunningTool, Worker } from '../api';
import { on, runEventNames, type RunEventName } from '../events';

/** What every engine event carries (backend/engine/events.go Payload). */
export type RunEvent = {
  runId: string;
  status: string;
  phase?: string;
  taskId?: string;
  message?: string;
  worker?: Worker;
  workers?: Worker[];
  run?: Run;
  problems?: string[];
  skipped?: string[];
  /** When a run waiting for a limit goes on, and the kind of limit (limit events). */
  resumesAt?: string;
  limit?: string;
  /** The main session's tool call that runs now (orchestrator:progress). */
  tool?: RunningTool;
};

const progressEvents = new Set<string>(['orchestrator:progress', 'worker:progress'] satisfies RunEventName[]);

/**
 * Whether the event only reports progress (counters, the current action):
 * its payload carries all that changed, so no re-fetch is needed.
 */
export function isProgress(name: string): boolean {
  return progressEvents.has(name);
}

/** Subscribes to every engine event; returns the one unsubscribe. */
export function onRunEvents(handler: (name: RunEventName, payload: RunEvent) => void): () => void {
  const offs = runEventNames.map((name) => on<RunEvent>(name, (p) => handler(name, p)));
  return () => offs.forEach((off) => off());
}
