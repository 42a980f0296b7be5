import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { taskFrom } from '../../lib/types';
import { task } from '../../test/fixtures/runs';
import TaskReview from './TaskReview.svelte';

function setup() {
  const onconfirm = vi.fn();
  const tasks = [task('t1'), task('t2', { dependencies: ['t1'] }), task('t3')].map((t) => taskFrom(t));
  render(TaskReview, { tasks, onconfirm });
  return { onconfirm, confirm: () => screen.getByRole('button', { name: 'Confirm and start' }) as HTMLButtonElement };
}

describe('TaskReview', () => {
  it('draws the graph with parallel groups as columns', () => {
    setup();
    const graph = screen.getByRole('img', { name: 'Tasks by parallel group' });
    expect(graph.textContent).toContain('Starts at once');
    expect(graph.textContent).toContain('After group 1');
    expect(graph.querySelectorAll('g.node')).toHaveLength(3);
    expect(graph.querySelectorAll('path.edge')).toHaveLength(1);
  });

  it('sends the edits on Confirm', async () => {
    const { onconfirm, confirm } = setup();
    await fireEvent.input(screen.getByLabelText('Title of t1'), { target: { value: 'Write the overview' } });
    await fireEvent.input(screen.getByLabelText('Priority of t3'), { target: { value: '8' } });
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Run t2' }));
    expect(screen.getByText('3 changes')).toBeTruthy();
    await fireEvent.click(confirm());
    expect(onconfirm).toHaveBeenCalledTimes(1);
    const mods = onconfirm.mock.calls[0][0];
    expect(mods.skip).toEqual(['t2']);
    expect(mods.edit).toEqual([
      expect.objectContaining({ id: 't1', title: 'Write the overview' }),
      expect.objectContaining({ id: 't3', priority: 8 }),
    ]);
  });

  it('shows a cycle and keeps Confirm disabled until it is gone', async () => {
    const { onconfirm, confirm } = setup();
    const deps = screen.getByLabelText('Dependencies of t1');
    await fireEvent.change(deps, { target: { value: 't2' } });
    const problems = screen.getByRole('alert', { name: 'Problems' });
    expect(problems.textContent).toContain('The dependencies form a cycle: t1 → t2 → t1.');
    expect(confirm().disabled).toBe(true);
    expect(document.querySelector('tr[data-task="t1"]')?.classList.contains('flagged')).toBe(true);
    expect(document.querySelectorAll('path.edge.bad').length).toBeGreaterThan(0);
    await fireEvent.click(confirm());
    expect(onconfirm).not.toHaveBeenCalled();

    await fireEvent.change(deps, { target: { value: '' } });
    expect(screen.queryByRole('alert', { name: 'Problems' })).toBeNull();
    expect(confirm().disabled).toBe(false);
  });

  it('explains an unknown dependency', async () => {
    const { confirm } = setup();
    await fireEvent.change(screen.getByLabelText('Dependencies of t3'), { target: { value: 't1, nope' } });
    expect(screen.getByRole('alert', { name: 'Problems' }).textContent).toContain('t3 depends on nope, which is not in the list.');
    expect(confirm().disabled).toBe(true);
  });

  it('warns when two tasks claim the same file', async () => {
    setup();
    await fireEvent.change(screen.getByLabelText('Scope of t3'), { target: { value: 'docs/t1.md\ndocs/extra.md' } });
    const warning = screen.getByRole('status', { name: 'Overlapping scope' });
    expect(within(warning).getByText('docs/t1.md')).toBeTruthy();
    expect(warning.textContent).toContain('t1, t3');
  });

  it('adds a task that must be described before Confirm, and removes it again', async () => {
    const { onconfirm, confirm } = setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add a task' }));
    expect(confirm().disabled).toBe(true);
    expect(screen.getByRole('alert', { name: 'Problems' }).textContent).toContain('task-4 has no title.');
    await fireEvent.input(screen.getByLabelText('Title of task-4'), { target: { value: 'Changelog' } });
    await fireEvent.input(screen.getByLabelText('Description of task-4'), { target: { value: 'Write the changelog' } });
    await fireEvent.change(screen.getByLabelText('Dependencies of task-4'), { target: { value: 't2' } });
    expect(confirm().disabled).toBe(false);
    await fireEvent.click(confirm());
    expect(onconfirm.mock.calls[0][0].add).toEqual([expect.objectContaining({ id: 'task-4', title: 'Changelog', dependencies: ['t2'] })]);

    // t2 depends on nothing added; removing task-4 asks nothing and forgets it.
    await fireEvent.click(screen.getByRole('button', { name: 'Remove task-4' }));
    expect(document.querySelector('tr[data-task="task-4"]')).toBeNull();
    expect(screen.queryByLabelText('Removed tasks')).toBeNull();
    expect(screen.getByText('No changes')).toBeTruthy();
  });

  it('removes a task nothing depends on, apart from skipping, and restores it', async () => {
    const { onconfirm, confirm } = setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Remove t3' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.querySelector('tr[data-task="t3"]')).toBeNull();
    expect(screen.getByLabelText('Removed tasks').textContent).toContain('t3');
    expect(document.querySelectorAll('svg g.node')).toHaveLength(2);
    await fireEvent.click(screen.getByRole('button', { name: 'Skip t1' }));
    expect((screen.getByRole('checkbox', { name: 'Run t1' }) as HTMLInputElement).checked).toBe(false);
    expect(document.querySelector('tr[data-task="t1"]')).not.toBeNull();
    expect(screen.getByText('2 changes')).toBeTruthy();
    await fireEvent.click(confirm());
    const mods = onconfirm.mock.calls[0][0];
    expect(mods.remove).toEqual(['t3']);
    expect(mods.skip).toEqual(['t1']);

    await fireEvent.click(screen.getByRole('button', { name: 'Restore t3' }));
    expect([...document.querySelectorAll('tr[data-task]')].map((r) => r.getAttribute('data-task'))).toEqual(['t1', 't2', 't3']);
    expect(screen.queryByLabelText('Removed tasks')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Run t1' }));
    expect(screen.getByText('No changes')).toBeTruthy();
  });

  it('asks before removing a task others depend on, and removes the dependents too', async () => {
    const { onconfirm, confirm } = setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Remove t1' }));
    const ask = screen.getByRole('alertdialog', { name: 'Remove t1' });
    expect(ask.textContent?.replace(/\s+/g, ' ')).toContain('t2 depends on t1. Remove it too, or remove only t1 and let it start without waiting for it.');
    expect(document.querySelector('tr[data-task="t1"]')).not.toBeNull();
    await fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByText('No changes')).toBeTruthy();

    await fireEvent.click(screen.getByRole('button', { name: 'Remove t1' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Remove t1 and t2' }));
    expect([...document.querySelectorAll('tr[data-task]')].map((r) => r.getAttribute('data-task'))).toEqual(['t3']);
    await fireEvent.click(confirm());
    expect(onconfirm.mock.calls[0][0].remove).toEqual(['t1', 't2']);
    expect(onconfirm.mock.calls[0][0].edit).toEqual([]);
  });

  it('removes only the task and lets its dependents start without it', async () => {
    const { onconfirm, confirm } = setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Remove t1' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Remove only t1' }));
    expect((screen.getByLabelText('Dependencies of t2') as HTMLTextAreaElement).value).toBe('');
    expect(screen.queryByRole('alert', { name: 'Problems' })).toBeNull();
    await fireEvent.click(confirm());
    const mods = onconfirm.mock.calls[0][0];
    expect(mods.remove).toEqual(['t1']);
    expect(mods.edit).toEqual([expect.objectContaining({ id: 't2', dependencies: [] })]);
  });

  it('does not let a new task take the id of a removed one', async () => {
    const { confirm } = setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Remove t3' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Add a task' }));
    await fireEvent.change(screen.getByLabelText('Id'), { target: { value: 't3' } });
    await fireEvent.input(screen.getByLabelText('Title of t3'), { target: { value: 'Again' } });
    await fireEvent.input(screen.getByLabelText('Description of t3'), { target: { value: 'Once more' } });
    expect(screen.getByRole('alert', { name: 'Problems' }).textContent).toContain('The id t3 belonged to a removed task; choose another.');
    expect(confirm().disabled).toBe(true);
  });
});
