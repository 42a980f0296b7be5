import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { run, snapshot, task, worker } from '../../test/fixtures/runs';
import RunView from './RunView.svelte';

const patch = `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
-1
+line by t1
 2
`;

function worktreeSnapshot(over: Record<string, unknown> = {}, status = 'completed') {
  return snapshot({
    run: run({ status, tasksTotal: 2, tasksCompleted: 2 }),
    tasks: [task('t1'), task('t2')],
    workers: [worker('t1', { status: 'completed', progress: 100 }), worker('t2', { status: 'completed', progress: 100 })],
    worktree: {
      repo: '/p',
      branch: 'baton/r1',
      base: 'abc',
      runDir: '/data/worktrees/r1/run',
      mergeCommand: 'git -C /p merge baton/r1',
      cleaned: true,
      tasks: [
        { taskId: 't1', merged: true, changes: [{ path: 'a.txt', added: 1, removed: 1 }, { path: 'new.txt', added: 3, removed: 0 }] },
        { taskId: 't2', merged: true, changes: [{ path: 'img.png', added: -1, removed: -1 }] },
      ],
      ...over,
    },
  });
}

describe('Changes: a worktree run', () => {
  it("lists each task's files with +/- and shows its diff", async () => {
    answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot()));
    answer('TaskPatch', () => Promise.resolve(patch));
    render(RunView, { runId: 'r1' });
    const changes = await screen.findByRole('region', { name: 'Changes' });
    expect(within(changes).getByText('baton/r1')).toBeTruthy();
    const items = within(changes)
      .getAllByRole('listitem')
      .filter((li) => li.classList.contains('card'))
      .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(items[0]).toContain('t1');
    expect(items[0]).toContain('+4 −1');
    expect(items[0]).toContain('a.txt +1 −1');
    expect(items[0]).toContain('new.txt +3 −0');
    expect(items[1]).toContain('img.png binary');
    await fireEvent.click(within(changes).getAllByRole('button', { name: 'Show diff' })[0]);
    const diff = await within(changes).findByLabelText('Diff of t1');
    expect(diff.querySelector('.add')?.textContent).toBe('+line by t1');
    expect(diff.querySelector('.del')?.textContent).toBe('-1');
    expect(calls.find((c) => c.name === 'TaskPatch')?.args).toEqual(['r1', 't1']);
  });

  it('applies at the end, and shows a refusal as it came', async () => {
    answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot()));
    answer('ApplyRun', () => Promise.reject('Apply refused: you have uncommitted changes in a.txt, which the run also changed; commit or stash them, then apply again (nothing was changed).'));
    render(RunView, { runId: 'r1' });
    const changes = await screen.findByRole('region', { name: 'Changes' });
    expect(within(changes).getByText('git -C /p merge baton/r1')).toBeTruthy();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Apply to my branch' }));
    expect((await within(changes).findByRole('alert')).textContent).toContain('Apply refused: you have uncommitted changes in a.txt');
    answer('ApplyRun', () => Promise.resolve({ into: 'main', fastForward: true, commit: 'def' }));
    await fireEvent.click(within(changes).getByRole('button', { name: 'Apply to my branch' }));
    expect((await within(changes).findByRole('status')).textContent).toContain('main was fast-forwarded.');
    await waitFor(() => expect(calls.filter((c) => c.name === 'ApplyRun').length).toBe(2));
  });

  it('offers Discard only once the run has ended, and not after Apply', async () => {
    answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot({}, 'running')));
    const view = render(RunView, { runId: 'r1' });
    const changes = await screen.findByRole('region', { name: 'Changes' });
    expect(within(changes).queryByRole('button', { name: 'Discard' })).toBeNull();
    view.unmount();
    answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot({ outcome: 'applied', applied: { into: 'main', fastForward: true, commit: 'x' } })));
    render(RunView, { runId: 'r1' });
    const after = await screen.findByRole('region', { name: 'Changes' });
    expect(within(after).getByText(/Applied to your branch main/)).toBeTruthy();
    expect(within(after).queryByRole('button', { name: 'Apply to my branch' })).toBeNull();
  });

  it('offers Apply for every finished outcome, as the engine allows it', async () => {
    for (const status of ['completed_with_issues', 'failed']) {
      answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot({}, status)));
      const view = render(RunView, { runId: 'r1' });
      const changes = await screen.findByRole('region', { name: 'Changes' });
      expect(within(changes).getByRole('button', { name: 'Apply to my branch' })).toBeTruthy();
      view.unmount();
    }
  });

  it('asks the user about a conflict the merge task could not resolve', async () => {
    answer('RunSnapshot', () =>
      Promise.resolve(worktreeSnapshot({ conflict: { taskId: 't2', files: ['a.txt'], resolver: 'user', byUser: true } }, 'running')),
    );
    answer('ResolveConflict', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const changes = await screen.findByRole('region', { name: 'Changes' });
    expect(within(changes).getByText(/conflicts in a.txt/)).toBeTruthy();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Resolved' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'ResolveConflict')?.args).toEqual(['r1', true]));
  });
});
