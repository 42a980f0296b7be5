import { describe, expect, it } from 'vitest';
import { runStatus } from './format';

describe('runStatus', () => {
  it('never shows a green badge for a run with failures', () => {
    expect(runStatus('completed', { tasksFailed: 0, tasksSkipped: 0 })).toEqual({ label: 'Completed', tone: 'success' });
    expect(runStatus('completed', { tasksFailed: 2, tasksSkipped: 0 })).toEqual({ label: 'Completed with failures', tone: 'warning' });
    expect(runStatus('completed', { tasksFailed: 0, tasksSkipped: 1 }).tone).toBe('warning');
    expect(runStatus('error').tone).toBe('danger');
  });
});
