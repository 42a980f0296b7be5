import { describe, expect, it } from 'vitest';
import { describePermission, headline, runStatus } from './format';

describe('runStatus', () => {
  it('never shows a green badge for a run with failures', () => {
    expect(runStatus('completed', { tasksFailed: 0, tasksSkipped: 0 })).toEqual({ label: 'Completed', tone: 'success' });
    expect(runStatus('completed', { tasksFailed: 2, tasksSkipped: 0 })).toEqual({ label: 'Completed with failures', tone: 'warning' });
    expect(runStatus('completed', { tasksFailed: 0, tasksSkipped: 1 }).tone).toBe('warning');
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
