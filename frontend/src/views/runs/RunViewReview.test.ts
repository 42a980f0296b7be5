import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { snapshot, worker } from '../../test/fixtures/runs';
import { inboxStore } from '../../lib/stores/inbox';
import RunView from './RunView.svelte';

function card(taskId: string) {
  return screen.getByRole('article', { name: `Task ${taskId}` });
}

const reviewItem = (taskId: string) => ({
  kind: 'taskReview',
  runId: 'r1',
  runName: 'Documentation — Document the backend packages',
  taskId,
  title: `${taskId} waits for your review`,
  detail: 'Docs written',
  since: '2026-11-22T06:03:00Z',
});

describe('RunView: the user reviews tasks and answers questions', () => {
  it('approves a task that waits for the user, and refuses a rejection without a reason next to the form', async () => {
    const off = inboxStore.listen();
    emit('inbox:changed', { active: 1, items: [reviewItem('t1')] });
    answer('RunSnapshot', () =>
      Promise.resolve(snapshot({ workers: [worker('t1', { status: 'awaiting_review', summary: 'Wrote docs/store.md with examples', currentAction: '' })] })),
    );
    answer('ReviewTask', (_run, _task, approve, reason) =>
      approve || String(reason).trim() ? Promise.resolve() : Promise.reject('Say why you reject the task: the worker gets the reason for its next attempt.'),
    );
    render(RunView, { runId: 'r1' });
    const review = await waitFor(() => within(card('t1')).getByRole('group', { name: 'Your review' }));
    expect(within(review).getByText('Wrote docs/store.md with examples')).toBeTruthy();
    expect(screen.getByText('waiting for you')).toBeTruthy();

    await fireEvent.click(within(review).getByRole('button', { name: 'Reject' }));
    await waitFor(() =>
      expect(within(review).getByRole('alert').textContent).toBe('Say why you reject the task: the worker gets the reason for its next attempt.'),
    );
    expect(calls.find((c) => c.name === 'ReviewTask')?.args).toEqual(['r1', 't1', false, '']);
    // The error is shown next to the form, not as the run's banner.
    expect(screen.getAllByRole('alert')).toHaveLength(1);

    await fireEvent.input(within(review).getByLabelText('Reason for the review of t1'), { target: { value: '  Add an example  ' } });
    await fireEvent.click(within(review).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'ReviewTask').at(-1)?.args).toEqual(['r1', 't1', false, 'Add an example']));
    await waitFor(() => expect(within(review).queryByRole('alert')).toBeNull());
    expect((within(review).getByLabelText('Reason for the review of t1') as HTMLInputElement).value).toBe('');

    await fireEvent.click(within(review).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'ReviewTask').at(-1)?.args).toEqual(['r1', 't1', true, '']));
    off();
  });

  it('offers no review when the main session reviews the task', async () => {
    const off = inboxStore.listen();
    emit('inbox:changed', { active: 1, items: [] });
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1', { status: 'awaiting_review', summary: 'Done', currentAction: '' })] })));
    render(RunView, { runId: 'r1' });
    const c = await waitFor(() => card('t1'));
    expect(within(c).getByText('Awaiting review')).toBeTruthy();
    expect(within(c).queryByRole('button', { name: 'Approve' })).toBeNull();
    off();
  });

  it('answers the questions of a worker and shows a refusal next to the field', async () => {
    const asking = worker('t2', { questions: ['Which format?', 'Keep the v1 API?'], currentAction: 'waiting for an answer' });
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [asking] })));
    let refuse = true;
    answer('AnswerClarification', () => (refuse ? Promise.reject('Worker t2 is paused and has no open question.') : Promise.resolve()));
    render(RunView, { runId: 'r1' });
    const q = await waitFor(() => within(card('t2')).getByRole('group', { name: 'Questions for you' }));
    expect(within(q).getByText('Which format?')).toBeTruthy();
    expect(within(q).getByText('Keep the v1 API?')).toBeTruthy();
    const send = within(q).getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);

    const field = within(q).getByLabelText('Answer to the questions of t2') as HTMLTextAreaElement;
    await fireEvent.input(field, { target: { value: 'Markdown; keep v1.' } });
    await fireEvent.click(send);
    await waitFor(() => expect(within(q).getByRole('alert').textContent).toBe('Worker t2 is paused and has no open question.'));
    expect(field.value).toBe('Markdown; keep v1.');

    refuse = false;
    await fireEvent.click(send);
    await waitFor(() => expect(field.value).toBe(''));
    expect(calls.filter((c) => c.name === 'AnswerClarification').map((c) => c.args)).toEqual([
      ['r1', 't2', 'Markdown; keep v1.'],
      ['r1', 't2', 'Markdown; keep v1.'],
    ]);
    expect(within(q).queryByRole('alert')).toBeNull();
  });
});

describe('RunView: a refused review whose form is gone', () => {
  it('shows the refusal as the run banner once the task is no longer waiting', async () => {
    const off = inboxStore.listen();
    emit('inbox:changed', { active: 1, items: [reviewItem('t1')] });
    let status = 'awaiting_review';
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1', { status, summary: 'Done', currentAction: '' })] })));
    answer('ReviewTask', () => Promise.reject('Worker t1 is completed, not awaiting review.'));
    render(RunView, { runId: 'r1' });
    const review = await waitFor(() => within(card('t1')).getByRole('group', { name: 'Your review' }));
    await fireEvent.click(within(review).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(within(review).getByRole('alert').textContent).toBe('Worker t1 is completed, not awaiting review.'));

    status = 'completed';
    emit('inbox:changed', { active: 1, items: [] });
    emit('worker:completed', { runId: 'r1', status: 'running', taskId: 't1' });
    await waitFor(() => expect(within(card('t1')).queryByRole('group', { name: 'Your review' })).toBeNull());
    expect(screen.getByRole('alert').textContent).toBe('Worker t1 is completed, not awaiting review.');
    off();
  });
});
