import { describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { run, snapshot, worker } from '../../test/fixtures/runs';
import type { Worker } from '../api';
import { createRunStore, mergeWorkers } from './run';

const w = (taskId: string, over: Record<string, unknown> = {}) => worker(taskId, over) as unknown as Worker;
const count = (name: string) => calls.filter((c) => c.name === name).length;

/** A promise the test resolves by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('mergeWorkers', () => {
  it('updates the workers the updates name, keeps the others in place and appends new ones', () => {
    const list = [w('t1', { progress: 10 }), w('t2', { progress: 20 })];
    const out = mergeWorkers(list, [w('t2', { progress: 90 }), w('t3')]);
    expect(out.map((x) => [x.taskId, x.progress])).toEqual([
      ['t1', 10],
      ['t2', 90],
      ['t3', 40],
    ]);
    expect(out[0]).toBe(list[0]);
  });

  it('returns the same list when nothing changed', () => {
    const list = [w('t1')];
    expect(mergeWorkers(list, [])).toBe(list);
  });
});

describe('createRunStore', () => {
  it('loads the snapshot, and reports a failed load', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot()));
    const store = createRunStore('r1');
    expect(get(store).loading).toBe(true);
    await store.load();
    expect(get(store)).toMatchObject({ loading: false, snapshot: { run: { id: 'r1' } } });
    expect(calls.find((c) => c.name === 'RunSnapshot')?.args).toEqual(['r1']);

    answer('RunSnapshot', () => Promise.reject('the run is gone'));
    await store.load();
    expect(get(store).error?.message).toBe('the run is gone');
  });

  it('drops the answer of a load that a newer load overtook', async () => {
    const first = deferred<unknown>();
    const second = deferred<unknown>();
    const answers = [first.promise, second.promise];
    answer('RunSnapshot', () => answers.shift()!);
    const store = createRunStore('r1');
    const a = store.load();
    const b = store.load();
    second.resolve(snapshot({ run: run({ status: 'paused' }) }));
    await b;
    first.resolve(snapshot({ run: run({ status: 'running' }) }));
    await a;
    expect(get(store).snapshot?.run.status).toBe('paused');
  });

  it('applies progress events of its run in place and reads the snapshot again for other events', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1')] })));
    const store = createRunStore('r1', 10, 60_000);
    await store.load();
    const off = store.listen();

    emit('worker:progress', { runId: 'r1', status: 'running', worker: worker('t1', { progress: 80 }) });
    emit('worker:progress', { runId: 'r2', status: 'running', worker: worker('t1', { progress: 5 }) });
    expect(get(store).snapshot?.workers.map((x) => x.progress)).toEqual([80]);
    await new Promise((r) => setTimeout(r, 30));
    expect(count('RunSnapshot')).toBe(1);

    emit('orchestrator:progress', { runId: 'r1', status: 'running', run: { tasksCompleted: 2 } });
    expect(get(store).snapshot?.run).toMatchObject({ id: 'r1', tasksCompleted: 2 });

    emit('worker:completed', { runId: 'r1', status: 'completed', worker: worker('t2', { status: 'completed' }) });
    emit('worker:started', { runId: 'r1', status: 'running', worker: worker('t3') });
    expect(get(store).snapshot?.workers.map((x) => x.taskId)).toEqual(['t1', 't2', 't3']);
    await waitFor(() => expect(count('RunSnapshot')).toBe(2));
    await new Promise((r) => setTimeout(r, 30));
    expect(count('RunSnapshot')).toBe(2);

    off();
    emit('worker:failed', { runId: 'r1', status: 'failed' });
    await new Promise((r) => setTimeout(r, 30));
    expect(count('RunSnapshot')).toBe(2);
  });

  it('marks an action busy while it runs and keeps its error with its key', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot()));
    const pausing = deferred<void>();
    answer('PauseRun', () => pausing.promise);
    const store = createRunStore('r1');
    const done = store.pause();
    expect(get(store).busy).toEqual(['pause']);
    pausing.resolve();
    await done;
    expect(get(store).busy).toEqual([]);
    expect(count('RunSnapshot')).toBe(1);

    answer('ReviewTask', () => Promise.reject('the task is no longer awaiting review'));
    expect(await store.review('t2', false, 'too short')).toBe(false);
    expect(calls.find((c) => c.name === 'ReviewTask')?.args).toEqual(['r1', 't2', false, 'too short']);
    expect(get(store)).toMatchObject({ busy: [], actionErrorKey: 'review:t2' });
    expect(get(store).actionError?.message).toBe('the task is no longer awaiting review');

    answer('AnswerClarification', () => Promise.resolve());
    expect(await store.clarify('t2', 'Use tabs')).toBe(true);
    expect(get(store).actionError).toBeUndefined();
  });

  it('keeps where the report went, but not when the user cancelled the picker', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot()));
    answer('ExportRunReport', () => Promise.resolve({ cancelled: true, path: '' }));
    const store = createRunStore('r1');
    await store.exportReport();
    expect(get(store).exported).toBeUndefined();
    answer('ExportRunReport', () => Promise.resolve({ cancelled: false, path: '/tmp/report.md' }));
    await store.exportReport();
    expect(get(store).exported).toBe('/tmp/report.md');
  });

  it('reads the prompts of the main session while it works, and answers them through the host', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'analyzing', mainSessionId: 'main-1' }) })));
    answer('PendingPermissions', () =>
      Promise.resolve([
        { requestId: 'q1', sessionId: 'main-1', toolName: 'Bash' },
        { requestId: 'q2', sessionId: 'other', toolName: 'Bash' },
      ]),
    );
    answer('AnswerMain', () => Promise.resolve());
    const store = createRunStore('r1');
    await store.load();
    await waitFor(() => expect(get(store).mainPrompts.map((p) => p.requestId)).toEqual(['q1']));

    answer('PendingPermissions', () => Promise.resolve([]));
    await store.answerMain('q1', 'once');
    expect(calls.find((c) => c.name === 'AnswerMain')?.args).toEqual(['r1', 'q1', 'once']);
    await waitFor(() => expect(get(store).mainPrompts).toEqual([]));
  });

  it('forgets the main prompts once the main session stopped working', async () => {
    const snaps = [
      snapshot({ run: run({ status: 'planning', mainSessionId: 'main-1' }) }),
      snapshot({ run: run({ status: 'confirming', mainSessionId: 'main-1' }) }),
    ];
    answer('RunSnapshot', () => Promise.resolve(snaps.shift()));
    answer('PendingPermissions', () => Promise.resolve([{ requestId: 'q1', sessionId: 'main-1', toolName: 'Bash' }]));
    const store = createRunStore('r1');
    await store.load();
    await waitFor(() => expect(get(store).mainPrompts).toHaveLength(1));
    await store.load();
    await waitFor(() => expect(get(store).mainPrompts).toEqual([]));
    expect(count('PendingPermissions')).toBe(1);
  });
});
