import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { answer, calls } from '../test/fakes/App';
import Settings from './Settings.svelte';

const defaults = {
  host: 'simulator',
  cdpEndpoint: 'http://127.0.0.1:9222',
  allowRemoteCdp: false,
  pagePattern: '',
  chromePath: '',
  headless: true,
  pollIntervalMs: 2000,
  notifications: true,
  theme: 'system',
  recentFolders: [],
  claudePath: '',
  reconnectForSeconds: 120,
  autoResumeAfterLimit: true,
};

// The kinds as Go registers them (backend/hosts): the form shows what each owns.
const kinds = [
  { name: 'simulator', label: 'Simulator — no AI', description: 'A scripted agent in a local Chromium page.', fields: ['chromePath', 'headless', 'pollIntervalMs'] },
  { name: 'desktop', label: 'Claude Desktop', description: 'Your Claude Desktop app.', fields: ['cdpEndpoint', 'pagePattern', 'allowRemoteCdp', 'pollIntervalMs'] },
  { name: 'claude-code', label: 'Claude Code (CLI)', description: 'One claude process per session.', fields: ['claudePath'] },
];

// cli is what Go found of the Claude Code CLI.
const cli = (over: Record<string, unknown> = {}) => ({ host: 'claude-code', label: 'Claude Code (CLI)', inUse: false, ...over });

function view(settings = defaults, problem = '', programs = [cli()]) {
  return { settings: { ...settings }, path: '/home/u/.config/baton/settings.json', problem, startAdvice: 'Quit Claude Desktop fully, then start it with --remote-debugging-port=9222', programs };
}

// report is a doctor's report of Claude Desktop, failed unless over says.
function report(over: Record<string, unknown>) {
  return { host: 'desktop', label: 'Claude Desktop', ok: false, target: 'http://127.0.0.1:9222', version: '', checks: [], lists: [], ...over };
}

function setup(problem = '', hostKinds: unknown[] = kinds) {
  answer('RemoteAccessStatus', () => Promise.resolve({ running: false, listen: '127.0.0.1:8390', tls: false, behindProxy: false, headless: false, fromBrowser: false, browsers: 0, hasLink: false }));
  answer('GetMachines', () => Promise.resolve({ machines: [], path: '/cfg/machines.json' }));
  answer('GetSettings', () => Promise.resolve(view(defaults, problem)));
  answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator — no AI', state: 'idle' }));
  answer('HostKinds', () => Promise.resolve(hostKinds));
  render(Settings);
}

