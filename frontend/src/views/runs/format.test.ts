import { describe, expect, it } from 'vitest';
import type { Run } from '../../lib/api';
import { currentStep, describePermission, headline, isActive, reachedEnd, runStatus, steps } from './format';

describe('runStatus', () => {
  it('never shows a green badge for a run with failures', () => {
    expect(runStatus('completed', { tasksFailed: 0, tasksSkipped: 0 })).toEqual({ label: 'Completed', tone: 'success' });
    expect(runStatus('completed', { tasksFailed: 2, tasksSkipped: 0 })).toEqual({ label: 'Completed with failures', tone: 'warning' });
    // A task the user skipped is no failure: Baton names the outcome, and a completed run with one is green.
    expect(runStatus('completed', { tasksFailed: 0, tasksSkipped: 1 })).toEqual({ label: 'Completed', tone: 'success' });
    expect(runStatus('error').tone).toBe('danger');
  });
});

describe('headline', () => {
  it('takes the first line, without simulator markers, cut by character', () => {
    expect(headline('[[sim:fast]] Document it\nin detail')).toBe('Document it');
    expect(headline('  ')).toBe('Untitled run');
    const long = `${'😀'.repeat(100)}`;
    expect(headline(long, 90)).toBe(`${'😀'.repeat(89)}…`);
  });
});

describe('describePermission', () => {
  it('cuts a long input to 160 characters without splitting one', () => {
    const detail = describePermission('Tool', { note: '😀'.repeat(200) }).detail;
    expect(detail.startsWith('Tool {"note":"😀')).toBe(true);
    expect(detail.endsWith('…')).toBe(true);
    expect([...new Intl.Segmenter().segment(detail.slice('Tool '.length))]).toHaveLength(160);
    expect(detail).not.toMatch(/[\uD800-\uDBFF]…/);
  });

  it('names the command or the file', () => {
    expect(describePermission('Bash', '{"command":"ls -la"}').detail).toBe('Bash: ls -la');
    expect(describePermission('Read', { file_path: '/a.go' }).detail).toBe('Read: /a.go');
  });
});

describe('outcomes', () => {
  it('names each outcome and keeps only a clean completion green', () => {
    expect(runStatus('completed_with_issues', { tasksFailed: 0, tasksSkipped: 0 })).toEqual({ label: 'Completed with issues', tone: 'warning' });
    expect(runStatus('failed')).toEqual({ label: 'Failed', tone: 'danger' });
    expect(runStatus('error')).toEqual({ label: 'Stopped with an error', tone: 'danger' });
  });
  it('treats every outcome as finished, at the end of the steps', () => {
    for (const status of ['completed_with_issues', 'failed']) {
      expect(isActive(status)).toBe(false);
      expect(reachedEnd(status)).toBe(true);
      expect(currentStep({ status, phase: 'verification' } as Run).index).toBe(steps.length);
    }
    expect(reachedEnd('cancelled')).toBe(false);
  });
});
