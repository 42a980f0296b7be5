// The Changes view of a worktree run: the diffs, read when the user opens
// them (a task's, or the whole branch's), the tasks picked for Apply, and the
// actions on the run branch: Apply (all or the picked tasks), Discard, push
// to a remote and pull request, the answer to a merge conflict, a changed
// file opened in the user's editor. After an action that changed the branch
// the run is read again (onchanged).
import { get, writable, type Readable } from 'svelte/store';
import { api, type Applied, type FileDiff, type PullRequestResult, type Remotes } from '../api';

/** The key of the whole branch's diff among the diffs. */
export const wholeBranch = '*';

export type ChangesState = {
  /** The diff shown: "" none, wholeBranch, or a task id. */
  shown: string;
  /** The diffs read so far, by task id (wholeBranch for the whole branch). */
  diffs: Record<string, FileDiff[]>;
  /** Why a diff could not be read, by the same keys. */
  diffErrors: Record<string, string>;
  /** The tasks picked for Apply, in the order they were picked. */
  picked: string[];
  /** Where the branch can be pushed (read when the push form opens). */
  remotes?: Remotes;
  /** The remote chosen for push and pull request. */
  remote: string;
  /** What the last Open pull request did. */
  pullRequest?: PullRequestResult;
  /** The action under way ("apply", "discard", "push", "pr", "resolve", "drop", "remotes", "editor"); "" when none. */
  busy: string;
  /** Why the last action failed, as Go wrote it. */
  error: string;
  /** What the last action did, for the user. */
  note: string;
};

export type ChangesStore = Readable<ChangesState> & {
  /** Shows a diff (a task's, or wholeBranch), reading it the first time; showing the shown one hides it. */
  showDiff: (key: string) => Promise<void>;
  /** Picks a task for Apply, or leaves it out. */
  pick: (taskId: string, on: boolean) => void;
  /** Merges the whole run branch into the user's branch. */
  apply: () => Promise<void>;
  /** Applies only the picked tasks' changes. */
  applyPicked: () => Promise<void>;
  /** Drops the run branch. */
  discard: () => Promise<void>;
  /** Reads the repository's remotes and chooses the default one. */
  loadRemotes: () => Promise<void>;
  /** Chooses the remote for push and pull request. */
  setRemote: (name: string) => void;
  /** Pushes the branch to the chosen remote. */
  push: () => Promise<void>;
  /** Pushes the branch and opens a pull request (or gets the command that opens it). */
  pullRequest: () => Promise<void>;
  /** Opens a changed file in the user's editor. */
  openInEditor: (path: string) => Promise<void>;
  /** Answers the merge conflict: resolved in the run's worktree, or the task's changes left out. */
  resolveConflict: (resolved: boolean) => Promise<void>;
};

/** The sentence for what Apply did. */
export function appliedNote(a: Applied): string {
  return a.nothing ? `${a.into} already held these changes.` : a.fastForward ? `${a.into} was fast-forwarded.` : `Merged into ${a.into}.`;
}

/** The changes of run runId; onchanged is called after every action that changed the branch. */
export function createChangesStore(runId: string, onchanged: () => void = () => {}): ChangesStore {
  const state = writable<ChangesState>({ shown: '', diffs: {}, diffErrors: {}, picked: [], remote: '', busy: '', error: '', note: '' });
  const patch = (p: Partial<ChangesState>) => state.update((s) => ({ ...s, ...p }));

  // act runs one action at a time; changed says whether the branch changed.
  async function act(key: string, fn: () => Promise<string>, changed = true) {
    if (get(state).busy !== '') return;
    patch({ busy: key, error: '', note: '' });
    try {
      const note = await fn();
      patch({ note });
      if (changed) onchanged();
    } catch (e) {
      patch({ error: (e as Error).message });
    } finally {
      patch({ busy: '' });
    }
  }

  return {
    subscribe: state.subscribe,
    async showDiff(key) {
      const s = get(state);
      const shown = s.shown === key ? '' : key;
      patch({ shown });
      if (shown === '' || s.diffs[key] !== undefined) return;
      try {
        const files = await api.runs.diff(runId, key === wholeBranch ? '' : key);
        state.update((x) => {
          const diffErrors = { ...x.diffErrors };
          delete diffErrors[key];
          return { ...x, diffs: { ...x.diffs, [key]: files ?? [] }, diffErrors };
        });
      } catch (e) {
        state.update((x) => ({ ...x, diffErrors: { ...x.diffErrors, [key]: (e as Error).message } }));
      }
    },
    pick(taskId, on) {
      state.update((s) => ({ ...s, picked: on ? [...s.picked.filter((t) => t !== taskId), taskId] : s.picked.filter((t) => t !== taskId) }));
    },
    apply: () => act('apply', async () => appliedNote(await api.runs.apply(runId))),
    applyPicked: () =>
      act('apply', async () => {
        const picked = get(state).picked;
        const a = await api.runs.applyTasks(runId, picked);
        patch({ picked: [] });
        return `${picked.join(', ')}: ${appliedNote(a)}`;
      }),
    discard: () =>
      act('discard', async () => {
        await api.runs.discard(runId);
        return '';
      }),
    loadRemotes: () =>
      act(
        'remotes',
        async () => {
          const remotes = await api.runs.remotes(runId);
          patch({ remotes, remote: get(state).remote || remotes.default });
          return '';
        },
        false,
      ),
    setRemote(name) {
      patch({ remote: name });
    },
    push: () =>
      act('push', async () => {
        const remote = get(state).remote;
        await api.runs.push(runId, remote);
        return `Pushed to ${remote}.`;
      }),
    pullRequest: () =>
      act('pr', async () => {
        const res = await api.runs.pullRequest(runId, get(state).remote);
        patch({ pullRequest: res });
        return res.opened ? `Pull request opened: ${res.url}` : '';
      }),
    openInEditor: (path) =>
      act(
        'editor',
        async () => {
          await api.runs.openInEditor(runId, path);
          return '';
        },
        false,
      ),
    resolveConflict: (resolved) =>
      act(resolved ? 'resolve' : 'drop', async () => {
        await api.runs.resolveConflict(runId, resolved);
        return '';
      }),
  };
}
