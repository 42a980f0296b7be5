import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer, calls } from '../test/fakes/App';
import { run } from '../test/fixtures/runs';
import { navigation } from '../lib/stores/navigation';
import { openRun } from '../lib/stores/openRun';
import NewRun from './NewRun.svelte';

const info = (id: string, name: string) => ({ id, name, description: `${name} does things`, icon: 'book', version: '1', author: '', tags: [], isSystem: true });

const documentation = {
  template: {
    id: 'documentation',
    name: 'Documentation',
    description: '',
    config: { maxWorkers: 4, workerTimeout: 1800, inactivityTimeout: 300, maxRetries: 2, permissionMode: 'acceptEdits', autoConfirm: false },
    variables: {
      outputDir: { type: 'string', label: 'Output folder', required: true, default: 'docs', order: 1 },
      depth: { type: 'number', label: 'Depth', default: 2, order: 2 },
      audience: { type: 'select', label: 'Audience', options: ['developers', 'users'], default: 'developers', required: true, order: 3 },
      examples: { type: 'boolean', label: 'Include examples', default: true, order: 4 },
      skip: { type: 'list', label: 'Skip these folders', order: 5 },
    },
  },
  chain: ['documentation'],
  sources: {},
};

function setup() {
  answer('ListTemplates', () => Promise.resolve([info('general', 'General'), info('documentation', 'Documentation')]));
  answer('GetSettings', () => Promise.resolve({ settings: { recentFolders: ['/src/app', '/src/other'] }, path: '', startAdvice: '' }));
  answer('ResolveTemplate', () => Promise.resolve(documentation));
  render(NewRun);
}

const start = () => fireEvent.click(screen.getByRole('button', { name: 'Start run' }));

