import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { run } from '../../test/fixtures/runs';
import type { CreateRunRequest } from '../api';
import { createNewRunStore } from './newRun';

const resolved = (id: string) => ({ template: { id, name: id }, chain: [id], sources: {} });

describe('createNewRunStore', () => {
  it('reads the recent folders from the settings, and does without them', async () => {
    answer('GetSettings', () => Promise.resolve({ settings: { recentFolders: ['/src/a', '/src/b'] } }));
    const store = createNewRunStore();
    await store.loadRecent();
    expect(get(store).recent).toEqual(['/src/a', '/src/b']);
    answer('GetSettings', () => Promise.reject('settings.json is broken'));
    await store.loadRecent();
    expect(get(store).recent).toEqual([]);
  });

  it('keeps the template chosen last, whichever answer comes first', async () => {
    const waiting: Record<string, (v: unknown) => void> = {};
    answer('ResolveTemplate', (id) => new Promise((r) => (waiting[String(id)] = r)));
    const store = createNewRunStore();
    const a = store.selectTemplate('documentation');
    const b = store.selectTemplate('code-review');
    expect(get(store).resolving).toBe(true);
    waiting['code-review'](resolved('code-review'));
    await b;
    waiting['documentation'](resolved('documentation'));
    await a;
    expect(get(store)).toMatchObject({ resolving: false, resolved: { template: { id: 'code-review' } } });
  });

  it('starts a run, or keeps why Go refused', async () => {
    const req = { templateId: 'documentation', cwd: '/src/app', request: 'Document it' } as unknown as CreateRunRequest;
    answer('StartRun', () => Promise.reject('the folder does not exist'));
    const store = createNewRunStore();
    expect(await store.start(req)).toBeUndefined();
    expect(get(store)).toMatchObject({ starting: false });
    expect(get(store).startError?.message).toBe('the folder does not exist');

    answer('StartRun', () => Promise.resolve(run({ id: 'r9' })));
    expect((await store.start(req))?.id).toBe('r9');
    expect(get(store).startError).toBeUndefined();
    expect(calls.filter((c) => c.name === 'StartRun').map((c) => c.args[0])).toEqual([req, req]);
  });

  it('asks for the project folder; a failed dialog is shown as a start error', async () => {
    answer('ChooseFolder', () => Promise.resolve('/src/app'));
    const store = createNewRunStore();
    expect(await store.chooseFolder()).toBe('/src/app');
    expect(calls[0].args).toEqual(['Choose the project folder']);
    answer('ChooseFolder', () => Promise.reject('no display'));
    expect(await store.chooseFolder()).toBe('');
    expect(get(store).startError?.message).toBe('no display');
  });
});
