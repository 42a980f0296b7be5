// Words, numbers and tones the run views show.
import type { PhaseAnswer, Run, RunSnapshot, Worker } from '../../lib/api';
import { truncate } from '../../lib/text';

export type Tone = 'neutral' | 'accent' | 'success' | 'warning' | 'danger';

const runLabels: Record<string, [string, Tone]> = {
  created: ['Created', 'neutral'],
  analyzing: ['Analyzing', 'accent'],
  planning: ['Planning', 'accent'],
  confirming: ['Waiting for review', 'warning'],
  spawning: ['Starting workers', 'accent'],
  running: ['Running', 'accent'],
  aggregating: ['Aggregating', 'accent'],
  verifying: ['Verifying', 'accent'],
  completed: ['Completed', 'success'],
  completed_with_issues: ['Completed with issues', 'warning'],
  failed: ['Failed', 'danger'],
  paused: ['Paused', 'warning'],
  cancelled: ['Cancelled', 'neutral'],
  error: ['Stopped with an error', 'danger'],
  interrupted: ['Interrupted', 'warning'],
};

/** The statuses of a run that is over. */
export const finishedStatuses = ['completed', 'completed_with_issues', 'failed', 'cancelled', 'error'];

/** Whether the run went through to its end (whatever it achieved), rather than being cancelled or stopped. */
export function reachedEnd(status: string): boolean {
  return ['completed', 'completed_with_issues', 'failed'].includes(status);
}

/** The reason of a task the user skipped in review: no failure, never red. */
export const skippedByUser = 'skipped by the user';

/** The badge of a run. A run that completed with failed tasks never gets a green one (runs stored before Baton named
 *  the outcomes are "completed" whatever happened); tasks the user skipped are no failure. */
export function runStatus(status: string, run?: Pick<Run, 'tasksFailed' | 'tasksSkipped'>): { label: string; tone: Tone } {
  if (status === 'completed' && run && run.tasksFailed > 0) {
    return { label: 'Completed with failures', tone: 'warning' };
  }
  const [label, tone] = runLabels[status] ?? [status, 'neutral'];
  return { label, tone };
}

const workerLabels: Record<string, [string, Tone]> = {
  pending: ['Pending', 'neutral'],
  spawning: ['Starting', 'accent'],
  running: ['Running', 'accent'],
  paused: ['Paused', 'warning'],
  completed: ['Completed', 'success'],
  failed: ['Failed', 'danger'],
  timeout: ['Timed out', 'danger'],
  cancelled: ['Cancelled', 'neutral'],
  awaiting_review: ['Awaiting review', 'warning'],
  rejected: ['Rejected', 'danger'],
};

export function workerStatus(w: Worker): { label: string; tone: Tone } {
  if (w.waiting) return { label: 'Waits for you', tone: 'warning' };
  if (w.skipped) return { label: 'Skipped', tone: 'neutral' };
  const [label, tone] = workerLabels[w.status] ?? [w.status, 'neutral'];
  return { label, tone };
}

export function isActive(status: string): boolean {
  return !finishedStatuses.includes(status);
}

export const steps = [
  { key: 'analysis', label: 'Analysis' },
  { key: 'taskPlanning', label: 'Planning' },
  { key: 'review', label: 'Review' },
  { key: 'workerExecution', label: 'Workers' },
  { key: 'aggregation', label: 'Aggregation' },
  { key: 'verification', label: 'Verification' },
] as const;

const stepOfStatus: Record<string, number> = {
  created: 0,
  analyzing: 0,
  planning: 1,
  confirming: 2,
  spawning: 3,
  running: 3,
  aggregating: 4,
  verifying: 5,
};

const stepOfPhase: Record<string, number> = { analysis: 0, taskPlanning: 1, workerExecution: 3, aggregation: 4, verification: 5 };

/** The step the run is at (steps.length when it completed), and whether it stopped there. */
export function currentStep(run: Run): { index: number; stopped: boolean } {
  if (reachedEnd(run.status)) return { index: steps.length, stopped: false };
  const held = run.status === 'paused' || run.status === 'interrupted';
  const status = held ? run.resumeStatus || '' : run.status;
  if (status in stepOfStatus) return { index: stepOfStatus[status], stopped: held };
  return { index: stepOfPhase[run.phase] ?? 0, stopped: true };
}

/** The note of a run waiting for its lost session host, or for the model its CLI cannot reach (model). */
export function reconnectingTitle(rc: { until: string; reason?: string; model?: boolean }): string {
  const until = new Date(rc.until);
  const at = Number.isNaN(until.getTime()) ? '' : ` at ${until.toLocaleTimeString()}`;
  const what = rc.model ? 'the model' : 'the session host';
  return `Reconnecting to ${what}; the run stops as interrupted${at} unless it comes back.${rc.reason ? ` ${rc.reason}` : ''}`;
}

