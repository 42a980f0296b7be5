// The diff view's timing: a 5,000-line diff rendered in headless Chromium,
// written to bench/REPORT.md (section "Diff view"). It builds the page in
// e2e/diff-bench/ (the real DiffView and CodeMirror merge view, production
// build), serves it, and loads it afresh for each sample: one file with
// 2,500 lines removed and 2,500 added, and 50 files of 100 changed lines,
// unified and side by side. A timing, never a test assertion.
//
//   node e2e/diff-bench.mjs [--runs N] [--out ../bench/REPORT.md]
//
// BATON_CHROME names the browser (default /usr/bin/chromium).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { build, preview } from 'vite';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : def;
};
const runs = Number(opt('--runs', '5'));
const out = resolve(root, opt('--out', '../bench/REPORT.md'));
const chrome = process.env.BATON_CHROME ?? '/usr/bin/chromium';
const log = (msg) => console.log(`[diff-bench] ${msg}`);

const outDir = mkdtempSync(join(tmpdir(), 'baton-diff-bench-'));
const loadStart = loadavg().map((l) => l.toFixed(2)).join(' ');
const started = Date.now();
await build({
  root,
  logLevel: 'warn',
  build: { outDir, emptyOutDir: true, rollupOptions: { input: resolve(root, 'e2e/diff-bench/index.html') } },
});
const server = await preview({ root, logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1', strictPort: false } });
const base = server.resolvedUrls.local[0].replace(/\/$/, '');
log(`page built and served at ${base}`);

const browser = await chromium.launch({
  executablePath: chrome,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const cases = [
  { kind: 'one', mode: 'unified', name: 'one file, 2,500 lines removed and 2,500 added, unified' },
  { kind: 'one', mode: 'split', name: 'the same, side by side' },
  { kind: 'many', mode: 'unified', name: '50 files of 50 removed and 50 added lines, unified' },
  { kind: 'many', mode: 'split', name: 'the same, side by side' },
];
const results = [];
try {
  for (const c of cases) {
    const samples = [];
    // One warm-up load first (the browser's caches), not counted.
    for (let i = 0; i <= runs; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, colorScheme: 'light' });
      const page = await ctx.newPage();
      await page.goto(`${base}/e2e/diff-bench/index.html?case=${c.kind}&mode=${c.mode}`);
      const r = await page.waitForFunction(() => window.__diffBench, undefined, { timeout: 60_000 }).then((h) => h.jsonValue());
      await ctx.close();
      if (i > 0) samples.push(r);
    }
    const med = (key) => median(samples.map((s) => s[key]));
    const worst = (key) => Math.max(...samples.map((s) => s[key]));
    const s0 = samples[0];
    results.push({ ...c, files: s0.files, diffLines: s0.diffLines, editors: s0.editors, linesDrawn: s0.linesDrawn, paint: [med('paintMs'), worst('paintMs')], coloured: [med('colouredMs'), worst('colouredMs')] });
    log(`${c.kind}/${c.mode}: drawn in ${ms(med('paintMs'))} (worst ${ms(worst('paintMs'))}), coloured in ${ms(med('colouredMs'))}`);
  }
} finally {
  await browser.close();
  await new Promise((r) => server.httpServer.close(r));
  rmSync(outDir, { recursive: true, force: true });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function ms(x) {
  return x < 0 ? 'never' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`;
}

const version = (() => {
  try {
    return execFileSync(chrome, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return chrome;
  }
})();
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
const now = new Date().toISOString().replace('T', ' ').slice(0, 16);
const loadEnd = loadavg().map((l) => l.toFixed(2)).join(' ');
const worstPaint = Math.max(...results.map((r) => r.paint[1]));
const section = [
  '## Diff view',
  '',
  `Written by \`make bench-diff\` (\`node frontend/e2e/diff-bench.mjs\`, page in \`frontend/e2e/diff-bench/\`) on ${now} UTC at commit ${commit}; it took ${Math.round((Date.now() - started) / 1000)} s. ${version}, headless, 1280×800; ${cpus().length} CPU cores shared with other work, load average **${loadStart}** at the start and **${loadEnd}** at the end.`,
  '',
  "The run view's diff (`DiffView.svelte`: the file list with +/−, each file in CodeMirror 6's merge view with line numbers and syntax colours, read-only) from a production build, loaded afresh for each sample; a warm-up load before each case is not counted. *Drawn*: from `mount` to the animation frame after every file on the screen has its editor (the view makes an open file's editor when the file comes within 600 px of the screen, and keeps it), painted. *Coloured*: until the first syntax-coloured token (each file's language loads on its own, after the first paint). The view opens files in order while their changed lines fit 4,000 and folds the rest; CodeMirror draws only the lines in and near the viewport, and folds unchanged stretches. *Open editors* counts the editors made by then (side by side has two per file); *line elements* are CodeMirror's `.cm-line`s of the new text (unified, one file: the 2,500 removed lines are one block drawn above the first new line, so one new line is on the screen).",
  '',
  `Target: a 5,000-line diff renders in under a second — **${worstPaint < 1000 ? 'met' : 'missed'}** (worst drawn sample ${ms(worstPaint)}).`,
  '',
  `| Diff | Changed lines | Files (open editors) | Line elements drawn | Drawn, median / worst of ${runs} | Coloured, median / worst |`,
  '|---|---|---|---|---|---|',
  ...results.map((r) => `| ${r.name} | ${r.diffLines.toLocaleString('en')} | ${r.files} (${r.editors}) | ${r.linesDrawn} | ${ms(r.paint[0])} / ${ms(r.paint[1])} | ${ms(r.coloured[0])} / ${ms(r.coloured[1])} |`),
  '',
].join('\n');

// The section replaces the one already there (the Go bench writes the rest of the report).
let report = existsSync(out) ? readFileSync(out, 'utf8') : '# Baton benchmark report\n\n';
const at = report.indexOf('\n## Diff view\n');
if (at >= 0) {
  const next = report.indexOf('\n## ', at + 1);
  report = report.slice(0, at + 1) + section + (next >= 0 ? report.slice(next) : '');
} else {
  report = report.replace(/\n*$/, '\n\n') + section;
}
writeFileSync(out, report);
log(`wrote the "Diff view" section of ${out}`);
