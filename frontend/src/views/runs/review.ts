// The task review's model: the user's draft of a proposed task list, the
// same checks the engine makes before Confirm (backend/engine/graph.go
// CheckTasks), the parallel groups for the graph, removing a task with or
// without its dependents, and the Modifications that turn the proposed list
// into the draft.
import { newModifications, type Modifications, type NewTask, type Task, type TaskEdit } from '../../lib/types';

export type DraftTask = {
  id: string;
  title: string;
  description: string;
  scope: string[];
  priority: number;
  dependencies: string[];
  complexity: string;
  skipped: boolean;
  /** Added by the user in this review (removing it drops it). */
  added: boolean;
};

export type Problem = { taskId?: string; kind: 'cycle' | 'unknown' | 'self' | 'field' | 'list'; message: string };

export type Overlap = { file: string; tasks: string[] };

export const defaultPriority = 5;

export function draftFrom(tasks: Task[]): DraftTask[] {
  return [...tasks]
    .sort((a, b) => a.position - b.position)
    .map((t) => ({
      id: t.id,
      title: t.title,
      description: t.description,
      scope: [...(t.scope ?? [])],
      priority: t.priority,
      dependencies: [...(t.dependencies ?? [])],
      complexity: t.complexity ?? '',
      skipped: t.skipped,
      added: false,
    }));
}

const idPattern = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** Finds one dependency cycle (first task repeated at the end), or []. */
export function findCycle(tasks: DraftTask[]): string[] {
  const deps = new Map(tasks.map((t) => [t.id, t.dependencies]));
  const color = new Map<string, number>();
  const stack: string[] = [];
  let found: string[] = [];
  const visit = (id: string): boolean => {
    color.set(id, 1);
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      if (d === id || !deps.has(d)) continue;
      const c = color.get(d) ?? 0;
      if (c === 1) {
        found = [...stack.slice(stack.indexOf(d)), d];
        return true;
      }
      if (c === 0 && visit(d)) return true;
    }
    stack.pop();
    color.set(id, 2);
    return false;
  };
  for (const t of tasks) {
    if ((color.get(t.id) ?? 0) === 0 && visit(t.id)) return found;
  }
  return [];
}

/**
 * What keeps the draft from being confirmed, in the engine's terms. proposed
 * holds the ids of the proposed tasks: a task the user adds may not take one,
 * even when that task was removed.
 */
export function checkDraft(tasks: DraftTask[], maxTasks = 0, proposed: string[] = []): Problem[] {
  const problems: Problem[] = [];
  const ids = new Set<string>();
  const kept = new Set(tasks.filter((t) => !t.added).map((t) => t.id));
  for (const [i, t] of tasks.entries()) {
    const name = t.id || `task #${i + 1}`;
    if (!t.id) {
      problems.push({ kind: 'field', message: `${name} has no id.` });
    } else if (ids.has(t.id)) {
      problems.push({ taskId: t.id, kind: 'field', message: `The id ${t.id} is used by more than one task.` });
    } else if (!idPattern.test(t.id)) {
      problems.push({ taskId: t.id, kind: 'field', message: `The id "${t.id}" may only hold letters, digits, '-' and single '_'.` });
    } else if (t.added && !kept.has(t.id) && proposed.includes(t.id)) {
      problems.push({ taskId: t.id, kind: 'field', message: `The id ${t.id} belonged to a removed task; choose another.` });
    }
    ids.add(t.id);
    if (!t.title.trim()) problems.push({ taskId: t.id, kind: 'field', message: `${name} has no title.` });
    if (!t.description.trim()) problems.push({ taskId: t.id, kind: 'field', message: `${name} has no description.` });
    if (!Number.isInteger(t.priority) || t.priority < 1 || t.priority > 10) {
      problems.push({ taskId: t.id, kind: 'field', message: `${name} has priority ${t.priority}, outside 1 to 10.` });
    }
  }
  if (!tasks.some((t) => !t.skipped)) problems.push({ kind: 'list', message: 'There is no task to run.' });
  if (maxTasks > 0 && tasks.length > maxTasks) {
    problems.push({ kind: 'list', message: `There are ${tasks.length} tasks, more than the template's limit of ${maxTasks}.` });
  }
  for (const t of tasks) {
    for (const d of t.dependencies) {
      if (d === t.id) problems.push({ taskId: t.id, kind: 'self', message: `${t.id} depends on itself.` });
      else if (!ids.has(d)) problems.push({ taskId: t.id, kind: 'unknown', message: `${t.id} depends on ${d}, which is not in the list.` });
    }
  }
  const cycle = findCycle(tasks);
  if (cycle.length > 0) {
    problems.push({ kind: 'cycle', taskId: cycle[0], message: `The dependencies form a cycle: ${cycle.join(' → ')}.` });
  }
  return problems;
}

/** Every task id depends on, directly or through others. */
function ancestors(tasks: DraftTask[]): Map<string, Set<string>> {
  const deps = new Map(tasks.map((t) => [t.id, t.dependencies]));
  const memo = new Map<string, Set<string>>();
  const walk = (id: string, seen: Set<string>): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const out = new Set<string>();
    if (seen.has(id)) return out; // a cycle, reported elsewhere
    seen.add(id);
    for (const d of deps.get(id) ?? []) {
      out.add(d);
      for (const a of walk(d, seen)) out.add(a);
    }
    memo.set(id, out);
    return out;
  };
  for (const t of tasks) walk(t.id, new Set());
  return memo;
}

/**
 * Files (scope entries) that more than one task to run claims, where those
 * tasks may run at the same time (neither waits for the other).
 */
