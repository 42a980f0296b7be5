import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../test/fakes/App';
import Sessions from './Sessions.svelte';

const visible = { id: 'local_1', title: 'Fix the login bug', cwd: '/src/app', running: true, turnRunning: false, archived: false, hidden: false, pending: [] };
const worker = { id: 'local___orch_r1_worker_task_001', title: 'task_001', cwd: '/src/app', running: true, turnRunning: true, archived: false, hidden: true, pending: [] };

function setup() {
  answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator — no AI', state: 'connected' }));
  answer('ListSessions', (includeHidden) => Promise.resolve(includeHidden ? [visible, worker] : [visible]));
  answer('PendingPermissions', () =>
    Promise.resolve([{ requestId: 'perm_1', sessionId: 'local_1', tool: 'Bash', summary: 'Bash rm -rf build', input: '{}' }]),
  );
  answer('ReadSessionTranscript', () =>
    Promise.resolve({
      total: 3,
      skipped: 0,
      items: [
        { uuid: 'u1', timestamp: '', role: 'user', kind: 'text', text: 'Please fix it' },
        { uuid: 'a1', timestamp: '', role: 'assistant', kind: 'tool_use', text: '{"file_path":"login.go"}', tool: 'Read', summary: 'Read login.go' },
        { uuid: 'a2', timestamp: '', role: 'assistant', kind: 'text', text: 'Fixed.' },
      ],
    }),
  );
  render(Sessions);
}

