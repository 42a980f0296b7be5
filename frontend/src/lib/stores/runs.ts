import { get, readable, writable, type Readable } from 'svelte/store';
import {
  api,
  type CreateRunRequest,
  type HistoryPage,
  type HistoryQuery,
  type Modifications,
  type PermissionDecision,
  type PermissionPrompt,
  type ReportExport,
  type ResolvedTemplate,
  type Run,
  type RunSnapshot,
  type Worker,
  type WorkerAction,
} from '../api';
import { on, runEventNames } from '../events';
import { navigation } from './navigation';
import { sessionsStore } from './sessions';

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
};

const progressEvents = new Set(['orchestrator:progress', 'worker:progress']);

/** Subscribes to every engine event; returns the one unsubscribe. */
export function onRunEvents(handler: (name: string, payload: RunEvent) => void): () => void {
  const offs = runEventNames.map((name) => on<RunEvent>(name, (p) => handler(name, p)));
  return () => offs.forEach((off) => off());
}

/** Calls fn at most once per `ms` (trailing): bursts of events become one re-fetch. */
function debounce(fn: () => void, ms: number): { (): void; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const d = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  d.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return d;
}

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
};

/** Run statuses in which the main session works and may wait on a prompt. */
const mainPhases = new Set(['analyzing', 'planning', 'aggregating', 'verifying']);

