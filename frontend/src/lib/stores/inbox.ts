import { writable, type Readable } from 'svelte/store';
import { api, type InboxItem, type PermissionDecision } from '../api';
import { on } from '../events';

export type InboxState = {
  loading: boolean;
  items: InboxItem[];
  active: number;
  error?: Error;
  /** Items whose action is under way, by itemKey. */
  busy: string[];
  /** The failed review or answer of one item, shown next to its form. */
  itemError?: { key: string; error: Error };
  /** What the user did to the items handled here, by itemKey ("Allowed once", "Approved"…). */
  done: Record<string, string>;
};

/** An item as the Inbox shows it: done says how it was handled, or that it no longer waits. */
export type ShownItem = { item: InboxItem; done?: string };

/**
 * The items the Inbox shows: those it showed keep their places (one handled
 * here, or gone meanwhile, stays, marked done, until the view is left), so
 * nothing moves under the cursor; new items come after them.
 */
export function keepPlaces(shown: ShownItem[], live: InboxItem[], done: Record<string, string>): ShownItem[] {
  const byKey = new Map(live.map((i) => [itemKey(i), i]));
  const out = shown.map(({ item, done: was }) => {
    const key = itemKey(item);
    const now = byKey.get(key);
    byKey.delete(key);
    if (done[key]) return { item, done: done[key] };
    if (now) return { item: now };
    return { item, done: was ?? 'No longer waiting' };
  });
  for (const item of byKey.values()) out.push(done[itemKey(item)] ? { item, done: done[itemKey(item)] } : { item });
  return out;
}

const decided: Record<PermissionDecision, string> = { once: 'Allowed once', always: 'Always allowed', deny: 'Denied' };

/** Names one inbox item. */
export function itemKey(item: InboxItem): string {
  return `${item.kind}:${item.runId}:${item.taskId ?? ''}:${item.requestId ?? ''}`;
}

/** What waits for the user across all active runs; kept fresh by inbox:changed. */
export function createInboxStore(): Readable<InboxState> & {
  load: () => Promise<void>;
  listen: () => () => void;
  answer: (item: InboxItem, decision: PermissionDecision) => Promise<void>;
  review: (item: InboxItem, approve: boolean, reason: string) => Promise<boolean>;
  clarify: (item: InboxItem, text: string) => Promise<boolean>;
  /** Resume now: ends the wait of a run whose limit reset (the automatic resume is off). */
  resumeAfterLimit: (item: InboxItem) => Promise<boolean>;
  reset: () => void;
  /** Forgets what was handled here (the Inbox view was left). */
  forget: () => void;
} {
  const state = writable<InboxState>({ loading: true, items: [], active: 0, busy: [], done: {} });
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
  /** Runs an item's action; its error is shown next to the item, and what was done in its place. */
  async function act(item: InboxItem, label: string, fn: () => Promise<void>): Promise<boolean> {
    const key = itemKey(item);
    state.update((s) => ({ ...s, busy: [...s.busy, key], itemError: s.itemError?.key === key ? undefined : s.itemError }));
    try {
      await fn();
      state.update((s) => ({ ...s, items: s.items.filter((i) => itemKey(i) !== key), done: { ...s.done, [key]: label } }));
      await load();
      return true;
    } catch (error) {
      state.update((s) => ({ ...s, itemError: { key, error: error as Error } }));
      return false;
    } finally {
      state.update((s) => ({ ...s, busy: s.busy.filter((b) => b !== key) }));
    }
  }
  return {
    subscribe: state.subscribe,
    load,
    reset() {
      seq++;
      state.set({ loading: true, items: [], active: 0, busy: [], done: {} });
    },
    forget: () => state.update((s) => ({ ...s, done: {} })),
    /** Answers a permission prompt or question from the inbox: a worker's through the engine, the main session's through the host. */
    async answer(item, decision) {
      await act(item, decided[decision], async () => {
        if (item.sessionId) await api.sessions.respond(item.requestId ?? '', decision);
        else await api.runs.answer(item.runId, item.taskId ?? '', decision);
      });
    },
    /** Approves or rejects a task that waits for the user's review. */
    review: (item, approve, reason) => act(item, approve ? 'Approved' : 'Rejected', () => api.runs.review(item.runId, item.taskId ?? '', approve, reason)),
    /** Answers the questions a worker asked. */
    clarify: (item, text) => act(item, 'Answer sent', () => api.runs.answerClarification(item.runId, item.taskId ?? '', text)),
    resumeAfterLimit: (item) => act(item, 'Resumed', () => api.runs.resumeAfterLimit(item.runId)),
    listen() {
      return on<{ active: number; items: InboxItem[] | null }>('inbox:changed', (p) => {
        seq++; // an event is newer than a load under way
        state.update((s) => ({ ...s, loading: false, items: p?.items ?? [], active: p?.active ?? 0 }));
      });
    },
  };
}

export const inboxStore = createInboxStore();
