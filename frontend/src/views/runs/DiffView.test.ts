import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import type { FileDiff } from '../../lib/api';
import DiffView, { openBudget } from './DiffView.svelte';

// file is a Go file whose every line of n changed.
function file(path: string, n: number): FileDiff {
  const text = (v: number) => Array.from({ length: n }, (_, i) => `var x${i} = ${i * v}`).join('\n') + '\n';
  return { path, status: 'modified', added: n, removed: n, old: 'package p\n' + text(1), new: 'package p\n' + text(2) } as FileDiff;
}

const sectionOf = (path: string) => screen.getByRole('region', { name: `Diff of ${path}` });
const foldOf = (path: string) => within(sectionOf(path)).getByRole('button', { name: new RegExp(path.replace(/[./]/g, '\\$&')) });

// Observer is an IntersectionObserver the test drives: show(el) says el came
// near the screen.
class Observer {
  static all: Observer[] = [];
  targets: Element[] = [];
  constructor(private readonly cb: (entries: { isIntersecting: boolean; target: Element }[]) => void) {
    Observer.all.push(this);
  }
  observe(el: Element) {
    this.targets.push(el);
  }
  disconnect() {
    this.targets = [];
  }
  static show(el: Element) {
    for (const o of Observer.all) if (o.targets.includes(el)) o.cb([{ isIntersecting: true, target: el }]);
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  Observer.all = [];
});

describe('DiffView', () => {
  it('lists every file with +/- and opens files in order while their changed lines fit the budget; the rest start folded', async () => {
    const half = openBudget / 4; // each file changes 2 × half lines
    const files = [file('a.go', half), file('b.go', half), file('c.go', half)];
    render(DiffView, { files, label: 'Changes of t1' });
    const list = screen.getByRole('list', { name: 'Changed files' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      `a.go +${half} −${half}`,
      `b.go +${half} −${half}`,
      `c.go +${half} −${half}`,
    ]);
    expect(screen.getByText('3 files').parentElement?.textContent).toContain(`+${3 * half} −${3 * half}`);
    expect(foldOf('a.go').getAttribute('aria-expanded')).toBe('true');
    expect(foldOf('b.go').getAttribute('aria-expanded')).toBe('true');
    expect(foldOf('c.go').getAttribute('aria-expanded')).toBe('false');
    await waitFor(() => expect(sectionOf('b.go').querySelector('.cm-editor')).toBeTruthy());
    expect(sectionOf('c.go').querySelector('.cm-editor')).toBeNull();
    // The file list's link opens a folded file and scrolls to it.
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    try {
      await fireEvent.click(within(list).getByRole('button', { name: 'c.go' }));
    } finally {
      delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
    }
    expect(scrolled).toEqual([sectionOf('c.go')]);
    await waitFor(() => expect(sectionOf('c.go').querySelector('.cm-editor')).toBeTruthy());
    await fireEvent.click(screen.getByRole('button', { name: 'Collapse all' }));
    expect(document.querySelector('.cm-editor')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Expand all' }));
    await waitFor(() => expect(document.querySelectorAll('.cm-editor').length).toBe(3));
  });

  it('makes an open file’s editor only when the file comes near the screen, and keeps it', async () => {
    vi.stubGlobal('IntersectionObserver', Observer);
    render(DiffView, { files: [file('a.go', 3), file('b.go', 3)], label: 'Changes of t1' });
    // Both are open, neither is drawn yet: each waits with a placeholder.
    expect(foldOf('b.go').getAttribute('aria-expanded')).toBe('true');
    expect(document.querySelector('.cm-editor')).toBeNull();
    const pending = sectionOf('b.go').querySelector('[aria-busy="true"]');
    expect(pending).toBeTruthy();
    Observer.show(pending!);
    await waitFor(() => expect(sectionOf('b.go').querySelector('.cm-editor')).toBeTruthy());
    expect(sectionOf('a.go').querySelector('.cm-editor')).toBeNull();
    expect(sectionOf('b.go').querySelector('.cm-content')?.textContent).toContain('var x2 = 4');
    // Folded and opened again, it is drawn at once.
    await fireEvent.click(foldOf('b.go'));
    expect(sectionOf('b.go').querySelector('.cm-editor')).toBeNull();
    await fireEvent.click(foldOf('b.go'));
    await waitFor(() => expect(sectionOf('b.go').querySelector('.cm-editor')).toBeTruthy());
  });

  it('shows no content for a binary file or one too large, and no Open in editor without a handler', () => {
    const bin = { path: 'img.png', status: 'added', added: -1, removed: -1, binary: true, old: '', new: '' } as FileDiff;
    const big = { ...file('huge.go', 1), tooLarge: true, old: '', new: '' } as FileDiff;
    render(DiffView, { files: [bin, big], label: 'Changes of t1' });
    expect(sectionOf('img.png').textContent).toContain('A binary file');
    expect(sectionOf('huge.go').textContent).toContain('Larger than 1 MB');
    expect(screen.queryByRole('button', { name: 'Open in editor' })).toBeNull();
  });
});