export type RunStore = Readable<RunState> & {
  load: () => Promise<void>;
  /** Follows the engine's events for this run; returns the unsubscribe. */
  listen: () => () => void;
  confirm: (mods: Modifications) => Promise<boolean>;
  pause: () => Promise<void>;
  resume: () => Promise<void>;
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
  const state = writable<RunState>({ loading: true, busy: [], mainPrompts: [] });
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
    const snap = get(state).snapshot;
    if (snap) {
      const updates = [...(p.workers ?? []), ...(p.worker ? [p.worker] : [])];
      const run = p.run ? ({ ...snap.run, ...p.run } as Run) : snap.run;
      patch({ snapshot: { ...snap, run, workers: mergeWorkers(snap.workers ?? [], updates) } as RunSnapshot });
    }
    // Progress carries what changed; everything else may change tasks,
    // answers or groups, so the snapshot is read again.
    if (!progressEvents.has(name) || !snap) refresh();
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
      const timer = setInterval(() => void pollMain(), promptPollMs);
      return () => {
        off();
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

export type ActiveRunsState = { loading: boolean; runs: Run[]; error?: Error };

/** The runs the engine drives, for the dashboard; kept fresh by the engine's events. */
export function createActiveRuns(refreshMs = 300): Readable<ActiveRunsState> & {
  load: () => Promise<void>;
  listen: () => () => void;
  pause: (id: string) => Promise<void>;
  resume: (id: string) => Promise<void>;
  reset: () => void;
} {
  const state = writable<ActiveRunsState>({ loading: true, runs: [] });
  let seq = 0;
  async function load() {
    const mine = ++seq;
    state.update((s) => ({ ...s, error: undefined }));
    try {
      const runs = await api.runs.active();
      if (mine === seq) state.set({ loading: false, runs: runs ?? [], error: undefined });
    } catch (error) {
      if (mine === seq) state.update((s) => ({ ...s, loading: false, error: error as Error }));
    }
  }
  const refresh = debounce(() => void load(), refreshMs);
  async function act(fn: () => Promise<void>) {
    try {
      await fn();
      await load();
    } catch (error) {
      state.update((s) => ({ ...s, error: error as Error }));
    }
  }
  return {
    subscribe: state.subscribe,
    load,
    pause: (id) => act(() => api.runs.pause(id)),
    reset() {
      seq++;
      refresh.cancel();
      state.set({ loading: true, runs: [] });
    },
    resume: (id) => act(() => api.runs.resume(id)),
    listen() {
      const off = onRunEvents((name, p) => {
        if (progressEvents.has(name) && p.run) {
          const run = p.run;
          state.update((s) => ({ ...s, runs: s.runs.map((r) => (r.id === p.runId ? ({ ...r, ...run } as Run) : r)) }));
          return;
        }
        if (!progressEvents.has(name)) refresh();
      });
      return () => {
        off();
        refresh.cancel();
      };
    },
  };
}

export const activeRuns = createActiveRuns();

/** The run the Runs view shows (undefined: the dashboard). */
export const openRun = writable<string | undefined>(undefined);

/** Opens run id in the Runs view. */
export function showRun(id: string): void {
  openRun.set(id);
  navigation.go('runs');
}

/** Follows run:open (a clicked desktop notification); returns the unsubscribe. */
export function listenRunOpen(): () => void {
  return on<string>('run:open', (id) => {
    if (typeof id === 'string' && id !== '') showRun(id);
  });
}

/** Shows a worker's session in the Sessions view (hidden sessions included). */
export function openTranscript(sessionId: string): void {
  void sessionsStore.setIncludeHidden(true);
  void sessionsStore.select(sessionId);
  navigation.go('sessions');
}

export type HistoryFilter = {
  text: string;
  templateId: string;
  status: string;
  /** yyyy-mm-dd, inclusive; '' for unbounded. */
  from: string;
  /** yyyy-mm-dd, inclusive; '' for unbounded. */
  to: string;
};

export type HistoryState = {
  loading: boolean;
  filter: HistoryFilter;
  offset: number;
  page?: HistoryPage;
  error?: Error;
  deleteError?: Error;
};

export const historyPageSize = 25;

/** Turns the filter into the binding's query. */
export function historyQuery(f: HistoryFilter, offset: number, limit = historyPageSize): HistoryQuery {
  const q: Record<string, unknown> = { limit, offset };
  if (f.text.trim()) q.text = f.text.trim();
  if (f.templateId) q.templateId = f.templateId;
  if (f.status) q.status = [f.status];
  if (f.from) q.from = new Date(`${f.from}T00:00:00`).toISOString();
  if (f.to) {
    const end = new Date(`${f.to}T00:00:00`);
    end.setDate(end.getDate() + 1);
    q.to = end.toISOString();
  }
  return q as unknown as HistoryQuery;
}

/** The history: one page of past runs for the filter. */
export function createHistoryStore(): Readable<HistoryState> & {
  load: () => Promise<void>;
  setFilter: (f: Partial<HistoryFilter>) => Promise<void>;
  goTo: (offset: number) => Promise<void>;
  remove: (id: string) => Promise<boolean>;
  reset: () => void;
} {
  const empty: HistoryState = { loading: false, offset: 0, filter: { text: '', templateId: '', status: '', from: '', to: '' } };
  const state = writable<HistoryState>({ ...empty });
  let seq = 0;
  async function load() {
    const mine = ++seq;
    const { filter, offset } = get(state);
    state.update((s) => ({ ...s, loading: true }));
    try {
      const page = await api.runs.history(historyQuery(filter, offset));
      if (mine === seq) state.update((s) => ({ ...s, loading: false, page, error: undefined }));
    } catch (error) {
      if (mine === seq) state.update((s) => ({ ...s, loading: false, error: error as Error }));
    }
  }
  return {
    subscribe: state.subscribe,
    load,
    async setFilter(f) {
      state.update((s) => ({ ...s, filter: { ...s.filter, ...f }, offset: 0 }));
      await load();
    },
    async goTo(offset) {
      state.update((s) => ({ ...s, offset: Math.max(0, offset) }));
      await load();
    },
    async remove(id) {
      try {
        await api.runs.remove(id);
        state.update((s) => ({ ...s, deleteError: undefined }));
        await load();
        return true;
      } catch (error) {
        state.update((s) => ({ ...s, deleteError: error as Error }));
        return false;
      }
    },
    reset() {
      seq++;
      state.set({ ...empty, filter: { ...empty.filter } });
    },
  };
}

export const historyStore = createHistoryStore();

/** A clock for elapsed times: ticks every second while someone listens. */
export const now = readable(Date.now(), (set) => {
  const timer = setInterval(() => set(Date.now()), 1000);
  return () => clearInterval(timer);
});

export type NewRunState = {
  recent: string[];
  resolved?: ResolvedTemplate;
  resolving: boolean;
  resolveError?: Error;
  starting: boolean;
  startError?: Error;
};

/** The New run wizard's data: the chosen template resolved, recent folders, and starting. */
export function createNewRunStore(): Readable<NewRunState> & {
  loadRecent: () => Promise<void>;
  selectTemplate: (id: string) => Promise<void>;
  chooseFolder: () => Promise<string>;
  start: (req: CreateRunRequest) => Promise<Run | undefined>;
} {
  const state = writable<NewRunState>({ recent: [], resolving: false, starting: false });
  const patch = (p: Partial<NewRunState>) => state.update((s) => ({ ...s, ...p }));
  let seq = 0;
  return {
    subscribe: state.subscribe,
    async loadRecent() {
      try {
        const view = await api.settings.get();
        patch({ recent: view.settings?.recentFolders ?? [] });
      } catch {
        patch({ recent: [] }); // recent folders are a convenience; the dialog still works
      }
    },
    async selectTemplate(id) {
      const mine = ++seq;
      patch({ resolving: true, resolveError: undefined, resolved: undefined });
      try {
        const resolved = await api.templates.resolve(id);
        if (mine === seq) patch({ resolved, resolving: false });
      } catch (error) {
        if (mine === seq) patch({ resolveError: error as Error, resolving: false });
      }
    },
    async chooseFolder() {
      try {
        return await api.chooseFolder('Choose the project folder');
      } catch (error) {
        patch({ startError: error as Error });
        return '';
      }
    },
    async start(req) {
      patch({ starting: true, startError: undefined });
      try {
        return await api.runs.start(req);
      } catch (error) {
        patch({ startError: error as Error });
        return undefined;
      } finally {
        patch({ starting: false });
      }
    },
  };
}
