import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import type { InboxItem } from '../api';
import { createInboxStore, itemKey, keepPlaces } from './inbox';

const item = (over: Partial<InboxItem> = {}) =>
  ({ kind: 'permission', runId: 'r1', runName: 'Docs', taskId: 't1', requestId: 'p1', title: 't1 asks', detail: 'Bash: ls', since: '', ...over }) as InboxItem;

describe('itemKey', () => {
  it('tells items of other kinds, runs, tasks and requests apart', () => {
    const keys = [item(), item({ kind: 'question' }), item({ runId: 'r2' }), item({ taskId: 't2' }), item({ requestId: 'p2' }), item({ taskId: undefined, requestId: undefined })].map(itemKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(itemKey(item())).toBe('permission:r1:t1:p1');
  });
});

describe('createInboxStore', () => {
  it('loads what waits, and takes inbox:changed as newer than a load under way', async () => {
    let release!: (v: unknown) => void;
    answer('Inbox', () => new Promise((r) => (release = r)));
    const store = createInboxStore();
    const off = store.listen();
    const loading = store.load();
    emit('inbox:changed', { active: 3, items: [item({ title: 'from the event' })] });
    release([item({ title: 'from the load' })]);
    await loading;
    expect(get(store)).toMatchObject({ loading: false, active: 3, items: [{ title: 'from the event' }] });
    off();
    emit('inbox:changed', { active: 0, items: null });
    expect(get(store).active).toBe(3);
  });

  it('answers a worker through the engine and the main session through the host', async () => {
    answer('Inbox', () => Promise.resolve([]));
    answer('AnswerWorker', () => Promise.resolve());
    answer('RespondPermission', () => Promise.resolve());
    const store = createInboxStore();
    await store.answer(item(), 'once');
    await store.answer(item({ taskId: undefined, sessionId: 'main-1', requestId: 'p7' }), 'deny');
    expect(calls.filter((c) => c.name !== 'Inbox').map((c) => [c.name, c.args])).toEqual([
      ['AnswerWorker', ['r1', 't1', 'once']],
      ['RespondPermission', ['p7', 'deny']],
    ]);

    expect(get(store).done).toEqual({ [itemKey(item())]: 'Allowed once', [itemKey(item({ taskId: undefined, sessionId: 'main-1', requestId: 'p7' }))]: 'Denied' });

    answer('AnswerWorker', () => Promise.reject('the worker stopped waiting'));
    await store.answer(item({ taskId: 't9' }), 'always');
    expect(get(store).itemError).toMatchObject({ key: itemKey(item({ taskId: 't9' })) });
    expect(get(store).itemError?.error.message).toBe('the worker stopped waiting');
  });

  it('keeps a failed review next to its item and drops a done one from the list', async () => {
    const review = item({ kind: 'taskReview', requestId: undefined });
    const other = item({ kind: 'clarification', taskId: 't2', requestId: undefined });
    answer('Inbox', () => Promise.resolve([review, other]));
    const store = createInboxStore();
    await store.load();

    answer('ReviewTask', () => Promise.reject('the task moved on'));
    expect(await store.review(review, false, 'too vague')).toBe(false);
    expect(get(store).itemError).toMatchObject({ key: itemKey(review) });
    expect(get(store).busy).toEqual([]);

    answer('Inbox', () => Promise.resolve([review]));
    answer('AnswerClarification', () => Promise.resolve());
    expect(await store.clarify(other, 'Use tabs')).toBe(true);
    expect(calls.find((c) => c.name === 'AnswerClarification')?.args).toEqual(['r1', 't2', 'Use tabs']);
    expect(get(store).items).toEqual([review]);
    expect(get(store).itemError).toMatchObject({ key: itemKey(review) });
  });
});

describe('keepPlaces', () => {
  const a = item({ taskId: 'a' });
  const b = item({ taskId: 'b' });
  const c = item({ taskId: 'c' });
  it('keeps every shown item in its place: one answered here marked with what was done, one gone meanwhile marked so, new ones after', () => {
    let shown = keepPlaces([], [a, b, c], {});
    expect(shown.map((s) => s.item.taskId)).toEqual(['a', 'b', 'c']);
    // a is answered here, c goes away by itself, d comes.
    const d = item({ taskId: 'd' });
    shown = keepPlaces(shown, [b, d], { [itemKey(a)]: 'Allowed once' });
    expect(shown).toEqual([{ item: a, done: 'Allowed once' }, { item: b }, { item: c, done: 'No longer waiting' }, { item: d }]);
    // An item that comes back (a new prompt of the same kind) is live again in its place.
    expect(keepPlaces(shown, [b, c, d], { [itemKey(a)]: 'Allowed once' })[2]).toEqual({ item: c });
  });
});
