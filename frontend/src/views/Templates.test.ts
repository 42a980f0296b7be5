import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer, calls } from '../test/fakes/App';
import { emit } from '../test/fakes/runtime';
import { navigation } from '../lib/stores/navigation';
import Templates from './Templates.svelte';
import App from '../App.svelte';

// Unmount before the shared afterEach navigates away, so no editor's leave
// guard outlives its test.
afterEach(() => cleanup());
// The machine running the tests may be busy: wait generously, never forever.
configure({ asyncUtilTimeout: 5000 });

const info = (id: string, isSystem: boolean, extra: Record<string, unknown> = {}) => ({
  id,
  name: id === '_default' ? 'Default' : id === 'documentation' ? 'Documentation' : id === 'api-docs' ? 'API docs' : 'Quick review',
  description: `About ${id}`,
  icon: 'book',
  version: '1.0.0',
  author: '',
  tags: id === 'api-docs' ? ['docs', 'api'] : [],
  isSystem,
  ...extra,
});

const list = [
  info('_default', true),
  info('documentation', true, { extends: '_default' }),
  info('api-docs', false, { extends: 'documentation' }),
  info('quick', false, { extends: '_default' }),
];

const sources: Record<string, string> = {
  _default: '{\n  "id": "_default",\n  "name": "Default",\n  "description": "Base",\n  "config": {\n    "maxWorkers": 3\n  }\n}\n',
  documentation: '{\n  "id": "documentation",\n  "name": "Documentation",\n  "extends": "_default"\n}\n',
  'api-docs': '{\n  "id": "api-docs",\n  "name": "API docs",\n  "extends": "documentation",\n  "config": {\n    "maxWorkers": 30\n  }\n}\n',
  quick: '{\n  "id": "quick",\n  "name": "Quick review",\n  "extends": "_default"\n}\n',
};

const resolvedApiDocs = {
  template: {
    id: 'api-docs',
    name: 'API docs',
    description: 'About api-docs',
    config: { maxWorkers: 4, maxRetries: 2, permissionMode: 'acceptEdits' },
  },
  chain: ['api-docs', 'documentation', '_default'],
  sources: {
    '/id': 'api-docs',
    '/name': 'api-docs',
    '/description': 'documentation',
    '/config/maxWorkers': 'api-docs',
    '/config/maxRetries': '_default',
    '/config/permissionMode': '_default',
  },
};

/** Validation says maxWorkers is too high while the text has 30 in it. */
function validateMaxWorkers(doc: unknown) {
  const text = String(doc);
  return Promise.resolve(
    /"maxWorkers": 30/.test(text) ? [{ pointer: '/config/maxWorkers', message: 'maximum: got 30, want 20' }] : [],
  );
}

function setup(validate: (doc: unknown) => Promise<unknown> = validateMaxWorkers) {
  answer('ListTemplates', () => Promise.resolve(list));
  answer('TemplateSource', (id) => Promise.resolve(sources[String(id)]));
  answer('ResolveTemplate', () => Promise.resolve(resolvedApiDocs));
  answer('ResolveTemplateDraft', () => Promise.resolve(resolvedApiDocs));
  answer('ValidateTemplate', validate);
}

const saveButton = () => screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
const nameInput = () => screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement;

async function openTemplates(validate?: (doc: unknown) => Promise<unknown>) {
  setup(validate);
  render(Templates, { props: { validateDelay: 0 } });
  await screen.findByRole('heading', { level: 2, name: /API docs/ });
}

