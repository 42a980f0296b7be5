import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { run, snapshot, task, worker } from '../../test/fixtures/runs';
import RunView from './RunView.svelte';

const goFile = {
  path: 'store/store.go',
  status: 'modified',
  added: 2,
  removed: 1,
  old: 'package store\n\nfunc Get() int { return 1 }\n',
  new: 'package store\n\n// Get returns the answer.\nfunc Get() int { return 42 }\n',
};
const newPage = { path: 'docs/store.md', status: 'added', added: 3, removed: 0, old: '', new: '# store\n\nThe store.\n' };
const image = { path: 'img.png', status: 'added', added: -1, removed: -1, binary: true, old: '', new: '' };

function worktreeSnapshot(over: Record<string, unknown> = {}, status = 'completed') {
  return snapshot({
    run: run({ status, tasksTotal: 3, tasksCompleted: 3 }),
    tasks: [task('t1'), task('t2', { dependencies: ['t1'] }), task('t3')],
    workers: [worker('t1', { status: 'completed', progress: 100 }), worker('t2', { status: 'completed', progress: 100 }), worker('t3', { status: 'completed' })],
    worktree: {
      repo: '/p',
      branch: 'baton/r1',
      base: 'abc',
      runDir: '/data/worktrees/r1/run',
      mergeCommand: 'git -C /p merge baton/r1',
      discardCommand: 'git -C /p branch -D baton/r1',
      cleaned: true,
      tasks: [
        { taskId: 't1', merged: true, commit: '1111111111111111', changes: [{ path: 'store/store.go', added: 2, removed: 1 }, { path: 'docs/store.md', added: 3, removed: 0 }] },
        { taskId: 't2', merged: true, commit: '2222222222222222', changes: [{ path: 'docs/store.md', added: 1, removed: 0 }] },
        { taskId: 't3', merged: true, commit: '3333333333333333', changes: [{ path: 'img.png', added: -1, removed: -1 }] },
      ],
      ...over,
    },
  });
}

async function changesOf(status = 'completed', over: Record<string, unknown> = {}) {
  answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot(over, status)));
  const view = render(RunView, { runId: 'r1' });
  return { view, changes: await screen.findByRole('region', { name: 'Changes' }) };
}

