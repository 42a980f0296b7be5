import { describe, expect, it } from 'vitest';
import { snapshot, task } from '../../test/fixtures/runs';
import { dependenciesOf, discardSummary, leftOut, pickCommand, pushCommand } from './branch';

const tasks = [task('t1'), task('t2', { dependencies: ['t1'] }), task('t3', { dependencies: ['t2'] }), task('t4')].map((t) => snapshot({ tasks: [t] }).tasks![0]);
const wt = snapshot({
  worktree: {
    repo: '/home/me/my app',
    branch: 'baton/r1',
    base: 'a',
    runDir: '',
    mergeCommand: '',
    discardCommand: '',
    cleaned: true,
    tasks: [
      { taskId: 't1', merged: true, commit: 'aaaaaaaaaaaaaaaa', changes: [{ path: 'a.go', added: 1, removed: 0 }] },
      // t2 changed nothing: leaving it out leaves nothing out.
      { taskId: 't2', merged: true, changes: [] },
      { taskId: 't3', merged: true, commit: 'cccccccccccccccc', changes: [{ path: 'a.go', added: 2, removed: 1 }, { path: 'b.go', added: 1, removed: 0 }] },
      { taskId: 't4', merged: true, commit: 'dddddddddddddddd', applied: true, changes: [{ path: 'c.go', added: 1, removed: 0 }] },
    ],
  },
}).worktree!;

describe('the run branch before an action', () => {
  it('follows dependencies through tasks that changed nothing', () => {
    expect(dependenciesOf(tasks, 't3')).toEqual(['t2', 't1']);
    expect(leftOut(wt, tasks, ['t3'])).toBe('t3 depends on t1, whose changes you left out: pick t1 too, or leave t3 out.');
    expect(leftOut(wt, tasks, ['t3', 't1'])).toBe('');
    expect(leftOut(wt, tasks, ['t4'])).toBe('');
  });

  it('says the git commands by hand and what Discard deletes', () => {
    expect(pickCommand(wt, ['t3', 't1'])).toBe("git -C '/home/me/my app' cherry-pick -m 1 aaaaaaaaaaaa cccccccccccc");
    expect(pushCommand(wt, 'origin')).toBe("git -C '/home/me/my app' push origin baton/r1");
    // t4 is applied already; t2 changed nothing.
    expect(discardSummary(wt)).toEqual({ tasks: 2, files: 2 });
  });
});
