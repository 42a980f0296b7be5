import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { appliedNote, createChangesStore, wholeBranch } from './changes';

describe('appliedNote', () => {
  it('says what Apply did to the branch', () => {
    expect(appliedNote({ into: 'main', fastForward: true, commit: 'a' })).toBe('main was fast-forwarded.');
    expect(appliedNote({ into: 'main', fastForward: false, commit: 'a' })).toBe('Merged into main.');
    expect(appliedNote({ into: 'dev', fastForward: false, nothing: true, commit: 'a' })).toBe('dev already held these changes.');
  });
});

describe('createChangesStore', () => {
  it('reads a diff once, when it is first shown, and keeps why it could not', async () => {
    const file = { path: 'a.go', status: 'modified', added: 1, removed: 1, old: 'a', new: 'b' };
    answer('RunDiff', (_run, task) => (task === 't1' || task === '' ? Promise.resolve([file]) : Promise.reject('the worktree is gone')));
    const store = createChangesStore('r1');
    await store.showDiff('t1');
    expect(get(store)).toMatchObject({ shown: 't1', diffs: { t1: [file] } });
    await store.showDiff('t1');
    expect(get(store).shown).toBe('');
    await store.showDiff('t1');
    await store.showDiff(wholeBranch);
    expect(get(store).shown).toBe(wholeBranch);
    expect(calls.filter((c) => c.name === 'RunDiff').map((c) => c.args)).toEqual([
      ['r1', 't1'],
      ['r1', ''],
    ]);
    await store.showDiff('t2');
    expect(get(store).diffErrors).toEqual({ t2: 'the worktree is gone' });
    expect(get(store).diffs.t2).toBeUndefined();
  });

  it('applies the picked tasks and forgets the picks', async () => {
    let changed = 0;
    const store = createChangesStore('r1', () => changed++);
    store.pick('t2', true);
    store.pick('t1', true);
    store.pick('t3', true);
    store.pick('t3', false);
    answer('ApplyRunTasks', () => Promise.resolve({ into: 'main', fastForward: true, commit: 'x' }));
    await store.applyPicked();
    expect(calls.map((c) => [c.name, ...c.args])).toEqual([['ApplyRunTasks', 'r1', ['t2', 't1']]]);
    expect(get(store)).toMatchObject({ picked: [], note: 't2, t1: main was fast-forwarded.' });
    expect(changed).toBe(1);
  });

  it('pushes to the remote offered first, and keeps the command gh could not run', async () => {
    let changed = 0;
    const store = createChangesStore('r1', () => changed++);
    answer('RunRemotes', () => Promise.resolve({ remotes: [{ name: 'origin', url: '/srv/x.git' }, { name: 'fork', url: 'f' }], default: 'origin', pushCommand: '' }));
    await store.loadRemotes();
    expect(get(store).remote).toBe('origin');
    expect(changed).toBe(0);
    store.setRemote('fork');
    answer('PushRun', () => Promise.resolve({ remote: 'fork', output: '' }));
    await store.push();
    expect(get(store).note).toBe('Pushed to fork.');
    answer('OpenPullRequest', () =>
      Promise.resolve({ opened: false, reason: 'the GitHub CLI (gh) is not installed', command: 'cd /p && gh pr create --head baton/r1', title: 't', body: 'b' }),
    );
    await store.pullRequest();
    expect(get(store).pullRequest?.command).toBe('cd /p && gh pr create --head baton/r1');
    expect(calls.map((c) => [c.name, ...c.args]).slice(1)).toEqual([
      ['PushRun', 'r1', 'fork'],
      ['OpenPullRequest', 'r1', 'fork'],
    ]);
    expect(changed).toBe(2);
    answer('OpenInEditor', () => Promise.reject('a.go is not a file this run changed.'));
    await store.openInEditor('a.go');
    expect(get(store).error).toBe('a.go is not a file this run changed.');
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
