// What the Changes view says about a run branch before it acts: which
// picked task leaves out a dependency, the git commands that do the same by
// hand, and what Discard deletes. Go checks the same again.
import type { RunWorktree, Task } from '../../lib/api';

/** Whether task id has changes on the branch that are not applied yet. */
export function hasChanges(wt: RunWorktree, id: string): boolean {
  const t = (wt.tasks ?? []).find((x) => x.taskId === id);
  return !!t && t.merged && !!t.commit && !t.applied;
}

/** What task id depends on, directly or through others, nearest first. */
export function dependenciesOf(tasks: Task[], id: string): string[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const out: string[] = [];
  const seen = new Set([id]);
  const queue = [...(byId.get(id)?.dependencies ?? [])];
  while (queue.length > 0) {
    const d = queue.shift()!;
    if (seen.has(d)) continue;
    seen.add(d);
    out.push(d);
    queue.push(...(byId.get(d)?.dependencies ?? []));
  }
  return out;
}

/** The sentence that refuses the picked tasks, naming a task and the dependency left out ("" when none is). */
export function leftOut(wt: RunWorktree, tasks: Task[], picked: string[]): string {
  for (const id of picked) {
    for (const dep of dependenciesOf(tasks, id)) {
      if (hasChanges(wt, dep) && !picked.includes(dep)) {
        return `${id} depends on ${dep}, whose changes you left out: pick ${dep} too, or leave ${id} out.`;
      }
    }
  }
  return '';
}

const quote = (s: string) => (/^[A-Za-z0-9/._-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** The git command that applies the picked tasks' changes by hand, in the run's order of tasks. */
export function pickCommand(wt: RunWorktree, picked: string[]): string {
  const commits = (wt.tasks ?? []).filter((t) => picked.includes(t.taskId) && t.commit).map((t) => t.commit!.slice(0, 12));
  return `git -C ${quote(wt.repo)} cherry-pick -m 1 ${commits.join(' ')}`;
}

/** The git command that pushes the branch to remote by hand. */
export function pushCommand(wt: RunWorktree, remote: string): string {
  return `git -C ${quote(wt.repo)} push ${quote(remote)} ${wt.branch}`;
}

/** What Discard deletes: the branch with the changes of how many tasks to how many files. */
export function discardSummary(wt: RunWorktree): { tasks: number; files: number } {
  const files = new Set<string>();
  let tasks = 0;
  for (const t of wt.tasks ?? []) {
    if ((t.changes ?? []).length === 0 || t.applied) continue;
    tasks++;
    for (const c of t.changes ?? []) files.add(c.path);
  }
  return { tasks, files: files.size };
}