describe('Settings view', () => {
  it('offers the kinds Go registers and shows the fields the chosen one owns', async () => {
    setup();
    const radios = (await screen.findAllByRole('radio')) as HTMLInputElement[];
    expect(radios.map((r) => r.value)).toEqual(['simulator', 'desktop', 'claude-code']);
    expect(screen.getByText('A scripted agent in a local Chromium page.')).toBeTruthy();
    // The simulator's own: its browser and the poll interval.
    expect(screen.getByLabelText('Chrome or Chromium')).toBeTruthy();
    expect((screen.getByRole('checkbox', { name: /without a window/ }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Poll interval (ms)') as HTMLInputElement).value).toBe('2000');
    expect(screen.queryByLabelText('CLI path')).toBeNull();
    // The CLI owns only its path: the simulator's fields go.
    await fireEvent.click(screen.getByRole('radio', { name: /Claude Code/ }));
    expect(screen.getByLabelText('CLI path')).toBeTruthy();
    expect(screen.queryByLabelText('Chrome or Chromium')).toBeNull();
    expect(screen.queryByLabelText('Poll interval (ms)')).toBeNull();
    expect(screen.queryByText(/--remote-debugging-port/)).toBeNull();
  });

  it('shows a field of a kind from the table by its key, and one it does not know by its value', async () => {
    setup('', [
      { name: 'simulator', label: 'Simulator — no AI', description: '', fields: ['headless'] },
      { name: 'elsewhere', label: 'Another machine', description: 'Runs the CLI there.', fields: ['claudePath', 'notifications', 'reconnectForSeconds'] },
    ]);
    answer('SaveSettings', (s) => Promise.resolve(view(s as typeof defaults)));
    await fireEvent.click(await screen.findByRole('radio', { name: /Another machine/ }));
    expect(screen.queryByRole('checkbox', { name: /without a window/ })).toBeNull();
    await fireEvent.input(screen.getByLabelText('CLI path'), { target: { value: '/usr/bin/claude' } });
    // Not in the table: a checkbox for a boolean, a number box for a number, named by the key.
    const unknown = screen.getByRole('checkbox', { name: 'notifications' }) as HTMLInputElement;
    expect(unknown.checked).toBe(true);
    await fireEvent.click(unknown);
    expect((screen.getByLabelText('reconnectForSeconds') as HTMLInputElement).type).toBe('number');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(calls.find((c) => c.name === 'SaveSettings')?.args[0]).toMatchObject({ host: 'elsewhere', claudePath: '/usr/bin/claude', notifications: false }),
    );
  });

  it('says why the host kinds could not be read', async () => {
    answer('GetSettings', () => Promise.resolve(view()));
    answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator — no AI', state: 'idle' }));
    answer('HostKinds', () => Promise.reject('Baton could not list the session hosts.'));
    answer('RemoteAccessStatus', () => Promise.resolve({ running: false, listen: '127.0.0.1:8390', tls: false, behindProxy: false, headless: false, fromBrowser: false, browsers: 0, hasLink: false }));
    answer('GetMachines', () => Promise.resolve({ machines: [], path: '/cfg/machines.json' }));
  answer('GetMachines', () => Promise.resolve({ machines: [], path: '/cfg/machines.json' }));
    render(Settings);
    expect((await screen.findByRole('alert')).textContent).toContain('could not list the session hosts');
  });

  it('shows the host choice and, for Claude Desktop, the endpoint and how to start it', async () => {
    setup();
    const desktop = await screen.findByRole('radio', { name: /Claude Desktop/ });
    expect((screen.getByRole('radio', { name: /Simulator/ }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByLabelText('CDP endpoint')).toBeNull();
    await fireEvent.click(desktop);
    expect((screen.getByLabelText('CDP endpoint') as HTMLInputElement).value).toBe('http://127.0.0.1:9222');
    expect(screen.getByText(/--remote-debugging-port=9222/)).toBeTruthy();
    expect(screen.queryByText(/has no password/)).toBeNull();
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Allow an endpoint on another machine' }));
    expect(screen.getByText(/has no password/)).toBeTruthy();
  });

  it('offers the Claude Code CLI found on PATH and shows its path and version once chosen', async () => {
    answer('RemoteAccessStatus', () => Promise.resolve({ running: false, listen: '127.0.0.1:8390', tls: false, behindProxy: false, headless: false, fromBrowser: false, browsers: 0, hasLink: false }));
    answer('GetMachines', () => Promise.resolve({ machines: [], path: '/cfg/machines.json' }));
  answer('GetMachines', () => Promise.resolve({ machines: [], path: '/cfg/machines.json' }));
    answer('GetSettings', () => Promise.resolve(view(defaults, '', [cli({ path: '/usr/local/bin/claude' })])));
    answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator — no AI', state: 'idle' }));
    answer('HostKinds', () => Promise.resolve(kinds));
    render(Settings);
    expect((await screen.findByRole('radio', { name: /Simulator/ }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText(/\/usr\/local\/bin\/claude/)).toBeTruthy();
    expect(screen.queryByLabelText('CLI path')).toBeNull();
    answer('SaveSettings', (s) => Promise.resolve(view(s as typeof defaults, '', [cli({ inUse: true, version: '2.1.328' })])));
    await fireEvent.click(screen.getByRole('button', { name: 'Use Claude Code (CLI)' }));
    expect((screen.getByRole('radio', { name: /Claude Code \(CLI\)/ }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByRole('button', { name: /^Use / })).toBeNull();
    expect(screen.getByText('shown once saved')).toBeTruthy();
    const path = screen.getByLabelText('CLI path') as HTMLInputElement;
    await fireEvent.input(path, { target: { value: '/opt/claude/bin/claude' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByText('Claude Code (CLI) 2.1.328')).toBeTruthy());
    const saved = calls.find((c) => c.name === 'SaveSettings');
    expect(saved?.args[0]).toMatchObject({ host: 'claude-code', claudePath: '/opt/claude/bin/claude' });
  });

  it('keeps Save disabled while a value is invalid and says why', async () => {
    setup();
    const poll = (await screen.findByLabelText('Poll interval (ms)')) as HTMLInputElement;
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true); // nothing changed yet
    await fireEvent.input(poll, { target: { value: '10' } });
    expect(save.disabled).toBe(true);
    expect(screen.getByRole('status').textContent).toContain('between 100 and 60000');
    await fireEvent.input(poll, { target: { value: '500' } });
    expect(save.disabled).toBe(false);
  });

  it('edits how long a lost host is waited for, within 1 to 3600 seconds', async () => {
    setup();
    answer('SaveSettings', (s) => Promise.resolve(view(s as typeof defaults)));
    const wait = (await screen.findByLabelText('Wait for a lost host (s)')) as HTMLInputElement;
    expect(wait.value).toBe('120');
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    await fireEvent.input(wait, { target: { value: '0' } });
    expect(save.disabled).toBe(true);
    expect(screen.getByRole('status').textContent).toContain('between 1 and 3600 seconds');
    await fireEvent.input(wait, { target: { value: '30' } });
    expect(save.disabled).toBe(false);
    await fireEvent.click(save);
    await waitFor(() => expect(calls.find((c) => c.name === 'SaveSettings')?.args[0]).toMatchObject({ reconnectForSeconds: 30 }));
  });

  it('saves the form and shows the sentence Go answers with when it refuses', async () => {
    setup();
    answer('SaveSettings', () => Promise.reject('The poll interval must be between 100 and 60000 milliseconds, not 50.'));
    await fireEvent.click(await screen.findByRole('checkbox', { name: /Desktop notifications/ }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('not 50');
    const saved = calls.find((c) => c.name === 'SaveSettings');
    expect(saved?.args[0]).toMatchObject({ notifications: false, host: 'simulator' });
  });

  it("saves the user's permission rules one a line, and shows Go's refusal naming a rule that does not parse", async () => {
    setup();
    answer('SaveSettings', (s) =>
      (s as { permissions: { deny: string[] } }).permissions.deny.includes('rm -rf')
        ? Promise.reject('Settings: the permission rules: not a permission rule: "rm -rf" does not start with a tool name.')
        : Promise.resolve(view(s as typeof defaults)),
    );
    await fireEvent.input(await screen.findByLabelText('Allow'), { target: { value: 'Bash(go test:*)\n \nEdit(docs/**) ' } });
    await fireEvent.input(screen.getByLabelText('Deny'), { target: { value: 'Bash(rm:*)\nrm -rf' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toContain('"rm -rf"');
    expect(calls.find((c) => c.name === 'SaveSettings')?.args[0]).toMatchObject({
      permissions: { allow: ['Bash(go test:*)', 'Edit(docs/**)'], deny: ['Bash(rm:*)', 'rm -rf'] },
    });
  });

  it('applies the theme once saved', async () => {
    setup();
    answer('SaveSettings', (s) => Promise.resolve(view(s as typeof defaults)));
    const theme = (await screen.findByLabelText('Theme')) as HTMLSelectElement;
    await fireEvent.change(theme, { target: { value: 'dark' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
  });

  it('reports a broken settings file and resets only after confirmation', async () => {
    setup('settings.json is not valid JSON at line 3, column 1; Baton uses its defaults');
    answer('ResetSettings', () => Promise.resolve(view()));
    expect((await screen.findByRole('alert')).textContent).toContain('not valid JSON');
    await fireEvent.click(screen.getByRole('button', { name: 'Reset to defaults…' }));
    expect(calls.some((c) => c.name === 'ResetSettings')).toBe(false);
    await fireEvent.click(screen.getByRole('button', { name: 'Reset to defaults' }));
    await waitFor(() => expect(calls.some((c) => c.name === 'ResetSettings')).toBe(true));
  });

  it('tests the connection and lists each check with its fix', async () => {
    setup();
    answer('TestConnection', () =>
      Promise.resolve(
        report({
          checks: [
            { name: 'Endpoint', ok: false, detail: 'nothing listens on 127.0.0.1:9222', fix: 'Start Claude Desktop with --remote-debugging-port=9222.' },
          ],
        }),
      ),
    );
    await fireEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
    const shown = await screen.findByLabelText('Connection report');
    expect(shown.textContent).toContain('Connection does not work yet.');
    expect(shown.textContent).toContain('Start Claude Desktop with --remote-debugging-port=9222.');
  });

  it('lists what a report itemizes, missing items marked', async () => {
    setup();
    answer('TestConnection', () =>
      Promise.resolve(
        report({
          checks: [{ name: 'methods', ok: false, detail: 'missing: getTranscript', fix: 'Update Claude Desktop.' }],
          lists: [
            {
              title: 'LocalSessions methods',
              items: [
                { name: 'getAll', ok: true, state: 'present', note: 'required' },
                { name: 'getTranscript', ok: false, state: 'missing', note: 'required' },
              ],
            },
          ],
        }),
      ),
    );
    await fireEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
    const shown = await screen.findByLabelText('Connection report');
    expect(shown.textContent).toContain('LocalSessions methods:');
    const missing = [...shown.querySelectorAll('li.missing')].map((li) => li.textContent);
    expect(missing).toEqual(['getTranscript']);
    expect(shown.querySelector('li[title="present, required"]')?.textContent).toBe('getAll');
  });
});
