import { describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { createHostStore } from './host';

const status = (state: string) => ({ host: 'simulator', label: 'Simulator', state });

describe('createHostStore', () => {
  it('loads the status, follows host:status, and stops with the unsubscribe', async () => {
    answer('HostStatus', () => Promise.resolve(status('connecting')));
    const host = createHostStore();
    const stop = host.start();
    await waitFor(() => expect(get(host)?.state).toBe('connecting'));
    emit('host:status', status('connected'));
    expect(get(host)?.state).toBe('connected');
    stop();
    emit('host:status', status('disconnected'));
    expect(get(host)?.state).toBe('connected');
  });

  it('ignores a load that answers after the stop', async () => {
    let release!: (v: unknown) => void;
    answer('HostStatus', () => new Promise((r) => (release = r)));
    const host = createHostStore();
    host.start()();
    release(status('connected'));
    await Promise.resolve();
    await Promise.resolve();
    expect(get(host)).toBeUndefined();
  });
});
