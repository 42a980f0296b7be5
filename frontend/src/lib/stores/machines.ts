import { writable, type Readable } from 'svelte/store';
import { api, type DoctorReport, type Machine, type MachinesView } from '../api';
import { newMachine } from '../types';

export type MachinesState = {
  view?: MachinesView;
  busy: boolean;
  error?: Error;
  /** The machine whose doctor runs now. */
  testing?: string;
  /** The last doctor's report, by machine name. */
  reports: Record<string, DoctorReport>;
  testError?: Error;
};

/** Settings → Machines: the other machines worktree runs place workers on, and their doctors' reports. */
export function createMachinesStore(): Readable<MachinesState> & {
  load: () => Promise<void>;
  save: (m: Partial<Machine>, replace: boolean) => Promise<boolean>;
  remove: (name: string) => Promise<void>;
  test: (name: string) => Promise<void>;
  reset: () => void;
} {
  const state = writable<MachinesState>({ busy: false, reports: {} });
  const patch = (p: Partial<MachinesState>) => state.update((s) => ({ ...s, ...p }));
  async function act(fn: () => Promise<MachinesView>): Promise<boolean> {
    patch({ busy: true, error: undefined });
    try {
      patch({ view: await fn() });
      return true;
    } catch (error) {
      patch({ error: error as Error });
      return false;
    } finally {
      patch({ busy: false });
    }
  }
  return {
    subscribe: state.subscribe,
    reset: () => state.set({ busy: false, reports: {} }),
    load: async () => {
      await act(() => api.machines.list());
    },
    save: (m, replace) => act(() => api.machines.save(newMachine({ claudePath: '', env: [], ...m }), replace)),
    remove: async (name) => {
      const ok = await act(() => api.machines.remove(name));
      if (ok) {
        state.update((s) => {
          const reports = { ...s.reports };
          delete reports[name];
          return { ...s, reports };
        });
      }
    },
    test: async (name) => {
      patch({ testing: name, testError: undefined });
      try {
        const report = await api.machines.test(name);
        state.update((s) => ({ ...s, reports: { ...s.reports, [name]: report } }));
      } catch (error) {
        patch({ testError: error as Error });
      } finally {
        patch({ testing: undefined });
      }
    },
  };
}

export const machinesStore = createMachinesStore();
