import { writable, type Readable } from 'svelte/store';
import { api, type HostStatus } from '../api';
import { on } from '../events';

/** The session host connection as Go reports it; updated by host:status events. */
export function createHostStore(): Readable<HostStatus | undefined> & { start: () => () => void } {
  const { subscribe, set } = writable<HostStatus | undefined>(undefined);
  return {
    subscribe,
    /** Loads the status and follows its events; returns the unsubscribe. */
    start() {
      let live = true;
      const off = on<HostStatus>('host:status', (s) => set(s));
      api.host.status().then(
        (s) => live && set(s),
        () => {},
      );
      return () => {
        live = false;
        off();
      };
    },
  };
}

export const hostStatus = createHostStore();
