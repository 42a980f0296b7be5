// The Changes view of a worktree run: each task's patch, read when the user
// opens it, and the actions on the run branch (Apply, Discard, the answer to
// a merge conflict). After an action the run is read again (onchanged).
import { get, writable, type Readable } from 'svelte/store';
import { api, type Applied } from '../api';

export type ChangesState = {
  /** The tasks whose diff is open. */
  open: Record<string, boolean>;
  /** The patches read so far, by task. */
  patches: Record<string, string>;
  /** Why a task's patch could not be read. */
  patchErrors: Record<string, string>;
  /** The action under way: "apply", "discard", "resolve" or "drop"; "" when none. */
  busy: string;
  /** Why the last action failed, as Go wrote it. */
  error: string;
  /** What the last action did, for the user. */
  note: string;
};

export type ChangesStore = Readable<ChangesState> & {
  /** Opens or closes a task's diff, reading its patch the first time. */
  toggle: (taskId: string) => Promise<void>;
  /** Merges the run branch into the user's branch. */
  apply: () => Promise<void>;
  /** Drops the run branch. */
  discard: () => Promise<void>;
  /** Answers the merge conflict: resolved in the run's worktree, or the task's changes left out. */
  resolveConflict: (resolved: boolean) => Promise<void>;
};

/** The sentence for what Apply did. */
export function appliedNote(a: Applied): string {
  return a.nothing ? `${a.into} already held these changes.` : a.fastForward ? `${a.into} was fast-forwarded.` : `Merged into ${a.into}.`;
}

/** The changes of run runId; onchanged is called after every action that worked. */
export function createChangesStore(runId: string, onchanged: () => void = () => {}): ChangesStore {
  const state = writable<ChangesState>({ open: {}, patches: {}, patchErrors: {}, busy: '', error: '', note: '' });
  const patch = (p: Partial<ChangesState>) => state.update((s) => ({ ...s, ...p }));

  async function act(key: string, fn: () => Promise<string>) {
    if (get(state).busy !== '') return;
    patch({ busy: key, error: '', note: '' });
    try {
      const note = await fn();
      patch({ note });
      onchanged();
    } catch (e) {
      patch({ error: (e as Error).message });
    } finally {
      patch({ busy: '' });
    }
  }

  return {
    subscribe: state.subscribe,
    async toggle(taskId) {
      const s = get(state);
      const open = !s.open[taskId];
      patch({ open: { ...s.open, [taskId]: open } });
      if (!open || s.patches[taskId] !== undefined) return;
      try {
        const text = await api.runs.taskPatch(runId, taskId);
        state.update((x) => {
          const patchErrors = { ...x.patchErrors };
          delete patchErrors[taskId];
          return { ...x, patches: { ...x.patches, [taskId]: text }, patchErrors };
        });
      } catch (e) {
        state.update((x) => ({ ...x, patchErrors: { ...x.patchErrors, [taskId]: (e as Error).message } }));
      }
    },
    apply: () => act('apply', async () => appliedNote(await api.runs.apply(runId))),
    discard: () =>
      act('discard', async () => {
        await api.runs.discard(runId);
        return '';
      }),
    resolveConflict: (resolved) =>
      act(resolved ? 'resolve' : 'drop', async () => {
        await api.runs.resolveConflict(runId, resolved);
        return '';
      }),
  };
}
