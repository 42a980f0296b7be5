import { describe, expect, it } from 'vitest';
import { taskFrom } from '../../lib/types';
import { task } from '../../test/fixtures/runs';
import {
  checkDraft,
  dependentsOf,
  draftFrom,
  findCycle,
  modificationsFor,
  nextTaskId,
  parallelGroups,
  removeTask,
  restoreTask,
  scopeOverlaps,
} from './review';

const tasks = () => [task('t1'), task('t2', { dependencies: ['t1'] }), task('t3')].map((t) => taskFrom(t));

describe('task review model', () => {
  it('finds no problem in a sound list and groups it by depth', () => {
    const d = draftFrom(tasks());
    expect(checkDraft(d)).toEqual([]);
    expect(parallelGroups(d)).toEqual([['t1', 't3'], ['t2']]);
  });

  it.each([
    ['a cycle', (d: ReturnType<typeof draftFrom>) => (d[0].dependencies = ['t2']), 'cycle', 'The dependencies form a cycle: t1 → t2 → t1.'],
    ['an unknown dependency', (d: ReturnType<typeof draftFrom>) => (d[2].dependencies = ['t9']), 'unknown', 't3 depends on t9, which is not in the list.'],
    ['a self dependency', (d: ReturnType<typeof draftFrom>) => (d[2].dependencies = ['t3']), 'self', 't3 depends on itself.'],
    ['an empty title', (d: ReturnType<typeof draftFrom>) => (d[1].title = ' '), 'field', 't2 has no title.'],
    ['a priority out of range', (d: ReturnType<typeof draftFrom>) => (d[1].priority = 11), 'field', 't2 has priority 11, outside 1 to 10.'],
  ])('reports %s', (_, change, kind, message) => {
    const d = draftFrom(tasks());
    change(d);
    expect(checkDraft(d)).toContainEqual(expect.objectContaining({ kind, message }));
  });

  it('names the tasks of a cycle', () => {
    const d = draftFrom(tasks());
    d[0].dependencies = ['t2'];
    expect(findCycle(d)).toEqual(['t1', 't2', 't1']);
  });

  it('warns when two tasks to run claim the same file, not when one is skipped', () => {
    const d = draftFrom(tasks());
    d[2].scope = ['./docs/t1.md'];
    expect(scopeOverlaps(d)).toEqual([{ file: 'docs/t1.md', tasks: ['t1', 't3'] }]);
    d[2].skipped = true;
    expect(scopeOverlaps(d)).toEqual([]);
  });

  it('does not warn about a shared file when one task waits for the other', () => {
    const d = draftFrom(tasks());
    d[1].scope = ['docs/t1.md']; // t2 depends on t1: they never run at the same time
    expect(scopeOverlaps(d)).toEqual([]);
    d[2].scope = ['docs/t1.md']; // t3 may run alongside both
    expect(scopeOverlaps(d)).toEqual([{ file: 'docs/t1.md', tasks: ['t1', 't2', 't3'] }]);
  });

  it('turns the draft into modifications', () => {
    const original = tasks();
    const d = draftFrom(original);
    d[0].title = 'New title';
    d[1].dependencies = [];
    d[2].skipped = true;
    d.push({ id: 'extra', title: 'Extra', description: 'More', scope: [], priority: 3, dependencies: ['t1'], complexity: '', skipped: false, added: true });
    const mods = modificationsFor(original, d);
    expect(mods.skip).toEqual(['t3']);
    expect(mods.unskip).toEqual([]);
    expect(mods.edit).toEqual([
      expect.objectContaining({ id: 't1', title: 'New title' }),
      expect.objectContaining({ id: 't2', dependencies: [] }),
    ]);
    expect(mods.edit?.[0].description).toBeUndefined();
    expect(mods.add).toEqual([expect.objectContaining({ id: 'extra', title: 'Extra', priority: 3, dependencies: ['t1'] })]);
  });

  it('finds the tasks that depend on a task, directly and through others', () => {
    const d = draftFrom([...tasks(), taskFrom(task('t4', { dependencies: ['t2'] }))]);
    expect(dependentsOf(d, 't1')).toEqual({ direct: ['t2'], all: ['t2', 't4'] });
    expect(dependentsOf(d, 't3')).toEqual({ direct: [], all: [] });
  });

  it('removes a task with its dependents, or alone with its dependents waiting for what it waited for', () => {
    const original = [...tasks(), taskFrom(task('t4', { dependencies: ['t2', 't3'] }))];
    const d = draftFrom(original);
    expect(removeTask(d, 't2', true).map((t) => t.id)).toEqual(['t1', 't3']);
    const alone = removeTask(d, 't2', false);
    expect(alone.map((t) => t.id)).toEqual(['t1', 't3', 't4']);
    expect(alone[2].dependencies).toEqual(['t1', 't3']);
    expect(d.map((t) => t.id)).toEqual(['t1', 't2', 't3', 't4']); // the draft itself is kept
    expect(checkDraft(alone)).toEqual([]);

    const mods = modificationsFor(original, alone);
    expect(mods.remove).toEqual(['t2']);
    expect(mods.skip).toEqual([]);
    expect(mods.edit).toEqual([expect.objectContaining({ id: 't4', dependencies: ['t1', 't3'] })]);
    expect(restoreTask(original, alone, 't2').map((t) => t.id)).toEqual(['t1', 't2', 't3', 't4']);
  });

  it('skips a task the user adds and skips at once, and keeps removed ids for removed tasks', () => {
    const original = tasks();
    const d = removeTask(draftFrom(original), 't3', false);
    const id = nextTaskId(d, original.map((t) => t.id));
    expect(id).not.toBe('t3');
    d.push({ id, title: 'New', description: 'New', scope: [], priority: 5, dependencies: [], complexity: '', skipped: true, added: true });
    const mods = modificationsFor(original, d);
    expect(mods.add).toEqual([expect.objectContaining({ id })]);
    expect(mods.skip).toEqual([id]);
    expect(mods.remove).toEqual(['t3']);
    d[d.length - 1].id = 't3';
    expect(checkDraft(d, 0, original.map((t) => t.id))).toContainEqual(
      expect.objectContaining({ taskId: 't3', message: 'The id t3 belonged to a removed task; choose another.' }),
    );
  });

  it('sends nothing when nothing changed', () => {
    const original = tasks();
    const mods = modificationsFor(original, draftFrom(original));
    expect([mods.skip, mods.unskip, mods.edit, mods.add, mods.remove].every((l) => (l ?? []).length === 0)).toBe(true);
  });
});
