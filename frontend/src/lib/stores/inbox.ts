import { get, writable, type Readable } from 'svelte/store';
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

/**
 * Identical permission prompts of one run, shown and answered together
 * under the first of them (key is its itemKey); done as in ShownItem.
 */
export type InboxGroup = { key: string; item: InboxItem; items: InboxItem[]; done?: string };

/**
 * Groups the shown items: identical permission prompts of one run (same
 * tool and input) that were handled alike, or all wait, become one group
 * under the first of them; every other item is a group of its own. The
 * order is the items' order, so groups keep their places too.
 */
export function groupItems(shown: ShownItem[]): InboxGroup[] {
  const out: InboxGroup[] = [];
  const byKey = new Map<string, InboxGroup>();
  for (const { item, done } of shown) {
    const k = item.kind === 'permission' && item.key ? `${item.runId}\u0000${item.key}\u0000${done ?? ''}` : '';
    const g = k ? byKey.get(k) : undefined;
    if (g) {
      g.items.push(item);
      continue;
    }
    const group = { key: itemKey(item), item, items: [item], done };
    if (k) byKey.set(k, group);
    out.push(group);
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
  answer: (item: InboxItem, decision: PermissionDecision) => Promise<boolean>;
  /** Answers every prompt of a group the same way. */
  answerAll: (items: InboxItem[], decision: PermissionDecision) => Promise<boolean>;
  /** Allows rule for the run of item: the engine answers every pending prompt it covers. */
  allowForRun: (item: InboxItem, rule: string) => Promise<boolean>;
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
  /**
   * Runs the action of one item, or of a group of items handled as one; its
   * error is shown next to the first, and what was done in their places.
   */
  async function act(items: InboxItem[], label: string, fn: () => Promise<void>): Promise<boolean> {
    const keys = items.map(itemKey);
    const key = keys[0];
    state.update((s) => ({ ...s, busy: [...s.busy, ...keys], itemError: s.itemError && keys.includes(s.itemError.key) ? undefined : s.itemError }));
    try {
      await fn();
      state.update((s) => ({
        ...s,
        items: s.items.filter((i) => !keys.includes(itemKey(i))),
        done: { ...s.done, ...Object.fromEntries(keys.map((k) => [k, label])) },
      }));
      // The list is read again in the background: the caller (the keyboard
      // moving on) does not wait for it.
      void load();
      return true;
    } catch (error) {
      state.update((s) => ({ ...s, itemError: { key, error: error as Error } }));
      return false;
    } finally {
      state.update((s) => ({ ...s, busy: s.busy.filter((b) => !keys.includes(b)) }));
    }
  }
  /** Answers a permission prompt or question: a worker's and a main session's through the engine, which logs it. */
  async function respond(item: InboxItem, decision: PermissionDecision) {
    if (item.sessionId) await api.runs.answerMain(item.runId, item.requestId ?? '', decision);
    else await api.runs.answer(item.runId, item.taskId ?? '', decision);
  }
  return {
    subscribe: state.subscribe,
    load,
    reset() {
      seq++;
      state.set({ loading: true, items: [], active: 0, busy: [], done: {} });
    },
    forget: () => state.update((s) => ({ ...s, done: {} })),
    /** Answers a permission prompt or question from the inbox. */
    answer: (item, decision) => act([item], decided[decision], () => respond(item, decision)),
    answerAll: (items, decision) =>
      act(items, decided[decision], async () => {
        for (const item of items) await respond(item, decision);
      }),
    allowForRun(item, rule) {
      const mine = (i: InboxItem) => i.runId === item.runId && i.kind === 'permission' && i.key === item.key;
      const items = get(state).items.filter(mine);
      return act(items.length ? items : [item], 'Allowed for this run', () => api.runs.allowForRun(item.runId, rule));
    },
    /** Approves or rejects a task that waits for the user's review. */
    review: (item, approve, reason) => act([item], approve ? 'Approved' : 'Rejected', () => api.runs.review(item.runId, item.taskId ?? '', approve, reason)),
    /** Answers the questions a worker asked. */
    clarify: (item, text) => act([item], 'Answer sent', () => api.runs.answerClarification(item.runId, item.taskId ?? '', text)),
    resumeAfterLimit: (item) => act([item], 'Resumed', () => api.runs.resumeAfterLimit(item.runId)),
    listen() {
      return on<{ active: number; items: InboxItem[] | null }>('inbox:changed', (p) => {
        seq++; // an event is newer than a load under way
        state.update((s) => ({ ...s, loading: false, items: p?.items ?? [], active: p?.active ?? 0 }));
      });
    },
  };
}

export const inboxStore = createInboxStore();