/** The badge of a run waiting for its lost session host or model. */
export function reconnectingLabel(rc: { model?: boolean }): string {
  return rc.model ? 'Reconnecting to the model' : 'Reconnecting';
}

/** The main session's wait for the model its CLI retries ("waiting for the model (rate limited), attempt 2 of 10"), from the run's message. */
export function modelWait(message?: string): string | undefined {
  const prefix = 'the main session is waiting for the model';
  return message?.startsWith(prefix) ? message : undefined;
}

export function elapsed(from?: string, to?: string | number): string {
  if (!from) return '—';
  const start = Date.parse(from);
  const end = typeof to === 'number' ? to : to ? Date.parse(to) : Date.now();
  if (Number.isNaN(start) || Number.isNaN(end)) return '—';
  let s = Math.max(0, Math.round((end - start) / 1000));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

export function tokens(n: number): string {
  if (!n) return '0';
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function cost(usd: number): string {
  if (!usd) return '$0';
  return usd < 0.01 ? '<$0.01' : `$${usd.toFixed(2)}`;
}

export function when(iso?: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The first line of a request, for titles. */
export function headline(request: string, max = 90): string {
  const line = (request ?? '').replace(/\[\[sim:[^\]]*\]\]/g, '').trim().split('\n')[0].trim();
  return line ? truncate(line, max) : 'Untitled run';
}

/** The run's progress from 0 to 1 by tasks done. */
export function runProgress(run: Run): number {
  const total = run.tasksTotal - run.tasksSkipped;
  if (total <= 0) return reachedEnd(run.status) ? 1 : 0;
  return Math.min(1, (run.tasksCompleted + run.tasksFailed) / total);
}

/** Decodes an answer's data (raw JSON in Go). */
export function answerData<T = Record<string, unknown>>(a: PhaseAnswer | undefined): T | undefined {
  if (!a || a.data === undefined || a.data === null) return undefined;
  const raw: unknown = a.data;
  if (typeof raw === 'string') {
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined;
    }
  }
  return raw as T;
}

/** The latest usable answer of a phase ("analysis", "task_list", "aggregation", "verification"). */
export function latestAnswer(s: RunSnapshot, phase: string): PhaseAnswer | undefined {
  const list = (s.answers ?? []).filter((a) => a.phase === phase && (a.status === 'valid' || a.status === 'repaired'));
  return list[list.length - 1];
}

/** What a permission prompt asks, in a line: the command, the file, or the question. */
export function describePermission(tool: string, input: unknown): { question?: string; options?: string[]; detail: string } {
  let value: unknown = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { detail: value as string };
    }
  }
  const obj = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const questions = Array.isArray(obj.questions) ? (obj.questions as Record<string, unknown>[]) : [];
  if (questions.length > 0) {
    const q = questions[0];
    const options = Array.isArray(q.options) ? (q.options as Record<string, unknown>[]).map((o) => String(o.label ?? '')) : [];
    return { question: String(q.question ?? ''), options, detail: String(q.question ?? '') };
  }
  for (const key of ['command', 'file_path', 'path', 'url', 'pattern']) {
    if (typeof obj[key] === 'string') return { detail: `${tool}: ${obj[key]}` };
  }
  const text = JSON.stringify(value);
  return { detail: text && text !== '{}' ? `${tool} ${truncate(text, 160)}` : tool };
}

/** A limit's kind as the run view names it. */
export function limitKind(kind?: string): string {
  switch (kind) {
    case 'usage_limit':
      return 'usage limit';
    case 'rate_limit':
      return 'rate limit (429)';
    case 'overloaded':
      return 'API overloaded (529)';
  }
  return kind || 'limit';
}

/** The time of day (HH:MM) of an ISO time, with the date when it is not today. */
export function clockTime(iso?: string, today = new Date()): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const hm = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hour12: false });
  return d.toDateString() === today.toDateString() ? hm : `${d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })} ${hm}`;
}

type CostOf = { costUsd: number; limits?: { costSimulated?: boolean; costEstimated?: boolean } };

/** A run's cost with what it is: simulated on the simulator, estimated from the price table. */
export function runCost(run: CostOf): string {
  const c = cost(run.costUsd);
  if (run.limits?.costSimulated) return `${c} (simulated)`;
  if (run.limits?.costEstimated) return `≈${c} (price table)`;
  return c;
}
