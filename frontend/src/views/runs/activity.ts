// What a worker card (or the main session's card) says the session does
// now, from the worker as the events left it: the prompt it waits on, the
// tool call that runs (its name, the gist of its input, and its time since
// the call), or its latest action. The card reads the time from the one
// clock store, so it ticks between events.
import type { RunningTool, Worker } from '../../lib/api';
import { elapsed } from './format';

export type Activity =
  | { kind: 'waiting' }
  | { kind: 'tool'; name: string; input: string; time: string }
  | { kind: 'action'; text: string }
  | { kind: 'idle' };

/** The running tool call at now: its name, its input's gist and how long it has run. */
export function toolActivity(tool: RunningTool, now: number): Activity {
  return { kind: 'tool', name: tool.name, input: tool.input ?? '', time: elapsed(String(tool.startedAt), now) };
}

/** What a worker that has not finished does now. */
export function workerActivity(w: Pick<Worker, 'waiting' | 'tools' | 'currentAction'>, now: number): Activity {
  if (w.waiting) return { kind: 'waiting' };
  if (w.tools?.running) return toolActivity(w.tools.running, now);
  if (w.currentAction) return { kind: 'action', text: w.currentAction };
  return { kind: 'idle' };
}
