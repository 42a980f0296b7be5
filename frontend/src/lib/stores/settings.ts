import { get, writable, type Readable } from 'svelte/store';
import { api, type DoctorReport, type HostKind, type Settings, type SettingsView } from '../api';

export type SettingsState = {
  status: 'loading' | 'ready' | 'error';
  view?: SettingsView;
  /** Why loading failed. */
  error?: Error;
  /** The kinds of session host the settings can choose, once loaded. */
  kinds?: HostKind[];
  kindsError?: Error;
  saving: boolean;
  saveError?: Error;
  testing: boolean;
  report?: DoctorReport;
  testError?: Error;
};

/** Pins light or dark on <html>, or lets the system choose. */
export function applyTheme(theme: string | undefined): void {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') {
    root.dataset.theme = theme;
  } else {
    delete root.dataset.theme;
  }
}

export function createSettingsStore(): Readable<SettingsState> & {
  load: () => Promise<void>;
  loadKinds: () => Promise<void>;
  save: (s: Settings) => Promise<boolean>;
  reset: () => Promise<void>;
  test: (s: Settings) => Promise<void>;
} {
  const state = writable<SettingsState>({ status: 'loading', saving: false, testing: false });
  const patch = (p: Partial<SettingsState>) => state.update((s) => ({ ...s, ...p }));
  const loaded = (view: SettingsView) => {
    patch({ status: 'ready', view, error: undefined });
    applyTheme(view.settings.theme);
  };
  return {
    subscribe: state.subscribe,
    async load() {
      try {
        loaded(await api.settings.get());
      } catch (error) {
        patch({ status: 'error', error: error as Error });
      }
    },
    async loadKinds() {
      try {
        patch({ kinds: await api.host.kinds(), kindsError: undefined });
      } catch (error) {
        patch({ kindsError: error as Error });
      }
    },
    /** Saves s; false (with saveError set) when Go refused it. */
    async save(s: Settings) {
      patch({ saving: true, saveError: undefined });
      try {
        loaded(await api.settings.save(s));
        return true;
      } catch (error) {
        patch({ saveError: error as Error });
        return false;
      } finally {
        patch({ saving: false });
      }
    },
    async reset() {
      patch({ saving: true, saveError: undefined });
      try {
        loaded(await api.settings.reset());
      } catch (error) {
        patch({ saveError: error as Error });
      } finally {
        patch({ saving: false });
      }
    },
    async test(s: Settings) {
      if (get(state).testing) return;
      patch({ testing: true, report: undefined, testError: undefined });
      try {
        patch({ report: await api.settings.test(s) });
      } catch (error) {
        patch({ testError: error as Error });
      } finally {
        patch({ testing: false });
      }
    },
  };
}

export const settingsStore = createSettingsStore();
