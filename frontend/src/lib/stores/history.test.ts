import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { createHistoryStore, historyPageSize, historyQuery, type HistoryFilter } from './history';

const none: HistoryFilter = { text: '', templateId: '', status: '', from: '', to: '' };
const page = (offset: number) => ({ runs: [], total: 60, limit: historyPageSize, offset, nextOffset: offset + historyPageSize });

describe('historyQuery', () => {
  it('sends only what the filter sets', () => {
    expect(historyQuery(none, 0)).toEqual({ limit: historyPageSize, offset: 0 });
    expect(historyQuery({ ...none, text: '  races ', templateId: 'code-review', status: 'error' }, 25, 10)).toEqual({
      limit: 10,
      offset: 25,
      text: 'races',
      templateId: 'code-review',
      status: ['error'],
    });
  });

  it('sends the cost sort', () => {
    expect(historyQuery({ ...none, sort: 'cost' }, 0)).toEqual({ limit: historyPageSize, offset: 0, sort: 'cost' });
    expect(historyQuery({ ...none, sort: 'cost_asc' }, 0)).toEqual({ limit: historyPageSize, offset: 0, sort: 'cost_asc' });
  });

  it('makes the dates whole local days, the last one inclusive', () => {
    const q = historyQuery({ ...none, from: '2026-11-01', to: '2026-11-02' }, 0) as unknown as { from: string; to: string };
    expect(new Date(q.from).getTime()).toBe(new Date(2026, 10, 1).getTime());
    expect(new Date(q.to).getTime()).toBe(new Date(2026, 10, 3).getTime());
  });
});

describe('createHistoryStore', () => {
  it('loads the first page again when the filter changes, and pages on', async () => {
    answer('History', (q) => Promise.resolve(page((q as { offset: number }).offset)));
    const store = createHistoryStore();
    await store.goTo(50);
    await store.setFilter({ status: 'completed' });
    await store.goTo(-10);
    const offsets = calls.map((c) => (c.args[0] as { offset: number; status?: string[] }).offset);
    expect(offsets).toEqual([50, 0, 0]);
    expect(calls[1].args[0]).toMatchObject({ status: ['completed'] });
    expect(get(store)).toMatchObject({ loading: false, offset: 0, filter: { status: 'completed' }, page: { offset: 0 } });
  });

  it('deletes a run and reloads, or keeps why it could not', async () => {
    answer('History', () => Promise.resolve(page(0)));
    answer('DeleteRun', () => Promise.reject('the run is still active'));
    const store = createHistoryStore();
    expect(await store.remove('r1')).toBe(false);
    expect(get(store).deleteError?.message).toBe('the run is still active');
    answer('DeleteRun', () => Promise.resolve());
    expect(await store.remove('r1')).toBe(true);
    expect(get(store).deleteError).toBeUndefined();
    expect(calls.map((c) => c.name)).toEqual(['DeleteRun', 'DeleteRun', 'History']);
  });

  it('keeps a failed load as its error and clears all on reset', async () => {
    answer('History', () => Promise.reject('the database is locked'));
    const store = createHistoryStore();
    await store.setFilter({ text: 'docs' });
    expect(get(store).error?.message).toBe('the database is locked');
    store.reset();
    expect(get(store)).toEqual({ loading: false, offset: 0, filter: none });
  });
});
