import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../test/fakes/App';
import { run } from '../test/fixtures/runs';
import History from './History.svelte';

const all = [
  run({ id: 'r1', request: 'Document the backend packages', status: 'completed', completedAt: '2026-11-22T06:10:00Z' }),
  run({ id: 'r2', request: 'Review the store for races', templateId: 'code-review', templateName: 'Code review', status: 'error' }),
];

type Query = { text?: string; templateId?: string; status?: string[]; limit: number; offset: number; from?: string };

function setup(total = all.length) {
  answer('ListTemplates', () => Promise.resolve([{ id: 'code-review', name: 'Code review', description: '', icon: '', version: '', author: '', tags: [], isSystem: true }]));
  answer('History', (q) => {
    const query = q as Query;
    const words = (query.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const runs = all.filter(
      (r) =>
        words.every((w) => r.request.toLowerCase().includes(w)) &&
        (!query.templateId || r.templateId === query.templateId) &&
        (!query.status || query.status.includes(r.status as string)),
    );
    return Promise.resolve({ runs, total: Math.max(total, runs.length), limit: query.limit, offset: query.offset, nextOffset: total > runs.length + query.offset ? query.offset + query.limit : -1 });
  });
  render(History);
}

const queries = () => calls.filter((c) => c.name === 'History').map((c) => c.args[0] as Query);

describe('History', () => {
  it('lists past runs and searches them by request text', async () => {
    setup();
    const table = await screen.findByRole('table', { name: 'Past runs' });
    expect(within(table).getByText('Document the backend packages')).toBeTruthy();
    expect(within(table).getByText('Review the store for races')).toBeTruthy();

    await fireEvent.input(screen.getByRole('searchbox', { name: 'Search the requests' }), { target: { value: 'store races' } });
    await waitFor(() => expect(queries().at(-1)?.text).toBe('store races'), { timeout: 3000 });
    await waitFor(() => expect(within(table).queryByText('Document the backend packages')).toBeNull());
    expect(within(table).getByText('Review the store for races')).toBeTruthy();
    expect(queries().at(-1)?.offset).toBe(0);

    await fireEvent.input(screen.getByRole('searchbox', { name: 'Search the requests' }), { target: { value: 'nothing like this' } });
    expect(await screen.findByText('No run matches these filters.', {}, { timeout: 3000 })).toBeTruthy();
  });

  it('filters by template, status and date', async () => {
    setup();
    await screen.findByRole('table', { name: 'Past runs' });
    await fireEvent.change(screen.getByRole('combobox', { name: 'Template' }), { target: { value: 'code-review' } });
    await waitFor(() => expect(queries().at(-1)?.templateId).toBe('code-review'));
    await fireEvent.change(screen.getByRole('combobox', { name: 'Status' }), { target: { value: 'error' } });
    await waitFor(() => expect(queries().at(-1)?.status).toEqual(['error']));
    // The outcomes are filters of their own.
    const status = screen.getByRole('combobox', { name: 'Status' });
    expect(within(status).getByRole('option', { name: 'Completed with issues' })).toBeTruthy();
    await fireEvent.change(status, { target: { value: 'completed_with_issues' } });
    await waitFor(() => expect(queries().at(-1)?.status).toEqual(['completed_with_issues']));
    await fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    await waitFor(() => expect(queries().at(-1)?.from).toBe(new Date('2026-11-01T00:00:00').toISOString()));
  });

  it('opens a run after Ctrl/Cmd+K focused the search', async () => {
    answer('ListTemplates', () => Promise.resolve([]));
    answer('History', () => Promise.resolve({ runs: all, total: 2, limit: 25, offset: 0, nextOffset: -1 }));
    answer('RunSnapshot', () => Promise.resolve({ run: all[0], tasks: [], workers: [], answers: [], parallelGroups: [] }));
    render(History, { focusSearch: 1 });
    const table = await screen.findByRole('table', { name: 'Past runs' });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('searchbox', { name: 'Search the requests' })));
    await fireEvent.click(within(table).getByText('Document the backend packages'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Document the backend packages' })).toBeTruthy();
  });

  it('pages through the history', async () => {
    setup(60);
    await screen.findByRole('table', { name: 'Past runs' });
    await fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(queries().at(-1)?.offset).toBe(25));
  });

  it('deletes a run after confirmation and opens one read-only', async () => {
    setup();
    answer('DeleteRun', () => Promise.resolve());
    const table = await screen.findByRole('table', { name: 'Past runs' });
    const row = within(table).getByText('Document the backend packages').closest('tr') as HTMLElement;
    await fireEvent.click(within(row).getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('alertdialog');
    expect(calls.some((c) => c.name === 'DeleteRun')).toBe(false);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'DeleteRun')?.args).toEqual(['r1']));

    answer('RunSnapshot', () => Promise.resolve({ run: all[1], tasks: [], workers: [], answers: [], parallelGroups: [] }));
    await fireEvent.click(within(table).getByText('Review the store for races'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Review the store for races' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: '← History' }));
    expect(await screen.findByRole('table', { name: 'Past runs' })).toBeTruthy();
  });

  it('opens a finished worktree run with Apply and Discard for its branch, and asks before Discard', async () => {
    setup();
    const failed = { ...all[1], status: 'failed' };
    answer('RunSnapshot', () =>
      Promise.resolve({
        run: failed,
        tasks: [],
        workers: [],
        answers: [],
        parallelGroups: [],
        worktree: {
          repo: '/p',
          branch: 'baton/r2',
          base: 'abc',
          runDir: '/data/worktrees/r2/run',
          mergeCommand: 'git -C /p merge baton/r2',
          discardCommand: 'git -C /p branch -D baton/r2',
          cleaned: true,
          tasks: [{ taskId: 't1', merged: true, commit: '1111111', changes: [{ path: 'a.go', added: 1, removed: 0 }] }],
        },
      }),
    );
    answer('DiscardRun', () => Promise.resolve());
    const table = await screen.findByRole('table', { name: 'Past runs' });
    await fireEvent.click(within(table).getByText('Review the store for races'));
    const changes = await screen.findByRole('region', { name: 'Changes' });
    expect(within(changes).getByRole('button', { name: 'Apply to my branch' })).toBeTruthy();
    expect(within(changes).getByText('git -C /p merge baton/r2')).toBeTruthy();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Discard…' }));
    const dialog = screen.getByRole('alertdialog');
    expect(dialog.textContent?.replace(/\s+/g, ' ')).toContain('deletes the branch baton/r2 with the changes of 1 task to 1 file');
    expect(calls.some((c) => c.name === 'DiscardRun')).toBe(false);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Discard' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'DiscardRun')?.args).toEqual(['r2']));
  });
});
