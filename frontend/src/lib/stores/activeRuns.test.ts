import { describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { run } from '../../test/fixtures/runs';
import { createActiveRuns } from './activeRuns';

const count = (name: string) => calls.filter((c) => c.name === name).length;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createActiveRuns', () => {
  it('loads the active runs and keeps a failed load as its error', async () => {
    answer('ActiveRuns', () => Promise.resolve([run({ id: 'r1' }), run({ id: 'r2' })]));
    const store = createActiveRuns();
    expect(get(store).loading).toBe(true);
    await store.load();
    expect(get(store).runs.map((r) => r.id)).toEqual(['r1', 'r2']);

    answer('ActiveRuns', () => Promise.reject('the engine is not running'));
    await store.load();
    expect(get(store)).toMatchObject({ loading: false });
    expect(get(store).error?.message).toBe('the engine is not running');
    expect(get(store).runs).toHaveLength(2);
  });

  it('applies progress in place and reloads once for a burst of other events', async () => {
    answer('ActiveRuns', () => Promise.resolve([run({ id: 'r1' }), run({ id: 'r2', tasksCompleted: 0 })]));
    const store = createActiveRuns(10);
    await store.load();
    const off = store.listen();

    emit('orchestrator:progress', { runId: 'r2', status: 'running', run: { tasksCompleted: 2 } });
    expect(get(store).runs.map((r) => r.tasksCompleted)).toEqual([1, 2]);
    await pause(30);
    expect(count('ActiveRuns')).toBe(1);

    emit('orchestrator:completed', { runId: 'r1', status: 'completed' });
    emit('worker:completed', { runId: 'r1', status: 'completed' });
    await waitFor(() => expect(count('ActiveRuns')).toBe(2));
    await pause(30);
    expect(count('ActiveRuns')).toBe(2);

    off();
    emit('orchestrator:created', { runId: 'r3', status: 'created' });
    await pause(30);
    expect(count('ActiveRuns')).toBe(2);
  });

  it('pauses and resumes a run, then reloads', async () => {
    answer('ActiveRuns', () => Promise.resolve([run()]));
    answer('PauseRun', () => Promise.resolve());
    answer('ResumeRun', () => Promise.reject('the run is not paused'));
    const store = createActiveRuns();
    await store.pause('r1');
    expect(calls.map((c) => c.name)).toEqual(['PauseRun', 'ActiveRuns']);
    await store.resume('r1');
    expect(get(store).error?.message).toBe('the run is not paused');
  });

  it('forgets everything on reset, also a load still under way', async () => {
    let release!: () => void;
    answer('ActiveRuns', () => new Promise((r) => (release = () => r([run()]))));
    const store = createActiveRuns();
    const loading = store.load();
    store.reset();
    release();
    await loading;
    expect(get(store)).toEqual({ loading: true, runs: [] });
  });

  it('reloads when another process changed the runs (runs:changed) and cancels a run', async () => {
    answer('ActiveRuns', () => Promise.resolve([run()]));
    answer('CancelRun', () => Promise.resolve());
    const store = createActiveRuns(10);
    await store.load();
    const off = store.listen();
    emit('runs:changed');
    await waitFor(() => expect(count('ActiveRuns')).toBe(2));
    await store.cancel('r1');
    expect(calls.map((c) => c.name).slice(-2)).toEqual(['CancelRun', 'ActiveRuns']);
    off();
  });
});