describe('Templates view', { timeout: 30_000 }, () => {
  it('lists templates with system badges and searches them', async () => {
    await openTemplates();
    const system = screen.getByRole('list', { name: 'System templates' });
    expect(within(system).getAllByText('System')).toHaveLength(2);
    const mine = screen.getByRole('list', { name: 'Your templates' });
    expect(within(mine).queryByText('System')).toBeNull();
    await fireEvent.input(screen.getByRole('searchbox', { name: 'Search templates' }), { target: { value: 'api' } });
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual([expect.stringContaining('API docs')]);
  });

  it('renders the validator errors with their place, in the list and at the field', async () => {
    await openTemplates();
    const problems = await screen.findByRole('region', { name: 'Problems' });
    expect(problems.textContent).toContain('maximum: got 30, want 20');
    expect(problems.textContent).toContain('line 6 · /config/maxWorkers');
    const field = screen.getByRole('spinbutton', { name: /Workers at once/ });
    expect(field.closest('label')!.textContent).toContain('maximum: got 30, want 20');
  });

  it('marks the errors in the JSON editor at their location', async () => {
    await openTemplates();
    await screen.findByRole('region', { name: 'Problems' });
    await fireEvent.click(screen.getByRole('tab', { name: /JSON/ }));
    await waitFor(() => expect(document.querySelector('.cm-lintRange-error')).toBeTruthy());
    expect(document.querySelector('.cm-lintRange-error')!.textContent).toBe('30');
    expect(screen.getByRole('textbox', { name: 'Template JSON' }).textContent).toContain('"maxWorkers": 30');
  });

  it('opens the JSON tab at a problem when it is clicked', async () => {
    await openTemplates();
    const problems = await screen.findByRole('region', { name: 'Problems' });
    await fireEvent.click(within(problems).getByRole('button', { name: /maxWorkers/ }));
    expect(screen.getByRole('tab', { name: /JSON/ }).getAttribute('aria-selected')).toBe('true');
    const { EditorView } = await import('@codemirror/view');
    await waitFor(() => {
      const view = EditorView.findFromDOM(document.querySelector('.cm-editor') as HTMLElement)!;
      const sel = view.state.selection.main;
      expect(view.state.sliceDoc(sel.from, sel.to)).toBe('30');
    });
  });

  it('places a JSON syntax error at its line and keeps the form away from broken text', async () => {
    await openTemplates((doc) =>
      Promise.resolve(
        String(doc).includes('"name": ,')
          ? [{ pointer: '', message: "not valid JSON at line 3, column 11: invalid character ',' looking for beginning of value" }]
          : [],
      ),
    );
    await fireEvent.click(screen.getByRole('tab', { name: /JSON/ }));
    const editor = await screen.findByRole('textbox', { name: 'Template JSON' });
    expect(editor).toBeTruthy();
    // Type into the editor as CodeMirror would report it: through its view.
    const { EditorView } = await import('@codemirror/view');
    const view = EditorView.findFromDOM(document.querySelector('.cm-editor') as HTMLElement)!;
    const text = view.state.doc.toString();
    const at = text.indexOf('"API docs"');
    view.dispatch({ changes: { from: at, to: at + '"API docs"'.length, insert: '' } });
    const problems = await screen.findByRole('region', { name: 'Problems' });
    expect(problems.textContent).toContain('line 3');
    expect(problems.textContent).toContain('invalid character');
    expect(saveButton().disabled).toBe(true);
    await fireEvent.click(screen.getByRole('tab', { name: 'Form' }));
    expect(screen.getByText(/The JSON is not valid, so the form cannot show it/)).toBeTruthy();
  });

  it('shows what the parent gives where the template sets nothing', async () => {
    await openTemplates(() => Promise.resolve([]));
    const retries = screen.getByRole('spinbutton', { name: /Retries per task/ }) as HTMLInputElement;
    await waitFor(() => expect(retries.placeholder).toBe('2 (from _default)'));
    expect(retries.value).toBe('');
    expect(calls.filter((c) => c.name === 'ResolveTemplate').map((c) => c.args[0])).toContain('documentation');
  });

  it('adds, retypes and removes variables through the form', async () => {
    await openTemplates(() => Promise.resolve([]));
    const lastChecked = () => JSON.parse(String(calls.filter((c) => c.name === 'ValidateTemplate').at(-1)!.args[0]));
    await fireEvent.click(screen.getByRole('button', { name: 'Add variable' }));
    const row = await screen.findByRole('listitem', { name: 'Variable VARIABLE_1' });
    await fireEvent.change(within(row).getByRole('combobox', { name: 'Type' }), { target: { value: 'select' } });
    await fireEvent.change(within(row).getByRole('textbox', { name: /Options/ }), { target: { value: 'a, b' } });
    await fireEvent.input(within(row).getByRole('textbox', { name: 'Default' }), { target: { value: 'b' } });
    await fireEvent.click(within(row).getByRole('checkbox', { name: 'Required' }));
    await waitFor(() =>
      expect(lastChecked().variables).toEqual({
        VARIABLE_1: { type: 'select', label: 'New variable', options: ['a', 'b'], default: 'b', required: true },
      }),
    );
    await fireEvent.change(within(row).getByRole('textbox', { name: 'Name' }), { target: { value: 'FLAVOUR' } });
    await screen.findByRole('listitem', { name: 'Variable FLAVOUR' });
    await fireEvent.click(screen.getByRole('button', { name: 'Remove variable FLAVOUR' }));
    await waitFor(() => expect(lastChecked().variables).toBeUndefined());
  });

  it('disables Save while the template is invalid and says why', async () => {
    await openTemplates();
    await waitFor(() => expect(screen.getByRole('status', { name: 'Why saving is off' })).toBeTruthy());
    expect(saveButton().disabled).toBe(true);
    expect(screen.getByRole('status', { name: 'Why saving is off' }).textContent).toBe(
      'Cannot save while the template is invalid: /config/maxWorkers: maximum: got 30, want 20',
    );
    expect(saveButton().title).toContain('maximum: got 30, want 20');

    await fireEvent.input(screen.getByRole('spinbutton', { name: /Workers at once/ }), { target: { value: '8' } });
    await waitFor(() => expect(saveButton().disabled).toBe(false));
    expect(screen.queryByRole('status', { name: 'Why saving is off' })).toBeNull();

    answer('UpdateTemplate', () => Promise.resolve(resolvedApiDocs.template));
    await fireEvent.click(saveButton());
    await waitFor(() => expect(calls.some((c) => c.name === 'UpdateTemplate')).toBe(true));
    const update = calls.find((c) => c.name === 'UpdateTemplate')!;
    expect(update.args[0]).toBe('api-docs');
    expect(JSON.parse(String(update.args[1])).config.maxWorkers).toBe(8);
    await screen.findByText('Saved.');
  });

  it('shows in the Resolved tab which values are inherited and from where', async () => {
    await openTemplates(() => Promise.resolve([]));
    await fireEvent.click(screen.getByRole('tab', { name: 'Resolved' }));
    const row = (pointer: string) => document.querySelector(`tr[data-pointer="${pointer}"]`) as HTMLElement;
    await waitFor(() => expect(row('/config/maxRetries')).toBeTruthy());
    expect(row('/config/maxRetries').textContent).toContain('inherited from _default');
    expect(row('/config/maxRetries').classList.contains('inherited')).toBe(true);
    expect(row('/description').textContent).toContain('inherited from documentation');
    expect(row('/config/maxWorkers').textContent).toContain('set here');
    expect(row('/config/maxWorkers').classList.contains('inherited')).toBe(false);
    expect(screen.getByLabelText('Inheritance chain').textContent).toMatch(/api-docs.*documentation.*_default/);

    expect(calls.filter((c) => c.name === 'ResolveTemplate').map((c) => c.args[0])).toContain('api-docs');

    await fireEvent.click(screen.getByRole('button', { name: 'Inherited (3)' }));
    expect(row('/config/maxWorkers')).toBeNull();
    expect(row('/config/permissionMode')).toBeTruthy();
  });

  it('resolves unsaved changes as a draft, and says when the template must be fixed first', async () => {
    await openTemplates();
    await fireEvent.click(screen.getByRole('tab', { name: 'Resolved' }));
    await screen.findByText('Fix the problems above to see the resolved template.');
    await fireEvent.click(screen.getByRole('tab', { name: 'Form' }));
    await fireEvent.input(screen.getByRole('spinbutton', { name: /Workers at once/ }), { target: { value: '5' } });
    await fireEvent.click(screen.getByRole('tab', { name: 'Resolved' }));
    await screen.findByText('Showing your unsaved changes merged with what they inherit.');
    const draft = calls.find((c) => c.name === 'ResolveTemplateDraft');
    expect(JSON.parse(String(draft?.args[0])).config.maxWorkers).toBe(5);
  });

  it('asks before deleting, and deletes only when confirmed', async () => {
    await openTemplates(() => Promise.resolve([]));
    answer('DeleteTemplate', () => Promise.resolve());
    await fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete “API docs”?' });
    expect(calls.some((c) => c.name === 'DeleteTemplate')).toBe(false);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls.some((c) => c.name === 'DeleteTemplate')).toBe(false);

    await fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'DeleteTemplate').map((c) => c.args)).toEqual([['api-docs']]));
  });

  it('shows the first template left once the shown one is deleted', async () => {
    await openTemplates(() => Promise.resolve([]));
    answer('DeleteTemplate', () => {
      answer('ListTemplates', () => Promise.resolve(list.filter((t) => t.id !== 'api-docs')));
      return Promise.resolve();
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    await screen.findByRole('heading', { level: 2, name: /Quick review/ });
    expect(within(screen.getByRole('list', { name: 'Your templates' })).queryByText('API docs')).toBeNull();
  });

  it('shows why a delete was refused', async () => {
    await openTemplates(() => Promise.resolve([]));
    answer('DeleteTemplate', () => Promise.reject('Template "api-docs" cannot be deleted because "child" extends it.'));
    await fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect((await screen.findByRole('alert')).textContent).toContain('cannot be deleted because "child" extends it');
  });

  it('asks before leaving a template with unsaved changes', async () => {
    await openTemplates(() => Promise.resolve([]));
    await fireEvent.input(nameInput(), { target: { value: 'API reference' } });
    expect(screen.getByText('Unsaved')).toBeTruthy();

    const quick = within(screen.getByRole('list', { name: 'Your templates' })).getByRole('button', { name: /Quick review/ });
    await fireEvent.click(quick);
    const dialog = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Keep editing' }));
    expect(nameInput().value).toBe('API reference');
    expect(calls.filter((c) => c.name === 'TemplateSource').map((c) => c.args[0])).toEqual(['api-docs']);

    await fireEvent.click(quick);
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Discard changes' }));
    await screen.findByRole('heading', { level: 2, name: /Quick review/ });
    expect(screen.queryByText('Unsaved')).toBeNull();
  });

  it('asks before the sidebar leaves the view with unsaved changes', async () => {
    setup(() => Promise.resolve([]));
    answer('Ready', () => Promise.resolve({ version: '1.0.0', commit: 'x', buildDate: 'today', platform: 'linux/amd64' }));
    navigation.go('templates');
    render(App);
    await screen.findByRole('heading', { level: 2, name: /API docs/ });
    await fireEvent.input(nameInput(), { target: { value: 'Changed' } });
    const sidebar = screen.getByRole('navigation', { name: 'Main' });
    await fireEvent.click(within(sidebar).getByRole('button', { name: 'Runs' }));
    expect(screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' })).toBeTruthy();
    expect(get(navigation)).toBe('templates');
    await fireEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(get(navigation)).toBe('templates');

    await fireEvent.click(within(sidebar).getByRole('button', { name: 'Runs' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Discard changes' }));
    await waitFor(() => expect(get(navigation)).toBe('runs'));
    expect(screen.getByRole('heading', { level: 1, name: 'Runs' })).toBeTruthy();
  });

  it('opens system templates read-only with Duplicate to edit', async () => {
    await openTemplates(() => Promise.resolve([]));
    answer('DuplicateTemplate', () => Promise.resolve({ id: 'copy-of-documentation' }));
    await fireEvent.click(within(screen.getByRole('list', { name: 'System templates' })).getByRole('button', { name: /Documentation/ }));
    await screen.findByRole('heading', { level: 2, name: /Documentation/ });
    expect(nameInput().matches(':disabled')).toBe(true);
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Duplicate to edit' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'DuplicateTemplate')?.args).toEqual(['documentation', '']));
  });

  it('creates a new template from a draft', async () => {
    await openTemplates(() => Promise.resolve([]));
    answer('GenerateTemplateID', () => Promise.resolve('new-template'));
    answer('CreateTemplate', () => Promise.resolve({ id: 'new-template' }));
    await fireEvent.click(screen.getByRole('button', { name: 'New template' }));
    await screen.findByText('new template, not saved yet');
    await waitFor(() => expect(saveButton().disabled).toBe(false));
    await fireEvent.click(saveButton());
    await waitFor(() => expect(calls.some((c) => c.name === 'CreateTemplate')).toBe(true));
    const doc = JSON.parse(String(calls.find((c) => c.name === 'CreateTemplate')!.args[0]));
    expect(doc).toMatchObject({ id: 'new-template', extends: '_default' });
  });

  it('reloads the list when a template event arrives', async () => {
    await openTemplates(() => Promise.resolve([]));
    const before = calls.filter((c) => c.name === 'ListTemplates').length;
    emit('template:created', info('quick', false));
    await waitFor(() => expect(calls.filter((c) => c.name === 'ListTemplates').length).toBe(before + 1));
  });
});