export function scopeOverlaps(tasks: DraftTask[]): Overlap[] {
  const before = ancestors(tasks);
  const ordered = (a: string, b: string) => !!before.get(a)?.has(b) || !!before.get(b)?.has(a);
  const claims = new Map<string, string[]>();
  for (const t of tasks) {
    if (t.skipped) continue;
    for (const raw of t.scope) {
      const file = raw.trim().replace(/^\.\//, '');
      if (!file) continue;
      const list = claims.get(file) ?? [];
      if (!list.includes(t.id)) list.push(t.id);
      claims.set(file, list);
    }
  }
  const out: Overlap[] = [];
  for (const [file, ts] of claims) {
    const clash = ts.filter((a) => ts.some((b) => b !== a && !ordered(a, b)));
    if (clash.length > 1) out.push({ file, tasks: clash });
  }
  return out;
}

/** Groups the tasks to run by depth (as the engine's ParallelGroups); tasks in a cycle land where the walk stops. */
export function parallelGroups(tasks: DraftTask[]): string[][] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const depth = new Map<string, number>();
  const level = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    let d = 0;
    for (const dep of byId.get(id)?.dependencies ?? []) {
      const t = byId.get(dep);
      if (t && !t.skipped && dep !== id) d = Math.max(d, level(dep, seen) + 1);
    }
    depth.set(id, d);
    return d;
  };
  const groups: string[][] = [];
  for (const t of tasks) {
    if (t.skipped) continue;
    const d = level(t.id, new Set());
    while (groups.length <= d) groups.push([]);
    groups[d].push(t.id);
  }
  return groups.map((g) => g.sort());
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The tasks that depend on id: directly, and all of them including those that depend on those, in draft order. */
export function dependentsOf(tasks: DraftTask[], id: string): { direct: string[]; all: string[] } {
  const before = ancestors(tasks);
  return {
    direct: tasks.filter((t) => t.id !== id && t.dependencies.includes(id)).map((t) => t.id),
    all: tasks.filter((t) => t.id !== id && before.get(t.id)?.has(id)).map((t) => t.id),
  };
}

/**
 * The draft without task id. With withDependents, every task that depends on
 * it goes too; without, the tasks that waited for it wait for what it waited
 * for instead.
 */
export function removeTask(tasks: DraftTask[], id: string, withDependents: boolean): DraftTask[] {
  const gone = new Set([id, ...(withDependents ? dependentsOf(tasks, id).all : [])]);
  const inherited = tasks.find((t) => t.id === id)?.dependencies ?? [];
  return tasks
    .filter((t) => !gone.has(t.id))
    .map((t) => {
      if (!t.dependencies.includes(id)) return t;
      const deps = t.dependencies.flatMap((d) => (d === id ? inherited : [d])).filter((d) => d !== t.id);
      return { ...t, dependencies: [...new Set(deps)] };
    });
}

/** The proposed tasks the draft no longer holds. */
export function removedFrom(original: Task[], draft: DraftTask[]): Task[] {
  const kept = new Set(draft.filter((t) => !t.added).map((t) => t.id));
  return original.filter((o) => !kept.has(o.id));
}

/** The draft with a removed proposed task back in its proposed place, as proposed. */
export function restoreTask(original: Task[], draft: DraftTask[], id: string): DraftTask[] {
  const o = original.find((t) => t.id === id);
  if (!o) return draft;
  const position = new Map(original.map((t) => [t.id, t.position]));
  const at = draft.findIndex((t) => t.added || (position.get(t.id) ?? 0) > o.position);
  const out = [...draft];
  out.splice(at < 0 ? out.length : at, 0, draftFrom([o])[0]);
  return out;
}

/** The changes that turn the proposed tasks into the draft. */
export function modificationsFor(original: Task[], draft: DraftTask[]): Modifications {
  const byId = new Map(original.map((t) => [t.id, t]));
  const skip: string[] = [];
  const unskip: string[] = [];
  const edit: TaskEdit[] = [];
  const add: NewTask[] = [];
  const remove = removedFrom(original, draft).map((o) => o.id);
  for (const t of draft) {
    const o = t.added ? undefined : byId.get(t.id);
    if (!o) {
      add.push({
        id: t.id,
        title: t.title,
        description: t.description,
        scope: t.scope,
        priority: t.priority,
        dependencies: t.dependencies,
        complexity: t.complexity || undefined,
      });
      // The engine adds before it skips, so a new task can start skipped.
      if (t.skipped) skip.push(t.id);
      continue;
    }
    if (t.skipped && !o.skipped) skip.push(t.id);
    if (!t.skipped && o.skipped) unskip.push(t.id);
    const e: TaskEdit = { id: t.id };
    if (t.title !== o.title) e.title = t.title;
    if (t.description !== o.description) e.description = t.description;
    if (!sameList(t.scope, o.scope ?? [])) e.scope = t.scope;
    if (t.priority !== o.priority) e.priority = t.priority;
    if (!sameList(t.dependencies, o.dependencies ?? [])) e.dependencies = t.dependencies;
    if (t.complexity !== (o.complexity ?? '')) e.complexity = t.complexity;
    if (Object.keys(e).length > 1) edit.push(e);
  }
  return newModifications({ skip, unskip, edit, add, remove });
}

/** A free id like task-7 for a task the user adds; reserved ids (those of removed tasks) are not free. */
export function nextTaskId(tasks: DraftTask[], reserved: string[] = []): string {
  const taken = new Set([...tasks.map((t) => t.id), ...reserved]);
  for (let n = tasks.length + 1; ; n++) {
    const id = `task-${n}`;
    if (!taken.has(id)) return id;
  }
}

/** Splits a text field (commas or new lines) into trimmed, non-empty entries. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
