// The diff view alone, for the bench (e2e/diff-bench.mjs): it renders a
// generated 5,000-line diff and records how long it took, from the mount
// to the frame after CodeMirror drew it, and to the first syntax-coloured
// token. ?case=one (one file, every line changed) or ?case=many (50 files
// of 100 changed lines), &mode=split for side by side.
import { mount, flushSync } from 'svelte';
import '../../src/app.css';
import '../../src/lib/styles/forms.css';
import DiffView from '../../src/views/runs/DiffView.svelte';

const params = new URLSearchParams(location.search);
const kind = params.get('case') ?? 'one';

// lines makes n lines of Go-like code, version v.
function lines(n, v, file) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(i % 10 === 0 ? `// ${file}: block ${i / 10} (version ${v})` : `\tx${i} := compute("${file}", ${i * v}) // step ${i}`);
  }
  return out.join('\n') + '\n';
}

function files() {
  if (kind === 'many') {
    // 50 files, each with 50 lines removed and 50 added: 5,000 changed lines.
    return Array.from({ length: 50 }, (_, f) => {
      const path = `pkg${f}/file${f}.go`;
      return { path, status: 'modified', added: 50, removed: 50, old: lines(100, 1, path), new: mixed(path) };
    });
  }
  // One file of 2,500 lines, every line changed: 2,500 removed, 2,500 added.
  return [{ path: 'big/generated.go', status: 'modified', added: 2500, removed: 2500, old: lines(2500, 1, 'big'), new: lines(2500, 2, 'big') }];
}

// mixed is a file's new version with every other line changed.
function mixed(path) {
  const a = lines(100, 1, path).split('\n');
  const b = lines(100, 2, path).split('\n');
  return a.map((l, i) => (i % 2 === 0 ? b[i] : l)).join('\n');
}

const data = files();
const diffLines = data.reduce((s, f) => s + f.added + f.removed, 0);
const target = document.getElementById('app');
const t0 = performance.now();
mount(DiffView, { target, props: { files: data, label: 'Bench', mode: params.get('mode') === 'split' ? 'split' : 'unified' } });
flushSync();
const mounted = performance.now();
// inView is whether the files on the screen all have their editor (the view
// makes an open file's editor when it comes near the screen).
function inView() {
  if (document.querySelectorAll('.cm-editor').length === 0) return false;
  for (const p of document.querySelectorAll('.pending')) {
    const r = p.getBoundingClientRect();
    if (r.bottom > 0 && r.top < window.innerHeight) return false;
  }
  return true;
}

// until calls done with the time from t0 at the frame where ok holds (-1
// after 10 s).
function until(ok, done) {
  const tick = () => {
    if (ok()) done(performance.now() - t0);
    else if (performance.now() - t0 > 10_000) done(-1);
    else requestAnimationFrame(tick);
  };
  tick();
}

// Drawn: the frame after the files on the screen have their editors.
// Coloured: the first syntax-coloured token (the language loads after the
// first paint).
requestAnimationFrame(() =>
  until(inView, () =>
    requestAnimationFrame(() => {
      const painted = performance.now();
      const result = {
        case: kind,
        mode: params.get('mode') ?? 'unified',
        files: data.length,
        diffLines,
        editors: document.querySelectorAll('.cm-editor').length,
        linesDrawn: document.querySelectorAll('.cm-line').length,
        mountMs: mounted - t0,
        paintMs: painted - t0,
      };
      until(
        () => !!document.querySelector('.cm-line span[class*="ͼ"]'),
        (ms) => (window.__diffBench = { ...result, colouredMs: ms }),
      );
    }),
  ),
);