describe('New run wizard', () => {
  it('explains every missing field next to it and starts nothing', async () => {
    setup();
    await screen.findByRole('radio', { name: /Documentation/ });
    await start();
    expect(screen.getByText('Choose a template.')).toBeTruthy();
    expect(screen.getByText('Choose the project folder the agents work in.')).toBeTruthy();
    expect(screen.getByText('Describe what the run should do.')).toBeTruthy();
    expect(screen.getByLabelText('Project folder').getAttribute('aria-describedby')).toBe('err-folder');
    expect(screen.getByLabelText('Request').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.name === 'StartRun')).toBe(false);

    // Errors follow the fields once the user tried.
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    expect(screen.queryByText('Describe what the run should do.')).toBeNull();
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: 'relative/path' } });
    expect(screen.getByText('Give the full path of the folder, or choose it with Browse.')).toBeTruthy();
  });

  it('builds the form from the template variables with their defaults and checks required ones', async () => {
    setup();
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    const out = (await screen.findByLabelText(/Output folder/)) as HTMLInputElement;
    expect(out.value).toBe('docs');
    expect((screen.getByLabelText('Depth') as HTMLInputElement).value).toBe('2');
    expect((screen.getByLabelText(/Audience/) as HTMLSelectElement).value).toBe('developers');
    expect((screen.getByLabelText('Include examples') as HTMLInputElement).checked).toBe(true);
    // Advanced starts from the template's settings.
    expect((screen.getByLabelText('Workers at once') as HTMLInputElement).value).toBe('4');
    expect((screen.getByLabelText('Worker timeout (seconds)') as HTMLInputElement).value).toBe('1800');
    expect((screen.getByLabelText('Inactivity timeout (seconds)') as HTMLInputElement).value).toBe('300');
    expect((screen.getByLabelText('Retries') as HTMLInputElement).value).toBe('2');
    expect((screen.getByLabelText('Permission mode') as HTMLSelectElement).value).toBe('acceptEdits');
    const advanced = screen.getByText('Advanced').closest('details') as HTMLDetailsElement;
    expect(advanced.textContent).toContain('30 min');
    expect(advanced.textContent).toContain('you review the tasks first');

    await fireEvent.input(out, { target: { value: '' } });
    await fireEvent.input(screen.getByLabelText('Depth'), { target: { value: 'deep' } });
    await fireEvent.click(screen.getByRole('button', { name: '/src/app' }));
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    await start();
    expect(screen.getByText('Output folder is required.')).toBeTruthy();
    expect(screen.getByText('Depth must be a number.')).toBeTruthy();
    expect(calls.some((c) => c.name === 'StartRun')).toBe(false);
  });

  it('starts the run with typed variables and opens it', async () => {
    setup();
    answer('StartRun', () => Promise.resolve(run({ id: 'r9', status: 'analyzing' })));
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: '  Document the API  ' } });
    await fireEvent.input(screen.getByLabelText('Skip these folders'), { target: { value: 'vendor\nnode_modules' } });
    await fireEvent.click(screen.getByLabelText('Include examples'));
    await start();
    await waitFor(() => expect(calls.some((c) => c.name === 'StartRun')).toBe(true));
    expect(calls.find((c) => c.name === 'StartRun')?.args[0]).toEqual({
      templateId: 'documentation',
      cwd: '/src/app',
      request: 'Document the API',
      variables: { outputDir: 'docs', depth: 2, audience: 'developers', examples: false, skip: ['vendor', 'node_modules'] },
    });
    // Advanced settings nobody changed are the template's: no overrides.
    expect(JSON.parse(JSON.stringify(calls.find((c) => c.name === 'StartRun')?.args[0])).overrides).toBeUndefined();
    await waitFor(() => expect(get(openRun)).toBe('r9'));
    expect(get(navigation)).toBe('runs');
  });

  it('sends only the advanced settings the user changed', async () => {
    setup();
    answer('StartRun', () => Promise.resolve(run({ id: 'r10', status: 'analyzing' })));
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    await fireEvent.input(screen.getByLabelText('Workers at once'), { target: { value: '1' } });
    await fireEvent.input(screen.getByLabelText('Inactivity timeout (seconds)'), { target: { value: '0' } });
    expect(screen.getByText('no limit')).toBeTruthy();
    // Changed and changed back: still the template's.
    await fireEvent.input(screen.getByLabelText('Retries'), { target: { value: '5' } });
    await fireEvent.input(screen.getByLabelText('Retries'), { target: { value: '2' } });
    await fireEvent.change(screen.getByLabelText('Permission mode'), { target: { value: 'bypassPermissions' } });
    expect(screen.getByText('Workers use every tool without asking you.')).toBeTruthy();
    await start();
    await waitFor(() => expect(calls.some((c) => c.name === 'StartRun')).toBe(true));
    const sent = JSON.parse(JSON.stringify(calls.find((c) => c.name === 'StartRun')?.args[0]));
    expect(sent.overrides).toEqual({ maxWorkers: 1, inactivityTimeout: 0, permissionMode: 'bypassPermissions' });
    expect(sent.variables.outputDir).toBe('docs');
    await waitFor(() => expect(get(openRun)).toBe('r10'));
  });

  it("sends the run's allow and deny rules, one a line, and puts a rule Go refused next to them", async () => {
    setup();
    answer('StartRun', () =>
      Promise.reject(
        'Create run: the run\'s permission rules: not a permission rule: "bash(ls)" does not start with a tool name such as Bash, Edit, Read, WebFetch or mcp__server (tool names start with a capital letter).',
      ),
    );
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    await fireEvent.input(screen.getByLabelText('Allow for this run'), { target: { value: ' Bash(go test:*)\n\nbash(ls)\n' } });
    await fireEvent.input(screen.getByLabelText('Deny for this run'), { target: { value: 'Bash(rm:*)' } });
    await start();
    await waitFor(() => expect(calls.some((c) => c.name === 'StartRun')).toBe(true));
    const sent = JSON.parse(JSON.stringify(calls.find((c) => c.name === 'StartRun')?.args[0]));
    expect(sent.overrides).toEqual({ allow: ['Bash(go test:*)', 'bash(ls)'], deny: ['Bash(rm:*)'] });
    const allow = screen.getByLabelText('Allow for this run');
    await waitFor(() => expect(allow.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText(/"bash\(ls\)" does not start with a tool name/)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("sends the isolation only when the user changes the template's", async () => {
    setup();
    answer('StartRun', () => Promise.resolve(run({ id: 'r11', status: 'analyzing' })));
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    const isolation = screen.getByLabelText('Isolation') as HTMLSelectElement;
    expect(isolation.value).toBe('shared');
    await fireEvent.change(isolation, { target: { value: 'worktree' } });
    expect(screen.getByText(/your branch changes only when you choose Apply/)).toBeTruthy();
    await start();
    await waitFor(() => expect(calls.some((c) => c.name === 'StartRun')).toBe(true));
    const sent = JSON.parse(JSON.stringify(calls.find((c) => c.name === 'StartRun')?.args[0]));
    expect(sent.overrides).toEqual({ isolation: 'worktree' });
  });

  it('offers the saved machines for a worktree run and sends them only when the user changes the template\'s', async () => {
    answer('GetMachines', () =>
      Promise.resolve({
        path: '',
        machines: [
          { name: 'build-box', host: 'ana@build', workspace: '~/baton', claudePath: '', maxWorkers: 4, env: [] },
          { name: 'gpu', host: 'gpu.lan', workspace: '~/baton', claudePath: '', maxWorkers: 1, env: [] },
        ],
      }),
    );
    setup();
    answer('StartRun', () => Promise.resolve(run({ id: 'r12', status: 'analyzing' })));
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    // A shared run places no worker elsewhere: no machines to choose.
    expect(screen.queryByRole('group', { name: 'Other machines' })).toBeNull();
    await fireEvent.change(screen.getByLabelText('Isolation'), { target: { value: 'worktree' } });
    const group = await screen.findByRole('group', { name: 'Other machines' });
    expect(group.textContent).toContain('ana@build, up to 4 workers');
    expect(group.textContent).toContain('gpu.lan, up to 1 worker');
    const gpu = screen.getByRole('checkbox', { name: /gpu/ }) as HTMLInputElement;
    const box = screen.getByRole('checkbox', { name: /build-box/ }) as HTMLInputElement;
    expect(gpu.checked || box.checked).toBe(false);
    // Checked in any order, sent in the order of Settings → Machines.
    await fireEvent.click(gpu);
    await fireEvent.click(box);
    await start();
    await waitFor(() => expect(calls.some((c) => c.name === 'StartRun')).toBe(true));
    const sent = JSON.parse(JSON.stringify(calls.find((c) => c.name === 'StartRun')?.args[0]));
    expect(sent.overrides).toEqual({ isolation: 'worktree', machines: ['build-box', 'gpu'] });
  });

  it("starts from the template's machines, and unchecking them all runs every worker here", async () => {
    answer('ListTemplates', () => Promise.resolve([info('documentation', 'Documentation')]));
    answer('GetSettings', () => Promise.resolve({ settings: { recentFolders: [] }, path: '', startAdvice: '' }));
    const worktree = { ...documentation, template: { ...documentation.template, config: { ...documentation.template.config, isolation: 'worktree', machines: ['old-box'] } } };
    answer('ResolveTemplate', () => Promise.resolve(worktree));
    answer('GetMachines', () => Promise.resolve({ path: '', machines: [] }));
    answer('StartRun', () => Promise.resolve(run({ id: 'r13', status: 'analyzing' })));
    render(NewRun);
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    const old = (await screen.findByRole('checkbox', { name: /old-box/ })) as HTMLInputElement;
    expect(old.checked).toBe(true);
    expect(screen.getByText(/not in Settings → Machines/)).toBeTruthy();
    await fireEvent.click(old);
    await start();
    await waitFor(() => expect(calls.some((c) => c.name === 'StartRun')).toBe(true));
    const sent = JSON.parse(JSON.stringify(calls.find((c) => c.name === 'StartRun')?.args[0]));
    expect(sent.overrides).toEqual({ machines: [] });
  });

  it('explains an advanced setting out of range next to it and starts nothing', async () => {
    setup();
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    const advanced = screen.getByText('Advanced').closest('details') as HTMLDetailsElement;
    expect(advanced.open).toBe(false);
    await fireEvent.input(screen.getByLabelText('Workers at once'), { target: { value: '0' } });
    await fireEvent.input(screen.getByLabelText('Worker timeout (seconds)'), { target: { value: '90000' } });
    await fireEvent.input(screen.getByLabelText('Retries'), { target: { value: '' } });
    await start();
    const workers = screen.getByLabelText('Workers at once');
    expect(workers.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(workers.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Workers at once must be a whole number from 1 to 20.',
    );
    expect(screen.getByText('Worker timeout must be a whole number of seconds from 0 (no limit) to 86400.')).toBeTruthy();
    expect(screen.getByText('Retries must be a whole number from 0 to 10.')).toBeTruthy();
    expect(screen.getByLabelText('Inactivity timeout (seconds)').getAttribute('aria-invalid')).toBe('false');
    expect(advanced.open).toBe(true);
    expect(calls.some((c) => c.name === 'StartRun')).toBe(false);

    // The errors follow the fields.
    await fireEvent.input(workers, { target: { value: '3' } });
    expect(screen.queryByText('Workers at once must be a whole number from 1 to 20.')).toBeNull();
    expect(screen.getByText('Retries must be a whole number from 0 to 10.')).toBeTruthy();
  });

  it('puts a setting Go refused next to that setting', async () => {
    setup();
    answer('StartRun', () =>
      Promise.reject(
        'Create run: the number of workers at once (maxWorkers) must be from 1 to 20, not 7; the permission mode (permissionMode) must be one of default, acceptEdits, plan, bypassPermissions, not "plan".',
      ),
    );
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/src/app' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Document it' } });
    await fireEvent.input(screen.getByLabelText('Workers at once'), { target: { value: '7' } });
    await fireEvent.change(screen.getByLabelText('Permission mode'), { target: { value: 'plan' } });
    await start();
    expect(await screen.findByText('The number of workers at once (maxWorkers) must be from 1 to 20, not 7.')).toBeTruthy();
    expect(screen.getByLabelText('Workers at once').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Permission mode').getAttribute('aria-describedby')).toBe('err-adv-permissionMode');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('puts a folder Go refused next to the folder field', async () => {
    setup();
    answer('StartRun', () => Promise.reject('The folder /gone does not exist.'));
    await fireEvent.click(await screen.findByRole('radio', { name: /Documentation/ }));
    await screen.findByLabelText(/Output folder/);
    await fireEvent.input(screen.getByLabelText('Project folder'), { target: { value: '/gone' } });
    await fireEvent.input(screen.getByLabelText('Request'), { target: { value: 'Do it' } });
    await start();
    expect(await screen.findByText('The folder /gone does not exist.')).toBeTruthy();
    expect(screen.getByLabelText('Project folder').getAttribute('aria-invalid')).toBe('true');
  });

  it('fills the folder from the native dialog', async () => {
    setup();
    answer('ChooseFolder', () => Promise.resolve('/home/me/project'));
    await fireEvent.click(await screen.findByRole('button', { name: /Browse/ }));
    await waitFor(() => expect((screen.getByLabelText('Project folder') as HTMLInputElement).value).toBe('/home/me/project'));
  });
});
