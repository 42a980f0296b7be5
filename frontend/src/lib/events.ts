// Events from Go, by name. The names are declared once in Go (domain:what)
// and mirrored in this union; subscribe only through `on`, which returns the
// unsubscribe function every subscriber must call.
import { EventsOn } from '../../wailsjs/runtime/runtime';

export type EventName =
  | 'host:status'
  | 'template:created'
  | 'template:updated'
  | 'template:deleted'
  | 'inbox:changed'
  | 'run:open'
  | 'runs:changed'
  | 'inbox:open'
  | RunEventName;

/** The engine's events (backend/engine/events.go). */
export const runEventNames = [
  'orchestrator:created',
  'orchestrator:started',
  'orchestrator:phaseChanged',
  'orchestrator:statusChanged',
  'orchestrator:analysisComplete',
  'orchestrator:tasksReady',
  'orchestrator:tasksInvalid',
  'orchestrator:workersSpawned',
  'orchestrator:progress',
  'orchestrator:reprompted',
  'orchestrator:completed',
  'orchestrator:error',
  'orchestrator:cancelled',
  'orchestrator:paused',
  'orchestrator:resumed',
  'orchestrator:reconnecting',
  'orchestrator:reconnected',
  'orchestrator:remediation',
  'orchestrator:limitWaiting',
  'orchestrator:limitDue',
  'orchestrator:limitResumed',
  'orchestrator:budgetWarning',
  'orchestrator:budgetReached',
  'orchestrator:budgetRaised',
  'orchestrator:modelRetry',
  'worker:spawned',
  'worker:started',
  'worker:progress',
  'worker:completed',
  'worker:failed',
  'worker:timeout',
  'worker:retrying',
  'worker:reprompted',
  'worker:skipped',
  'worker:paused',
  'worker:resumed',
  'worker:cancelled',
  'worker:permission',
  'worker:waitingMemory',
  'worker:awaitingReview',
  'worker:rejected',
  'worker:question',
  'worker:answered',
  'worker:merged',
  'orchestrator:mergeConflict',
  'orchestrator:worktree',
  'orchestrator:checks',
  'orchestrator:hostMoved',
  'permission:decided',
] as const;
export type RunEventName = (typeof runEventNames)[number];

export function on<T = unknown>(name: EventName, handler: (payload: T) => void): () => void {
  return EventsOn(name, (payload: T) => handler(payload));
}
