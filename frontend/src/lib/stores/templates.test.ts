import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import type { TemplateInfo } from '../api';
import { createTemplatesStore, filterTemplates } from './templates';

const info = (id: string, over: Partial<TemplateInfo> = {}) =>
  ({ id, name: id, description: '', icon: '', version: '1.0.0', author: '', tags: [], isSystem: false, ...over }) as TemplateInfo;
const names = () => calls.map((c) => c.name);

describe('createTemplatesStore', () => {
  it('loads the list, keeps the answer of the newest load and a failed load as its error', async () => {
    const answers = [new Promise((r) => setTimeout(() => r([info('old')]), 20)), Promise.resolve([info('new')])];
    answer('ListTemplates', () => answers.shift()!);
    const store = createTemplatesStore();
    expect(get(store).loading).toBe(true);
    await Promise.all([store.load(), store.load()]);
    expect(get(store)).toEqual({ loading: false, items: [info('new')] });

    answer('ListTemplates', () => Promise.reject('templates folder missing'));
    await store.load();
    expect(get(store).error?.message).toBe('templates folder missing');
    expect(get(store).items).toEqual([info('new')]);
  });

  it('follows the template events until unsubscribed', async () => {
    answer('ListTemplates', () => Promise.resolve([info('a'), info('b')]));
    const store = createTemplatesStore();
    await store.load();
    const off = store.listen();
    emit('template:deleted', 'a');
    expect(get(store).items.map((t) => t.id)).toEqual(['b']);
    emit('template:created', info('c'));
    emit('template:updated', info('b'));
    expect(names().filter((n) => n === 'ListTemplates')).toHaveLength(3);
    off();
    emit('template:created', info('d'));
    expect(names().filter((n) => n === 'ListTemplates')).toHaveLength(3);
  });

  it('reloads the list after each change, and not after a failed one', async () => {
    answer('ListTemplates', () => Promise.resolve([info('a')]));
    answer('CreateTemplate', () => Promise.resolve({ id: 'a' }));
    answer('UpdateTemplate', () => Promise.resolve({ id: 'a' }));
    answer('DuplicateTemplate', () => Promise.resolve({ id: 'a-copy' }));
    answer('DeleteTemplate', () => Promise.reject('"child" extends it'));
    const store = createTemplatesStore();
    expect((await store.create('{"id":"a"}')).id).toBe('a');
    expect((await store.update('a', '{"id":"a","name":"A"}')).id).toBe('a');
    expect((await store.duplicate('a')).id).toBe('a-copy');
    await expect(store.remove('a')).rejects.toThrow('"child" extends it');
    expect(names()).toEqual(['CreateTemplate', 'ListTemplates', 'UpdateTemplate', 'ListTemplates', 'DuplicateTemplate', 'ListTemplates', 'DeleteTemplate']);
    expect(calls.find((c) => c.name === 'DuplicateTemplate')?.args).toEqual(['a', '']);
    expect(calls.find((c) => c.name === 'UpdateTemplate')?.args).toEqual(['a', '{"id":"a","name":"A"}']);
  });

  it('imports a file unless the user cancelled the picker', async () => {
    answer('ListTemplates', () => Promise.resolve([]));
    answer('ImportTemplate', () => Promise.resolve({ cancelled: true }));
    const store = createTemplatesStore();
    expect(await store.importFile()).toBeUndefined();
    answer('ImportTemplate', () => Promise.resolve({ cancelled: false, template: { id: 'imported' } }));
    expect((await store.importFile())?.id).toBe('imported');
    expect(names()).toEqual(['ImportTemplate', 'ImportTemplate', 'ListTemplates']);
  });

  it('reads, checks and exports documents', async () => {
    answer('TemplateSource', (id) => Promise.resolve(`{"id":"${id}"}`));
    answer('ValidateTemplate', () => Promise.resolve(null));
    answer('ResolveTemplateDraft', (doc) => Promise.resolve({ template: JSON.parse(String(doc)), chain: [], sources: {} }));
    answer('GenerateTemplateID', (name) => Promise.resolve(String(name).toLowerCase().replace(/ /g, '-')));
    answer('ExportTemplate', (_id, resolved) => Promise.resolve(resolved ? { cancelled: true } : { cancelled: false, path: '/tmp/a.json' }));
    const store = createTemplatesStore();
    expect(await store.source('a')).toBe('{"id":"a"}');
    expect(await store.validate('{}')).toEqual([]);
    expect((await store.resolveDraft('{"id":"x"}')).template.id).toBe('x');
    expect(await store.newId('New template')).toBe('new-template');
    expect(await store.exportFile('a', false)).toBe('/tmp/a.json');
    expect(await store.exportFile('a', true)).toBeUndefined();
  });
});

describe('filterTemplates', () => {
  it('matches every word in name, description, id or tags, ignoring case', () => {
    const items = [info('api-docs', { name: 'API docs', tags: ['docs'] }), info('quick', { name: 'Quick review', description: 'Small diffs' })];
    expect(filterTemplates(items, '  ')).toBe(items);
    expect(filterTemplates(items, 'DOCS api').map((t) => t.id)).toEqual(['api-docs']);
    expect(filterTemplates(items, 'small review').map((t) => t.id)).toEqual(['quick']);
    expect(filterTemplates(items, 'quick docs')).toEqual([]);
  });
});
