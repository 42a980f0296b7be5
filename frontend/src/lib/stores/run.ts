// One run as the Runs view shows it: its snapshot (run, tasks, workers,
// answers) kept live by the engine's events, the prompts its main session
// waits on, and the actions the user takes on it.
import { get, writable, type Readable } from 'svelte/store';
import {
  api,
  type Modifications,
  type PermissionDecision,
  type PermissionPrompt,
  type ReportExport,
  type Run,
  type RunningTool,
  type RunSnapshot,
  type Worker,
  type WorkerAction,
} from '../api';
import { debounce } from '../debounce';
import { on } from '../events';
import { isProgress, onRunEvents, type RunEvent } from './runEvents';

/** Replaces the workers in `list` that `updates` name (by task id), adding new ones. */
export function mergeWorkers(list: Worker[], updates: Worker[]): Worker[] {
  if (updates.length === 0) return list;
  const byTask = new Map(updates.map((w) => [w.taskId, w]));
  const out = list.map((w) => {
    const u = byTask.get(w.taskId);
    if (!u) return w;
    byTask.delete(w.taskId);
    return { ...w, ...u } as Worker;
  });
  return [...out, ...byTask.values()];
}

export type RunState = {
  loading: boolean;
  error?: Error;
  snapshot?: RunSnapshot;
  /** Actions under way, as "confirm", "pause", "worker:t1:retry", "answer:t1"… */
  busy: string[];
  actionError?: Error;
  /** The action that failed, as in busy: "review:t1" and "clarify:t1" show their error next to their form. */
  actionErrorKey?: string;
  /** Where the last export went. */
  exported?: string;
  /** Prompts the run's main session waits on (analysis, planning, aggregation, verification). */
  mainPrompts: PermissionPrompt[];
  /** What the main session does now (orchestrator:progress): its latest action and the tool call that runs. */
  main: MainActivity;
};

/** What the main session does now, as its progress events say. */
export type MainActivity = { action?: string; tool?: RunningTool };

/** The main session's activity after event name (progress sets it; a new phase starts it afresh). */
export function mainActivity(prev: MainActivity, name: string, p: RunEvent): MainActivity {
  if (name === 'orchestrator:progress') return { action: p.message || prev.action, tool: p.tool ?? undefined };
  if (name === 'orchestrator:phaseChanged' || name === 'orchestrator:statusChanged') return {};
  return prev;
}

/** Run statuses in which the main session works and may wait on a prompt. */
const mainPhases = new Set(['analyzing', 'planning', 'aggregating', 'verifying']);

export type RunStore = Readable<RunState> & {
  load: () => Promise<void>;
  /** Follows the engine's events for this run; returns the unsubscribe. */
  listen: () => () => void;
  confirm: (mods: Modifications) => Promise<boolean>;
  pause: () => Promise<void>;
  resume: () => Promise<void>;
  /** Ends the run's wait for a limit now. */
  resumeAfterLimit: () => Promise<void>;
  /** Raises the budget (0 keeps that cap) and resumes a run the budget paused; false when it failed. */
  raiseBudget: (maxCostUsd: number, maxTokens: number) => Promise<boolean>;
  cancel: () => Promise<void>;
  worker: (taskId: string, action: WorkerAction) => Promise<void>;
  answer: (taskId: string, decision: PermissionDecision) => Promise<void>;
  answerQuestion: (taskId: string, answers: Record<string, string>) => Promise<void>;
  /** Approves or rejects a task awaiting the user's review; true when the engine took it. */
  review: (taskId: string, approve: boolean, reason: string) => Promise<boolean>;
  /** Answers the questions a worker asked; true when the worker got the answer. */
  clarify: (taskId: string, text: string) => Promise<boolean>;
  /** Answers a prompt of the main session. */
  answerMain: (requestId: string, decision: PermissionDecision) => Promise<void>;
  exportReport: () => Promise<void>;
  openPath: (path: string) => Promise<void>;
};

