// The New run wizard's data: the chosen template resolved, recent folders,
// and starting the run.
import { writable, type Readable } from 'svelte/store';
import { api, type CreateRunRequest, type ResolvedTemplate, type Run } from '../api';

export type NewRunState = {
  recent: string[];
  resolved?: ResolvedTemplate;
  resolving: boolean;
  resolveError?: Error;
  starting: boolean;
  startError?: Error;
};

export type NewRunStore = Readable<NewRunState> & {
  loadRecent: () => Promise<void>;
  selectTemplate: (id: string) => Promise<void>;
  chooseFolder: () => Promise<string>;
  start: (req: CreateRunRequest) => Promise<Run | undefined>;
};

/** The New run wizard's data: the chosen template resolved, recent folders, and starting. */
export function createNewRunStore(): NewRunStore {
  const state = writable<NewRunState>({ recent: [], resolving: false, starting: false });
  const patch = (p: Partial<NewRunState>) => state.update((s) => ({ ...s, ...p }));
  let seq = 0;
  return {
    subscribe: state.subscribe,
    async loadRecent() {
      try {
        const view = await api.settings.get();
        patch({ recent: view.settings?.recentFolders ?? [] });
      } catch {
        patch({ recent: [] }); // recent folders are a convenience; the dialog still works
      }
    },
    async selectTemplate(id) {
      const mine = ++seq;
      patch({ resolving: true, resolveError: undefined, resolved: undefined });
      try {
        const resolved = await api.templates.resolve(id);
        if (mine === seq) patch({ resolved, resolving: false });
      } catch (error) {
        if (mine === seq) patch({ resolveError: error as Error, resolving: false });
      }
    },
    async chooseFolder() {
      try {
        return await api.chooseFolder('Choose the project folder');
      } catch (error) {
        patch({ startError: error as Error });
        return '';
      }
    },
    async start(req) {
      patch({ starting: true, startError: undefined });
      try {
        return await api.runs.start(req);
      } catch (error) {
        patch({ startError: error as Error });
        return undefined;
      } finally {
        patch({ starting: false });
      }
    },
  };
}