describe('Sessions view', () => {
  it('lists sessions without hidden workers until asked', async () => {
    setup();
    expect(await screen.findByText('Fix the login bug')).toBeTruthy();
    expect(screen.queryByText('task_001')).toBeNull();
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Show hidden workers' }));
    expect(await screen.findByText('task_001')).toBeTruthy();
    expect(calls.filter((c) => c.name === 'ListSessions').map((c) => c.args[0])).toContain(true);
  });

  it('shows a transcript compactly and sends a message', async () => {
    setup();
    answer('SendToSession', () => Promise.resolve());
    await fireEvent.click(await screen.findByText('Fix the login bug'));
    expect(await screen.findByText('Read login.go')).toBeTruthy();
    expect(screen.getByText('Fixed.')).toBeTruthy();
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: 'Also add a test' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'SendToSession')?.args).toEqual(['local_1', 'Also add a test']));
    await waitFor(() => expect(box.value).toBe(''));
  });

  it('answers a pending permission prompt', async () => {
    setup();
    answer('RespondPermission', () => Promise.resolve());
    expect(await screen.findByText('Bash rm -rf build')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Allow once' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'RespondPermission')?.args).toEqual(['perm_1', 'once']));
  });

  it('groups identical prompts of a run under one set of buttons and answers them all through the run', async () => {
    const suggestions = [
      { rule: 'Bash(go test ./...)', label: 'this exact command' },
      { rule: 'Bash(go test:*)', label: 'commands that start with go test' },
    ];
    const prompt = (requestId: string, taskId: string) => ({
      requestId, sessionId: `local___orch_r1_worker_${taskId}`, tool: 'Bash', summary: 'Bash go test ./...', input: '{}',
      key: 'Bash\u0000{"command":"go test ./..."}', runId: 'r1', runName: 'Cover the store', taskId, suggestions,
    });
    answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator — no AI', state: 'connected' }));
    answer('ListSessions', () => Promise.resolve([visible]));
    answer('ReadSessionTranscript', () => Promise.resolve({ total: 0, skipped: 0, items: [] }));
    let pending = [
      prompt('perm_1', 'task_001'),
      prompt('perm_2', 'task_002'),
      { requestId: 'perm_3', sessionId: 'local_1', tool: 'Bash', summary: 'Bash go test ./...', input: '{}', key: 'Bash\u0000{"command":"go test ./..."}', suggestions: [] },
    ];
    answer('PendingPermissions', () => Promise.resolve(pending));
    answer('RespondPermission', (id) => {
      pending = pending.filter((p) => p.requestId !== id);
      return Promise.resolve();
    });
    render(Sessions);
    const title = await screen.findByText('Bash go test ./... — 2 workers');
    const group = title.closest('article') as HTMLElement;
    expect(group.textContent).toContain('Cover the store · task_001, task_002');
    // The same prompt of a session outside the run stands apart, without Allow for this run.
    expect(screen.getAllByRole('button', { name: 'Allow once' })).toHaveLength(2);
    expect(screen.getAllByRole('button', { name: 'Allow for this run' })).toHaveLength(1);
    await fireEvent.click(within(group).getByRole('button', { name: 'Allow once' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'RespondPermission').map((c) => c.args)).toEqual([['perm_1', 'once'], ['perm_2', 'once']]));
    await waitFor(() => expect(screen.queryByText('Bash go test ./... — 2 workers')).toBeNull());
    expect(screen.getByText('Bash wants permission')).toBeTruthy();
  });

  it('allows the rule picked for the run, which answers every prompt of the group', async () => {
    const suggestions = [
      { rule: 'Bash(go test ./...)', label: 'this exact command' },
      { rule: 'Bash(go test:*)', label: 'commands that start with go test' },
    ];
    let pending = ['task_001', 'task_002', 'task_003'].map((taskId, i) => ({
      requestId: `perm_${i}`, sessionId: `s_${taskId}`, tool: 'Bash', summary: 'Bash go test ./...', input: '{}',
      key: 'k', runId: 'r1', runName: 'Cover the store', taskId, suggestions,
    }));
    answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator — no AI', state: 'connected' }));
    answer('ListSessions', () => Promise.resolve([visible]));
    answer('PendingPermissions', () => Promise.resolve(pending));
    answer('AllowForRun', () => {
      pending = [];
      return Promise.resolve();
    });
    render(Sessions);
    await screen.findByText('Bash go test ./... — 3 workers');
    await fireEvent.change(screen.getByRole('combobox', { name: /Rule to allow for this run/ }), { target: { value: 'Bash(go test:*)' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Allow for this run' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'AllowForRun')?.args).toEqual(['r1', 'Bash(go test:*)']));
    expect(calls.filter((c) => c.name === 'RespondPermission')).toHaveLength(0);
    await waitFor(() => expect(screen.queryByText(/3 workers/)).toBeNull());
  });

  it('explains when the host cannot be reached', async () => {
    answer('HostStatus', () => Promise.resolve({ host: 'desktop', label: 'Claude Desktop', state: 'disconnected' }));
    answer('ListSessions', () => Promise.reject('Baton could not reach the session host (Claude Desktop): connection refused.'));
    answer('PendingPermissions', () => Promise.resolve([]));
    render(Sessions);
    expect(await screen.findByText(/connection refused/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Open Settings' })).toBeTruthy();
  });

  it('starts a new session in a folder and says why when Go refuses', async () => {
    setup();
    answer('StartSession', (cwd) => (cwd === '/missing' ? Promise.reject('The folder /missing does not exist.') : Promise.resolve('local_new')));
    await fireEvent.click(await screen.findByRole('button', { name: 'New session' }));
    const start = screen.getByRole('button', { name: 'Start session' }) as HTMLButtonElement;
    expect(start.disabled).toBe(true);
    await fireEvent.input(screen.getByLabelText('Folder'), { target: { value: '/missing' } });
    await fireEvent.input(screen.getByLabelText('First message'), { target: { value: 'Map the code' } });
    await fireEvent.click(start);
    expect((await screen.findByRole('alert')).textContent).toContain('/missing does not exist');
    await fireEvent.input(screen.getByLabelText('Folder'), { target: { value: '/src/app' } });
    await fireEvent.click(start);
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New session' })).toBeNull());
    expect(calls.filter((c) => c.name === 'StartSession').map((c) => c.args)).toEqual([
      ['/missing', 'Map the code'],
      ['/src/app', 'Map the code'],
    ]);
  });
});
