import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { appliedNote, createChangesStore } from './changes';

describe('appliedNote', () => {
  it('says what Apply did to the branch', () => {
    expect(appliedNote({ into: 'main', fastForward: true, commit: 'a' })).toBe('main was fast-forwarded.');
    expect(appliedNote({ into: 'main', fastForward: false, commit: 'a' })).toBe('Merged into main.');
    expect(appliedNote({ into: 'dev', fastForward: false, nothing: true, commit: 'a' })).toBe('dev already held these changes.');
  });
});

describe('createChangesStore', () => {
  it('reads a patch once, when its diff first opens, and keeps why it could not', async () => {
    answer('TaskPatch', (_run, task) => (task === 't1' ? Promise.resolve('+a') : Promise.reject('the worktree is gone')));
    const store = createChangesStore('r1');
    await store.toggle('t1');
    expect(get(store)).toMatchObject({ open: { t1: true }, patches: { t1: '+a' } });
    await store.toggle('t1');
    await store.toggle('t1');
    expect(calls.filter((c) => c.name === 'TaskPatch')).toEqual([{ name: 'TaskPatch', args: ['r1', 't1'] }]);
    await store.toggle('t2');
    expect(get(store).patchErrors).toEqual({ t2: 'the worktree is gone' });
    expect(get(store).patches.t2).toBeUndefined();
  });

  it('applies, says what it did and asks for the run again; a refusal stays as Go wrote it', async () => {
    let changed = 0;
    const store = createChangesStore('r1', () => changed++);
    answer('ApplyRun', () => Promise.reject('Apply refused: you have uncommitted changes in a.txt.'));
    await store.apply();
    expect(get(store)).toMatchObject({ busy: '', error: 'Apply refused: you have uncommitted changes in a.txt.', note: '' });
    expect(changed).toBe(0);
    answer('ApplyRun', () => Promise.resolve({ into: 'main', fastForward: true, commit: 'def' }));
    await store.apply();
    expect(get(store)).toMatchObject({ busy: '', error: '', note: 'main was fast-forwarded.' });
    expect(changed).toBe(1);
    expect(calls.map((c) => [c.name, ...c.args])).toEqual([
      ['ApplyRun', 'r1'],
      ['ApplyRun', 'r1'],
    ]);
  });

  it('discards and answers a conflict, one action at a time', async () => {
    let changed = 0;
    const store = createChangesStore('r1', () => changed++);
    let release!: () => void;
    answer('DiscardRun', () => new Promise<void>((r) => (release = r)));
    answer('ResolveConflict', () => Promise.resolve());
    const discarding = store.discard();
    expect(get(store).busy).toBe('discard');
    await store.resolveConflict(true); // refused while Discard is under way
    release();
    await discarding;
    await store.resolveConflict(false);
    expect(calls.map((c) => [c.name, ...c.args])).toEqual([
      ['DiscardRun', 'r1'],
      ['ResolveConflict', 'r1', false],
    ]);
    expect(changed).toBe(2);
    expect(get(store).busy).toBe('');
  });
});
