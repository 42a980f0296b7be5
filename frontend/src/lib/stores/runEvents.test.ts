import { describe, expect, it } from 'vitest';
import { emit, listenerCount } from '../../test/fakes/runtime';
import { runEventNames } from '../events';
import { isProgress, onRunEvents, type RunEvent } from './runEvents';

describe('onRunEvents', () => {
  it('hands every engine event to the handler with its name, and unsubscribes them all', () => {
    const seen: [string, RunEvent][] = [];
    const off = onRunEvents((name, p) => seen.push([name, p]));
    for (const name of runEventNames) expect(listenerCount(name)).toBe(1);

    emit('worker:completed', { runId: 'r1', status: 'completed', taskId: 't1' });
    emit('orchestrator:paused', { runId: 'r2', status: 'paused' });
    expect(seen).toEqual([
      ['worker:completed', { runId: 'r1', status: 'completed', taskId: 't1' }],
      ['orchestrator:paused', { runId: 'r2', status: 'paused' }],
    ]);

    off();
    for (const name of runEventNames) expect(listenerCount(name)).toBe(0);
    emit('worker:completed', { runId: 'r1', status: 'completed' });
    expect(seen).toHaveLength(2);
  });
});

describe('isProgress', () => {
  it('names only the two progress events', () => {
    expect(runEventNames.filter(isProgress)).toEqual(['orchestrator:progress', 'worker:progress']);
  });
});
