import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { navigation } from '../../lib/stores/navigation';
import { openRun } from '../../lib/stores/openRun';
import App from '../../App.svelte';

const items = [
  { kind: 'review', runId: 'r1', runName: 'Documentation — Document the backend', title: 'Tasks to review', detail: 'Review the proposed tasks.', since: '2026-11-22T06:00:00Z' },
  { kind: 'permission', runId: 'r2', runName: 'Refactor — Split the store', taskId: 't4', requestId: 'p9', title: 't4 wants permission', detail: 'Bash: go test ./...', since: '2026-11-22T06:01:00Z' },
];

function setup() {
  answer('Ready', () => Promise.resolve({ version: '1.0.0', commit: '', buildDate: '', platform: '' }));
  answer('ActiveRuns', () => Promise.resolve([]));
  answer('Inbox', () => Promise.resolve([]));
  answer('GetSettings', () => Promise.reject('no settings in this test'));
  answer('HostStatus', () => Promise.resolve({ host: 'simulator', label: 'Simulator', state: 'connected' }));
  render(App);
}

const badge = () => screen.getByRole('navigation', { name: 'Main' }).querySelector('.count');

describe('Attention inbox', () => {
  it('counts what waits in the sidebar and lists it, live from inbox:changed', async () => {
    setup();
    await waitFor(() => expect(calls.some((c) => c.name === 'Inbox')).toBe(true));
    expect(badge()).toBeNull();
    emit('inbox:changed', { active: 2, items });
    await waitFor(() => expect(badge()?.textContent).toBe('2'));

    await fireEvent.click(within(screen.getByRole('navigation', { name: 'Main' })).getByText('Inbox'));
    const list = screen.getByRole('list', { name: 'Waiting for you' });
    expect(within(list).getByText('Tasks to review')).toBeTruthy();
    expect(within(list).getByText('Bash: go test ./...')).toBeTruthy();

    // An item that goes away by itself keeps its place, marked, while the view is open.
    emit('inbox:changed', { active: 1, items: [items[0]] });
    await waitFor(() => expect(within(list).getByText('No longer waiting')).toBeTruthy());
    expect(within(list).getAllByRole('listitem')[1].textContent).toContain('Bash: go test ./...');
    expect(badge()?.textContent).toBe('1');
  });

  it('opens the run of an item', async () => {
    setup();
    answer('RunSnapshot', () => new Promise(() => {}));
    emit('inbox:changed', { active: 1, items });
    navigation.go('inbox');
    await fireEvent.click(await screen.findByRole('button', { name: 'Review' }));
    expect(get(navigation)).toBe('runs');
    expect(get(openRun)).toBe('r1');
  });

  it('answers a permission prompt from the inbox', async () => {
    setup();
    answer('AnswerWorker', () => Promise.resolve());
    emit('inbox:changed', { active: 1, items });
    navigation.go('inbox');
    await fireEvent.click(await screen.findByRole('button', { name: 'Deny' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'AnswerWorker')?.args).toEqual(['r2', 't4', 'deny']));
  });

  it('moves the keyboard on as soon as the answer is taken, before the list is read again', async () => {
    setup();
    answer('AnswerWorker', () => Promise.resolve());
    const second = { ...items[1], taskId: 't5', requestId: 'p10', title: 't5 wants permission', detail: 'Bash: go vet ./...' };
    emit('inbox:changed', { active: 2, items: [items[1], second] });
    navigation.go('inbox');
    const list = await screen.findByRole('list', { name: 'Waiting for you' });
    // The Inbox read after the answer never returns.
    answer('Inbox', () => new Promise(() => {}));
    const [first, next] = within(list).getAllByRole('listitem');
    const allow = within(first).getByRole('button', { name: 'Allow once' });
    allow.focus();
    await fireEvent.click(allow);
    await waitFor(() => expect(within(first).getByText('Allowed once')).toBeTruthy());
    await waitFor(() => expect(document.activeElement).toBe(within(next).getByRole('button', { name: 'Allow once' })));
  });

  it('groups identical prompts of a run under one set of buttons; Allow for this run sends the rule picked', async () => {
    setup();
    answer('AnswerWorker', () => Promise.resolve());
    answer('AllowForRun', () => Promise.resolve());
    const suggestions = [
      { rule: 'Bash(go test ./...)', label: 'this exact command' },
      { rule: 'Bash(go test:*)', label: 'commands that start with go test' },
      { rule: 'Bash', label: 'every Bash call' },
    ];
    const prompt = (taskId: string, requestId: string) => ({
      kind: 'permission', runId: 'r2', runName: 'Tests — Cover the store', taskId, requestId, title: `${taskId} wants permission`,
      detail: 'Bash: go test ./...', summary: 'go test ./...', key: 'Bash\u0000{"command":"go test ./..."}', suggestions, since: '2026-11-22T06:01:00Z',
    });
    const grouped = [prompt('t1', 'p1'), prompt('t2', 'p2'), prompt('t3', 'p3'), prompt('t4', 'p4'),
      { ...prompt('t5', 'p5'), key: 'Bash\u0000{"command":"go vet ./..."}', summary: 'go vet ./...', detail: 'Bash: go vet ./...' },
      { ...prompt('t1', 'p6'), runId: 'r3' }];
    answer('Inbox', () => Promise.resolve(grouped));
    emit('inbox:changed', { active: 2, items: grouped });
    navigation.go('inbox');
    const list = await screen.findByRole('list', { name: 'Waiting for you' });
    // Four identical prompts of r2 are one item; go vet and the prompt of r3 stand alone.
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    const group = within(list).getByText('go test ./... — 4 workers').closest('li') as HTMLElement;
    expect(within(group).getByText('t1, t2, t3, t4')).toBeTruthy();

    await fireEvent.click(within(group).getByRole('button', { name: 'Allow once' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'AnswerWorker').map((c) => c.args)).toEqual(
      ['t1', 't2', 't3', 't4'].map((t) => ['r2', t, 'once']),
    ));

    // The group keeps its place as one item, saying what was done; the keyboard goes on to the next prompt.
    await waitFor(() => expect(within(group).getByText('Allowed once')).toBeTruthy());
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    expect(within(group).queryByRole('button', { name: 'Allow once' })).toBeNull();
    const vet = within(list).getAllByRole('listitem')[1];
    await waitFor(() => expect(document.activeElement).toBe(within(vet).getByRole('button', { name: 'Allow once' })));

    const other = within(list).getAllByRole('listitem')[2];
    expect(other.textContent).toContain('t1 wants permission');
    await fireEvent.change(within(other).getByRole('combobox'), { target: { value: 'Bash(go test:*)' } });
    await fireEvent.click(within(other).getByRole('button', { name: 'Allow for this run' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'AllowForRun')?.args).toEqual(['r3', 'Bash(go test:*)']));
    expect(calls.filter((c) => c.name === 'AllowForRun')).toHaveLength(1);
    expect(await within(other).findByText('Allowed for this run')).toBeTruthy();
  });

  it('approves and rejects a task review inline; a refusal shows next to it', async () => {
    setup();
    const review = { kind: 'taskReview', runId: 'r3', runName: 'Docs — Write it', taskId: 't2', title: 't2 waits for your review', detail: 'Wrote the guide', since: '2026-11-22T06:02:00Z' };
    answer('ReviewTask', (_run, _task, approve, reason) =>
      approve || String(reason).trim() ? Promise.resolve() : Promise.reject('Say why you reject the task: the worker gets the reason for its next attempt.'),
    );
    answer('Inbox', () => Promise.resolve([review]));
    emit('inbox:changed', { active: 1, items: [review] });
    navigation.go('inbox');
    const form = await screen.findByRole('group', { name: 'Review of t2' });
    expect(screen.getByText('Wrote the guide')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Open run' })).toBeNull();

    await fireEvent.click(within(form).getByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('Say why you reject the task: the worker gets the reason for its next attempt.')).toBeTruthy();
    expect(calls.find((c) => c.name === 'ReviewTask')?.args).toEqual(['r3', 't2', false, '']);

    await fireEvent.input(within(form).getByLabelText('Reason for the review of t2'), { target: { value: 'Too short' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'ReviewTask').at(-1)?.args).toEqual(['r3', 't2', false, 'Too short']));
    await waitFor(() => expect(screen.queryByText(/Say why you reject/)).toBeNull());
    // The item stays where it was, saying what was done.
    expect(await screen.findByText('Rejected')).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Review of t2' })).toBeNull();
  });

  it('approves a task review inline', async () => {
    setup();
    const review = { kind: 'taskReview', runId: 'r3', runName: 'Docs — Write it', taskId: 't2', title: 't2 waits for your review', detail: 'Wrote the guide', since: '2026-11-22T06:02:00Z' };
    answer('ReviewTask', () => Promise.resolve());
    emit('inbox:changed', { active: 1, items: [review] });
    navigation.go('inbox');
    const form = await screen.findByRole('group', { name: 'Review of t2' });
    await fireEvent.click(within(form).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'ReviewTask').at(-1)?.args).toEqual(['r3', 't2', true, '']));
    expect(await screen.findByText('Approved')).toBeTruthy();
  });

  it('keeps the items in place while they are answered, and the keyboard goes on to the next', async () => {
    setup();
    const three = ['t1', 't2', 't3'].map((t, i) => ({
      kind: 'permission', runId: 'r2', runName: 'Refactor', taskId: t, requestId: `p${i}`, title: `${t} wants permission`, detail: `Bash: step ${i}`, since: '2026-11-22T06:01:00Z',
    }));
    let left = three;
    answer('AnswerWorker', (_run, task) => {
      left = left.filter((i) => i.taskId !== task);
      return Promise.resolve();
    });
    answer('Inbox', () => Promise.resolve(left));
    emit('inbox:changed', { active: 1, items: three });
    navigation.go('inbox');
    const list = await screen.findByRole('list', { name: 'Waiting for you' });
    const rows = () => within(list).getAllByRole('listitem');
    const first = within(rows()[0]).getByRole('button', { name: 'Allow once' });
    first.focus();
    await fireEvent.click(first);
    await waitFor(() => expect(within(rows()[0]).getByText('Allowed once')).toBeTruthy());
    // Nothing moved: the second prompt is still second, and has the focus.
    expect(rows().map((r) => r.textContent?.includes('t2 wants permission'))).toEqual([false, true, false]);
    await waitFor(() => expect(document.activeElement).toBe(within(rows()[1]).getByRole('button', { name: 'Allow once' })));
    // The keyboard answers it: Enter on the focused button.
    (document.activeElement as HTMLButtonElement).click();
    await waitFor(() => expect(within(rows()[1]).getByText('Allowed once')).toBeTruthy());
    expect(calls.filter((c) => c.name === 'AnswerWorker').map((c) => c.args[1])).toEqual(['t1', 't2']);
    expect(badge()?.textContent).toBe('1');
  });

  it('answers the clarification questions of a worker inline', async () => {
    setup();
    const question = { kind: 'question', runId: 'r3', runName: 'Docs — Write it', taskId: 't5', title: 't5 asks you', detail: 'Which format?\nKeep v1?', since: '2026-11-22T06:02:00Z' };
    answer('AnswerClarification', () => Promise.resolve());
    answer('Inbox', () => Promise.resolve([]));
    emit('inbox:changed', { active: 1, items: [question] });
    navigation.go('inbox');
    const form = await screen.findByRole('form', { name: 'Answer to t5' });
    const send = within(form).getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    await fireEvent.input(within(form).getByLabelText('Answer to the questions of t5'), { target: { value: 'Markdown, and yes.' } });
    await fireEvent.click(send);
    await waitFor(() => expect(calls.find((c) => c.name === 'AnswerClarification')?.args).toEqual(['r3', 't5', 'Markdown, and yes.']));
    expect(await screen.findByText('Answer sent')).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Answer to t5' })).toBeNull();
  });

  it('answers a prompt of a main session through the engine, and opens the run of a failed verification', async () => {
    setup();
    const items = [
      { kind: 'permission', runId: 'r4', runName: 'Docs — Write it', requestId: 'm1', sessionId: 'local_main', title: 'The main session wants permission', detail: 'Bash ls', since: '2026-11-22T06:02:00Z' },
      { kind: 'verification', runId: 'r5', runName: 'Refactor — Split it', title: 'Verification failed', detail: 'go vet fails', since: '2026-11-22T06:03:00Z' },
    ];
    answer('AnswerMain', () => Promise.resolve());
    answer('Inbox', () => Promise.resolve(items.slice(1)));
    answer('RunSnapshot', () => new Promise(() => {}));
    emit('inbox:changed', { active: 2, items });
    navigation.go('inbox');
    await fireEvent.click(await screen.findByRole('button', { name: 'Always' }));
    await waitFor(() => expect(calls.find((c) => c.name === 'AnswerMain')?.args).toEqual(['r4', 'm1', 'always']));
    expect(calls.some((c) => c.name === 'AnswerWorker')).toBe(false);

    const verification = screen.getByText('Verification failed').closest('li')!;
    expect(verification.dataset.kind).toBe('verification');
    await fireEvent.click(within(verification).getByRole('button', { name: 'Open run' }));
    expect(get(navigation)).toBe('runs');
    expect(get(openRun)).toBe('r5');
  });

  it('opens the Inbox when a desktop notification about several runs is clicked (inbox:open)', async () => {
    setup();
    navigation.go('history');
    emit('inbox:open', null);
    expect(get(navigation)).toBe('inbox');
  });

  it('opens a run when a desktop notification is clicked (run:open)', async () => {
    setup();
    answer('RunSnapshot', () => new Promise(() => {}));
    navigation.go('history');
    emit('run:open', 'r7');
    expect(get(navigation)).toBe('runs');
    expect(get(openRun)).toBe('r7');
  });
});
