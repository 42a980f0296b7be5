import { writable, type Readable } from 'svelte/store';
import { api, type AppInfo } from '../api';

export type AppState =
  | { status: 'loading' }
  | { status: 'ready'; info: AppInfo }
  | { status: 'error'; error: Error };

/** What the window knows about this build, loaded once through the Ready binding. */
export function createAppStore(): Readable<AppState> & { load: () => Promise<void> } {
  const { subscribe, set } = writable<AppState>({ status: 'loading' });
  return {
    subscribe,
    async load() {
      try {
        set({ status: 'ready', info: await api.ready() });
      } catch (error) {
        set({ status: 'error', error: error as Error });
      }
    },
  };
}

export const app = createAppStore();