/** One run: its snapshot, kept live by the engine's events, and its actions. */
export function createRunStore(runId: string, refreshMs = 200, promptPollMs = 2000): RunStore {
  const state = writable<RunState>({ loading: true, busy: [], mainPrompts: [], main: {} });
  const patch = (p: Partial<RunState>) => state.update((s) => ({ ...s, ...p }));
  let seq = 0;

  async function load() {
    const mine = ++seq;
    try {
      const snapshot = await api.runs.snapshot(runId);
      if (mine === seq) {
        patch({ snapshot, error: undefined, loading: false });
        if (mainPhases.has(snapshot.run?.status) || get(state).mainPrompts.length > 0) void pollMain();
      }
    } catch (error) {
      if (mine === seq) patch({ error: error as Error, loading: false });
    }
  }
  const refresh = debounce(() => void load(), refreshMs);

  // The engine reports the prompts of workers; those of the main session are
  // read from the host while the main session works.
  async function pollMain() {
    const run = get(state).snapshot?.run;
    if (!run || !run.mainSessionId || !mainPhases.has(run.status)) {
      if (get(state).mainPrompts.length > 0) patch({ mainPrompts: [] });
      return;
    }
    try {
      const all = await api.sessions.permissions();
      patch({ mainPrompts: (all ?? []).filter((p) => p.sessionId === run.mainSessionId) });
    } catch {
      // the host may be reconnecting; the next poll tries again
    }
  }

  function apply(name: string, p: RunEvent) {
    if (p.runId !== runId) return;
    const main = mainActivity(get(state).main, name, p);
    if (main !== get(state).main) patch({ main });
    const snap = get(state).snapshot;
    if (snap) {
      const updates = [...(p.workers ?? []), ...(p.worker ? [p.worker] : [])];
      const run = p.run ? ({ ...snap.run, ...p.run } as Run) : snap.run;
      patch({ snapshot: { ...snap, run, workers: mergeWorkers(snap.workers ?? [], updates) } as RunSnapshot });
    }
    // Progress carries what changed; everything else may change tasks,
    // answers or groups, so the snapshot is read again.
    if (!isProgress(name) || !snap) refresh();
  }

  async function act(key: string, fn: () => Promise<unknown>): Promise<boolean> {
    patch({ busy: [...get(state).busy, key], actionError: undefined, actionErrorKey: undefined });
    try {
      await fn();
      await load();
      return true;
    } catch (error) {
      patch({ actionError: error as Error, actionErrorKey: key });
      return false;
    } finally {
      patch({ busy: get(state).busy.filter((b) => b !== key) });
    }
  }

  return {
    subscribe: state.subscribe,
    load,
    listen() {
      const off = onRunEvents(apply);
      // A run another process drives sends no events here: runs:changed says it changed.
      const offOthers = on('runs:changed', () => refresh());
      const timer = setInterval(() => void pollMain(), promptPollMs);
      return () => {
        off();
        offOthers();
        clearInterval(timer);
        refresh.cancel();
      };
    },
    answerMain: async (requestId, decision) =>
      void (await act(`main:${requestId}`, async () => {
        await api.sessions.respond(requestId, decision);
        patch({ mainPrompts: get(state).mainPrompts.filter((p) => p.requestId !== requestId) });
      })),
    confirm: (mods) => act('confirm', () => api.runs.confirm(runId, mods)),
    pause: async () => void (await act('pause', () => api.runs.pause(runId))),
    resume: async () => void (await act('resume', () => api.runs.resume(runId))),
    resumeAfterLimit: async () => void (await act('resumeAfterLimit', () => api.runs.resumeAfterLimit(runId))),
    raiseBudget: (maxCostUsd, maxTokens) => act('raiseBudget', () => api.runs.raiseBudget(runId, maxCostUsd, maxTokens)),
    cancel: async () => void (await act('cancel', () => api.runs.cancel(runId))),
    worker: async (taskId, action) => void (await act(`worker:${taskId}:${action}`, () => api.runs.worker(runId, taskId, action))),
    answer: async (taskId, decision) => void (await act(`answer:${taskId}`, () => api.runs.answer(runId, taskId, decision))),
    answerQuestion: async (taskId, answers) =>
      void (await act(`answer:${taskId}`, () => api.runs.answerQuestion(runId, taskId, answers))),
    review: (taskId, approve, reason) => act(`review:${taskId}`, () => api.runs.review(runId, taskId, approve, reason)),
    clarify: (taskId, text) => act(`clarify:${taskId}`, () => api.runs.answerClarification(runId, taskId, text)),
    async exportReport() {
      let result: ReportExport | undefined;
      const ok = await act('export', async () => {
        result = await api.runs.exportReport(runId);
      });
      if (ok && result && !result.cancelled) patch({ exported: result.path });
    },
    openPath: async (path) => void (await act(`open:${path}`, () => api.runs.openPath(runId, path))),
  };
}
