import { describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { navigation } from './navigation';
import { openTranscript, sessionsStore } from './sessions';

describe('openTranscript', () => {
  it('selects the session with hidden workers shown and opens the Sessions view', async () => {
    answer('ListSessions', () => Promise.resolve([]));
    answer('PendingPermissions', () => Promise.resolve([]));
    answer('ReadSessionTranscript', () => Promise.resolve({ items: [] }));
    openTranscript('local___orch_r1_t1');
    expect(get(navigation)).toBe('sessions');
    expect(get(sessionsStore)).toMatchObject({ includeHidden: true, selected: 'local___orch_r1_t1' });
    await waitFor(() => expect(calls.find((c) => c.name === 'ListSessions')?.args).toEqual([true]));
    await waitFor(() => expect(calls.some((c) => c.name === 'ReadSessionTranscript' && c.args[0] === 'local___orch_r1_t1')).toBe(true));
  });
});

describe('sessionsStore.chooseFolder', () => {
  it('asks for the folder a new session works in', async () => {
    answer('ChooseFolder', () => Promise.resolve('/src/app'));
    expect(await sessionsStore.chooseFolder()).toBe('/src/app');
    expect(calls.map((c) => [c.name, c.args])).toEqual([['ChooseFolder', ['Choose the folder the session works in']]]);
  });
});
