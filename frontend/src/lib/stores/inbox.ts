import { get, writable, type Readable } from 'svelte/store';
import { api, type InboxItem, type PermissionDecision } from '../api';
import { on } from '../events';

export type InboxState = {
  loading: boolean;
  items: InboxItem[];
  active: number;
  error?: Error;
  answerError?: Error;
  /** Items whose action is under way, by itemKey. */
  busy: string[];
  /** The failed review or answer of one item, shown next to its form. */
  itemError?: { key: string; error: Error };
};

/** Identical pending permission prompts of one run, answered together. */
export type InboxGroup = { key: string; item: InboxItem; items: InboxItem[] };

/**
 * Groups the items: identical permission prompts of one run (same tool and
 * input) become one group under the first of them; every other item is a
 * group of its own. The order is the items' order.
 */
export function groupItems(items: InboxItem[]): InboxGroup[] {
  const out: InboxGroup[] = [];
  const byKey = new Map<string, InboxGroup>();
  for (const item of items) {
    if (item.kind === 'permission' && item.key) {
      const k = `${item.runId}\u0000${item.key}`;
      const g = byKey.get(k);
      if (g) {
        g.items.push(item);
        continue;
      }
      const group = { key: itemKey(item), item, items: [item] };
      byKey.set(k, group);
      out.push(group);
      continue;
    }
    out.push({ key: itemKey(item), item, items: [item] });
  }
  return out;
}

/** "go test ./... — 4 workers": what a group of identical prompts asks, and of how many. */
export function groupTitle(g: InboxGroup): string {
  if (g.items.length < 2) return g.item.title;
  return `${g.item.summary || g.item.detail || g.item.title} — ${g.items.length} ${g.items.every((i) => i.taskId) ? 'workers' : 'sessions'}`;
}

/** Names one inbox item. */
export function itemKey(item: InboxItem): string {
  return `${item.kind}:${item.runId}:${item.taskId ?? ''}:${item.requestId ?? ''}`;
}

/** What waits for the user across all active runs; kept fresh by inbox:changed. */
export function createInboxStore(): Readable<InboxState> & {
  load: () => Promise<void>;
  listen: () => () => void;
  answer: (item: InboxItem, decision: PermissionDecision) => Promise<void>;
  /** Answers every prompt of a group the same way. */
  answerAll: (items: InboxItem[], decision: PermissionDecision) => Promise<void>;
  /** Allows rule for the run of item: the engine answers every pending prompt it covers. */
  allowForRun: (item: InboxItem, rule: string) => Promise<void>;
  review: (item: InboxItem, approve: boolean, reason: string) => Promise<boolean>;
  clarify: (item: InboxItem, text: string) => Promise<boolean>;
  /** Resume now: ends the wait of a run whose limit reset (the automatic resume is off). */
  resumeAfterLimit: (item: InboxItem) => Promise<boolean>;
  reset: () => void;
} {
  const state = writable<InboxState>({ loading: true, items: [], active: 0, busy: [] });
  let seq = 0;
  async function load() {
    const mine = ++seq;
    state.update((s) => ({ ...s, error: undefined }));
    try {
      const items = await api.runs.inbox();
      if (mine === seq) state.update((s) => ({ ...s, loading: false, items: items ?? [], error: undefined }));
    } catch (error) {
      if (mine === seq) state.update((s) => ({ ...s, loading: false, error: error as Error }));
    }
  }
  /** Runs an item's action; its error is shown next to the item. */
  async function act(item: InboxItem, fn: () => Promise<void>): Promise<boolean> {
    const key = itemKey(item);
    state.update((s) => ({ ...s, busy: [...s.busy, key], itemError: s.itemError?.key === key ? undefined : s.itemError }));
    try {
      await fn();
      state.update((s) => ({ ...s, items: s.items.filter((i) => itemKey(i) !== key) }));
      await load();
      return true;
    } catch (error) {
      state.update((s) => ({ ...s, itemError: { key, error: error as Error } }));
      return false;
    } finally {
      state.update((s) => ({ ...s, busy: s.busy.filter((b) => b !== key) }));
    }
  }
  /** Answers a permission prompt or question: a worker's and a main session's through the engine, which logs it. */
  async function respond(item: InboxItem, decision: PermissionDecision) {
    if (item.sessionId) await api.runs.answerMain(item.runId, item.requestId ?? '', decision);
    else await api.runs.answer(item.runId, item.taskId ?? '', decision);
  }
  async function answerItems(items: InboxItem[], fn: () => Promise<void>) {
    try {
      await fn();
      state.update((s) => ({ ...s, answerError: undefined, items: s.items.filter((i) => !items.includes(i)) }));
      await load();
    } catch (error) {
      state.update((s) => ({ ...s, answerError: error as Error }));
    }
  }
  return {
    subscribe: state.subscribe,
    load,
    reset() {
      seq++;
      state.set({ loading: true, items: [], active: 0, busy: [] });
    },
    /** Answers a permission prompt or question from the inbox. */
    async answer(item, decision) {
      await answerItems([item], () => respond(item, decision));
    },
    async answerAll(items, decision) {
      await answerItems(items, async () => {
        for (const item of items) await respond(item, decision);
      });
    },
    async allowForRun(item, rule) {
      const mine = (i: InboxItem) => i.runId === item.runId && i.kind === 'permission' && i.key === item.key;
      await answerItems(get(state).items.filter(mine), () => api.runs.allowForRun(item.runId, rule));
    },
    /** Approves or rejects a task that waits for the user's review. */
    review: (item, approve, reason) => act(item, () => api.runs.review(item.runId, item.taskId ?? '', approve, reason)),
    /** Answers the questions a worker asked. */
    clarify: (item, text) => act(item, () => api.runs.answerClarification(item.runId, item.taskId ?? '', text)),
    resumeAfterLimit: (item) => act(item, () => api.runs.resumeAfterLimit(item.runId)),
    listen() {
      return on<{ active: number; items: InboxItem[] | null }>('inbox:changed', (p) => {
        seq++; // an event is newer than a load under way
        state.update((s) => ({ ...s, loading: false, items: p?.items ?? [], active: p?.active ?? 0 }));
      });
    },
  };
}

export const inboxStore = createInboxStore();
