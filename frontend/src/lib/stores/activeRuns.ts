// The dashboard's list: every run that has not finished, whichever process
// drives it (this window, a "baton run" in a terminal, or none).
import { writable, type Readable } from 'svelte/store';
import { api, type Run } from '../api';
import { debounce } from '../debounce';
import { on } from '../events';
import { isProgress, onRunEvents } from './runEvents';

export type ActiveRunsState = { loading: boolean; runs: Run[]; error?: Error };

export type ActiveRunsStore = Readable<ActiveRunsState> & {
  load: () => Promise<void>;
  /** Follows the engine's events; returns the unsubscribe. */
  listen: () => () => void;
  pause: (id: string) => Promise<void>;
  resume: (id: string) => Promise<void>;
  cancel: (id: string) => Promise<void>;
  reset: () => void;
};

/**
 * The runs that have not finished, for the dashboard; kept fresh by the
 * engine's events and by runs:changed (what other processes changed).
 */
export function createActiveRuns(refreshMs = 300): ActiveRunsStore {
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
    cancel: (id) => act(() => api.runs.cancel(id)),
    listen() {
      const offOthers = on('runs:changed', () => refresh());
      const off = onRunEvents((name, p) => {
        if (isProgress(name) && p.run) {
          const run = p.run;
          state.update((s) => ({ ...s, runs: s.runs.map((r) => (r.id === p.runId ? ({ ...r, ...run } as Run) : r)) }));
          return;
        }
        if (!isProgress(name)) refresh();
      });
      return () => {
        off();
        offOthers();
        refresh.cancel();
      };
    },
  };
}

export const activeRuns = createActiveRuns();