describe('Changes: a worktree run', () => {
  it("lists each task's files with +/- and shows its diff, unified or side by side, with Open in editor", async () => {
    answer('RunDiff', () => Promise.resolve([goFile, newPage, image]));
    answer('OpenInEditor', () => Promise.resolve());
    const { changes } = await changesOf();
    expect(within(changes).getByText('baton/r1')).toBeTruthy();
    const items = within(changes)
      .getAllByRole('listitem')
      .filter((li) => li.classList.contains('card'))
      .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(items[0]).toContain('+5 −1');
    expect(items[0]).toContain('store/store.go +2 −1');
    expect(items[2]).toContain('img.png binary');
    await fireEvent.click(within(changes).getAllByRole('button', { name: 'Show diff' })[0]);
    const diff = await within(changes).findByRole('region', { name: 'Changes of t1' });
    expect(calls.find((c) => c.name === 'RunDiff')?.args).toEqual(['r1', 't1']);
    expect(within(diff).getByText('3 files')).toBeTruthy();
    // Each file has its own section; the Go file opens in the merge view with its new text.
    const go = within(diff).getByRole('region', { name: 'Diff of store/store.go' });
    await waitFor(() => expect(go.querySelector('.cm-editor')).toBeTruthy());
    expect(go.querySelector('.cm-content')?.textContent).toContain('return 42');
    expect(go.querySelector('.cm-mergeView')).toBeNull();
    expect(within(diff).getByRole('region', { name: 'Diff of img.png' }).textContent).toContain('binary file');
    // Side by side: before and after next to each other.
    await fireEvent.click(within(diff).getByRole('radio', { name: 'Side by side' }));
    await waitFor(() => expect(go.querySelector('.cm-mergeView')).toBeTruthy());
    expect(go.querySelectorAll('.cm-editor').length).toBe(2);
    expect(within(go).getByLabelText('store/store.go before').textContent).toContain('return 1');
    // A file folds and unfolds.
    const fold = within(go).getByRole('button', { name: /store\/store\.go/ });
    await fireEvent.click(fold);
    expect(fold.getAttribute('aria-expanded')).toBe('false');
    expect(go.querySelector('.cm-editor')).toBeNull();
    await fireEvent.click(within(go).getByRole('button', { name: 'Open in editor' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'OpenInEditor')?.args).toEqual(['r1', 'store/store.go']));
    // A deleted file has nothing to open.
    expect(within(diff).getAllByRole('button', { name: 'Open in editor' }).length).toBe(3);
  });

  it('shows the whole branch at once', async () => {
    answer('RunDiff', () => Promise.resolve([goFile]));
    const { changes } = await changesOf();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Show all changes' }));
    await within(changes).findByRole('region', { name: 'All changes on baton/r1' });
    expect(calls.find((c) => c.name === 'RunDiff')?.args).toEqual(['r1', '']);
  });

  it('applies at the end of every outcome, and shows a refusal as it came', async () => {
    for (const status of ['completed_with_issues', 'failed', 'cancelled']) {
      const { view, changes } = await changesOf(status);
      expect(within(changes).getByRole('button', { name: 'Apply to my branch' })).toBeTruthy();
      expect(within(changes).getByRole('button', { name: 'Discard…' })).toBeTruthy();
      view.unmount();
    }
    answer('ApplyRun', () => Promise.reject('Apply refused: you have uncommitted changes in a.txt, which the run also changed; commit or stash them, then apply again (nothing was changed).'));
    const { changes } = await changesOf();
    expect(within(changes).getByText('git -C /p merge baton/r1')).toBeTruthy();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Apply to my branch' }));
    expect((await within(changes).findByRole('alert')).textContent).toContain('Apply refused: you have uncommitted changes in a.txt');
    answer('ApplyRun', () => Promise.resolve({ into: 'main', fastForward: true, commit: 'def' }));
    await fireEvent.click(within(changes).getByRole('button', { name: 'Apply to my branch' }));
    expect((await within(changes).findByRole('status')).textContent).toContain('main was fast-forwarded.');
  });

  it('applies only the picked tasks; a task whose dependency is left out is refused, naming it', async () => {
    answer('ApplyRunTasks', () => Promise.resolve({ into: 'main', fastForward: true, commit: 'def' }));
    const { changes } = await changesOf();
    const apply = () => within(changes).getByRole('button', { name: /Apply .*picked/ }) as HTMLButtonElement;
    expect(apply().disabled).toBe(true);
    await fireEvent.click(within(changes).getByRole('checkbox', { name: 'Pick t2 for Apply' }));
    expect(within(changes).getByRole('alert').textContent?.trim()).toBe('t2 depends on t1, whose changes you left out: pick t1 too, or leave t2 out.');
    expect(apply().disabled).toBe(true);
    await fireEvent.click(within(changes).getByRole('checkbox', { name: 'Pick t1 for Apply' }));
    expect(within(changes).queryByRole('alert')).toBeNull();
    expect(within(changes).getByText('git -C /p cherry-pick -m 1 111111111111 222222222222')).toBeTruthy();
    expect(apply().textContent).toBe('Apply 2 picked tasks');
    await fireEvent.click(apply());
    await waitFor(() => expect(calls.find((c) => c.name === 'ApplyRunTasks')?.args).toEqual(['r1', ['t2', 't1']]));
  });

  it('asks before Discard and says what it deletes', async () => {
    answer('DiscardRun', () => Promise.resolve());
    const { changes } = await changesOf('completed', { pushes: [{ remote: 'origin', commit: 'x', at: '2026-11-22T06:10:00Z' }] });
    await fireEvent.click(within(changes).getByRole('button', { name: 'Discard…' }));
    let dialog = screen.getByRole('alertdialog', { name: "Discard the run's changes?" });
    expect(dialog.textContent?.replace(/\s+/g, ' ')).toContain('deletes the branch baton/r1 with the changes of 3 tasks to 3 files');
    expect(dialog.textContent).toContain('The copy pushed to origin stays there.');
    expect(dialog.textContent).toContain('git -C /p branch -D baton/r1');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Keep them' }));
    expect(calls.some((c) => c.name === 'DiscardRun')).toBe(false);
    await fireEvent.click(within(changes).getByRole('button', { name: 'Discard…' }));
    dialog = screen.getByRole('alertdialog');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Discard' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'DiscardRun')?.args).toEqual(['r1']));
  });

  it('pushes to a remote the user picks and shows the gh command when gh cannot open the pull request', async () => {
    answer('RunRemotes', () =>
      Promise.resolve({ remotes: [{ name: 'origin', url: 'git@example.com:me/app.git' }, { name: 'backup', url: '/srv/app.git' }], default: 'origin', pushCommand: '' }),
    );
    answer('PushRun', () => Promise.resolve({ remote: 'backup', output: '' }));
    answer('OpenPullRequest', () =>
      Promise.resolve({
        opened: false,
        reason: 'the GitHub CLI (gh) is not installed',
        command: "cd /p && gh pr create --head baton/r1 --title 'Document it' --body-file /data/worktrees/r1/pull-request.md",
        title: 'Document it',
        body: '...',
        bodyFile: '/data/worktrees/r1/pull-request.md',
      }),
    );
    const { changes } = await changesOf();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Push and pull request…' }));
    const form = await within(changes).findByRole('group', { name: 'Push and pull request' });
    const select = (await within(form).findByRole('combobox', { name: /Remote/ })) as HTMLSelectElement;
    expect(select.value).toBe('origin');
    await fireEvent.change(select, { target: { value: 'backup' } });
    expect(within(form).getByText('git -C /p push backup baton/r1')).toBeTruthy();
    await fireEvent.click(within(form).getByRole('button', { name: 'Push branch' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'PushRun')?.args).toEqual(['r1', 'backup']));
    await fireEvent.click(within(form).getByRole('button', { name: 'Open pull request' }));
    const cmd = await within(form).findByRole('group', { name: 'Pull request command' });
    expect(cmd.textContent).toContain("gh pr create --head baton/r1 --title 'Document it'");
    expect(cmd.textContent).toContain('the GitHub CLI (gh) is not installed');
  });

  it('offers nothing to act on while the run goes, nor after Apply', async () => {
    const { view, changes } = await changesOf('running');
    expect(within(changes).queryByRole('button', { name: 'Discard…' })).toBeNull();
    expect(within(changes).queryByRole('checkbox')).toBeNull();
    view.unmount();
    const after = (await changesOf('completed', { outcome: 'applied', applied: { into: 'main', fastForward: true, commit: 'x' } })).changes;
    expect(within(after).getByText(/Applied to your branch main/)).toBeTruthy();
    expect(within(after).queryByRole('button', { name: 'Apply to my branch' })).toBeNull();
  });

  it('asks the user about a conflict the merge task could not resolve', async () => {
    answer('ResolveConflict', () => Promise.resolve());
    const { changes } = await changesOf('running', { conflict: { taskId: 't2', files: ['a.txt'], resolver: 'user', byUser: true } });
    expect(within(changes).getByText(/conflicts in a.txt/)).toBeTruthy();
    await fireEvent.click(within(changes).getByRole('button', { name: 'Resolved' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'ResolveConflict')?.args).toEqual(['r1', true]));
  });

  it("words Cancel for a worktree run: the work is on the branch, not in the folder", async () => {
    answer('RunSnapshot', () => Promise.resolve(worktreeSnapshot({}, 'running')));
    render(RunView, { runId: 'r1' });
    await fireEvent.click(await screen.findByRole('button', { name: 'Cancel run' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Cancel this run?' });
    expect(dialog.textContent?.replace(/\s+/g, ' ')).toContain('stays on the branch baton/r1');
    expect(dialog.textContent).toContain('Your folder is not touched.');
  });

  it('says which tasks ran on another machine, on their worker cards and in the changes', async () => {
    const { changes } = await changesOf('completed', {
      tasks: [
        { taskId: 't1', merged: true, machine: 'build-box', commit: '1111111111111111', changes: [{ path: 'docs/store.md', added: 3, removed: 0 }] },
        { taskId: 't2', merged: true, commit: '2222222222222222', changes: [{ path: 'docs/store.md', added: 1, removed: 0 }] },
      ],
    });
    expect(within(changes).getByText('ran on build-box')).toBeTruthy();
    expect(within(changes).getAllByText(/^ran on /)).toHaveLength(1);
    expect(within(screen.getByRole('article', { name: 'Task t1' })).getByText('on build-box')).toBeTruthy();
    expect(within(screen.getByRole('article', { name: 'Task t2' })).queryByText(/^on /)).toBeNull();
  });
});
