// The History view's data: one page of past runs for a filter.
import { get, writable, type Readable } from 'svelte/store';
import { api, type HistoryPage, type HistoryQuery } from '../api';

export type HistoryFilter = {
  text: string;
  templateId: string;
  status: string;
  /** yyyy-mm-dd, inclusive; '' for unbounded. */
  from: string;
  /** yyyy-mm-dd, inclusive; '' for unbounded. */
  to: string;
  /** '' newest first, 'cost' dearest first, 'cost_asc' cheapest first. */
  sort?: '' | 'cost' | 'cost_asc';
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
  if (f.sort) q.sort = f.sort;
  if (f.from) q.from = new Date(`${f.from}T00:00:00`).toISOString();
  if (f.to) {
    const end = new Date(`${f.to}T00:00:00`);
    end.setDate(end.getDate() + 1);
    q.to = end.toISOString();
  }
  return q as unknown as HistoryQuery;
}

export type HistoryStore = Readable<HistoryState> & {
  load: () => Promise<void>;
  setFilter: (f: Partial<HistoryFilter>) => Promise<void>;
  goTo: (offset: number) => Promise<void>;
  remove: (id: string) => Promise<boolean>;
  reset: () => void;
};

/** The history: one page of past runs for the filter. */
export function createHistoryStore(): HistoryStore {
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
