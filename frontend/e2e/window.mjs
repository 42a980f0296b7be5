// The window as a person meets it, through the real frontend and the real Go
// bindings (wails dev at BATON_URL, on the embedded simulator), in Chromium at
// 1280×800:
//   1. A run whose sessions ask before a Write ([[sim:scenario=needs-permission]],
//      permission mode "default"): the main session has its own card while it
//      analyses; a worker card waits for permission, Allow once is clicked, and
//      the card no longer says it waits: it shows what the worker does now.
//      Another prompt is answered from the Inbox with the keyboard alone, and
//      the item keeps its place. The run is then cancelled.
//   2. axe-core checks every view (Runs, the run view, New run, Inbox,
//      Templates and the template editor, Sessions, History, Settings), light
//      and dark: no serious or critical violation.
//   3. History fits the window without a horizontal scrollbar; focus is
//      visible on what the keyboard reaches.
// Run by scripts/e2e.sh (make e2e, part of make test), after run-flow.mjs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const base = process.env.BATON_URL ?? 'http://127.0.0.1:34115';
const folder = process.env.BATON_E2E_WINDOW_FOLDER;
if (!folder) {
  console.error('BATON_E2E_WINDOW_FOLDER must name the project folder to run on');
  process.exit(2);
}
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const minute = 60_000;
const started = Date.now();
const log = (msg) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const problems = [];
const check = (ok, what) => {
  if (ok) log(`ok: ${what}`);
  else {
    problems.push(what);
    console.error(`FAIL: ${what}`);
  }
};

const browser = await chromium.launch({
  executablePath: process.env.BATON_CHROME ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
const page = await context.newPage();
page.setDefaultTimeout(30_000);
const nav = page.getByRole('navigation', { name: 'Main' });
const status = page.getByTestId('run-status');
let checked = 0;

/** Runs axe-core on the page as it is, in the light and the dark theme; serious and critical violations fail. */
async function axe(view) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await sleep(150);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    for (const v of result.violations.filter((v) => !bad.includes(v))) log(`axe (${v.impact}) ${view}, ${scheme}: ${v.id}: ${v.help}`);
    check(
      bad.length === 0,
      `axe: ${view} (${scheme}) has no serious or critical violation${bad
        .map((v) => `\n    ${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ')}`)
        .join('')}`,
    );
    checked++;
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function go(view) {
  // Inbox carries its count in its name ("Inbox 2 waiting").
  await nav.getByRole('button', { name: new RegExp(`^${view}(\\s|$)`) }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await sleep(300);
}

let failed = false;
try {
  await page.goto(base);
  await nav.waitFor();
  await go('Runs');
  await axe('Runs');

  // ---- 1. A run whose sessions ask before a Write -----------------------
  await go('New run');
  await page.getByRole('radio', { name: /^Documentation/ }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(folder);
  await page.getByRole('textbox', { name: 'Request' }).fill('Document the inventory service: one page per package [[sim:scenario=needs-permission]]');
  await page.getByText('Advanced', { exact: true }).click();
  await page.getByLabel('Permission mode').selectOption('default');
  await axe('New run');
  await page.getByRole('button', { name: 'Start run' }).click();
  await status.waitFor({ timeout: minute });

  const mainCard = page.getByRole('article', { name: 'Main session' });
  check(await mainCard.waitFor({ timeout: minute }).then(() => true, () => false), 'the main session has its own card while it analyses');
  await axe('the run view (analysis)');
  const confirm = page.getByRole('button', { name: 'Confirm and start' });
  const mainPrompt = page.getByRole('group', { name: 'The main session waits for you' });
  for (const deadline = Date.now() + 3 * minute; !(await confirm.isVisible()); ) {
    if (Date.now() > deadline) throw new Error('the task list did not come within 3 minutes');
    if (await mainPrompt.first().isVisible()) await mainPrompt.first().getByRole('button', { name: 'Always' }).click();
    await sleep(300);
  }
  await axe('the task review');
  await confirm.click();
  log('tasks confirmed; waiting for a worker to ask');

  const cards = page.getByRole('region', { name: 'Workers' }).getByRole('article');
  const asking = cards.filter({ has: page.getByRole('group', { name: 'Waiting for your answer' }) });
  await asking.first().waitFor({ timeout: 2 * minute });
  await axe('the run view (workers waiting)');
  const name = await asking.first().getAttribute('aria-label');
  const card = page.getByRole('article', { name, exact: true });
  check(/waits for you/i.test((await card.textContent()) ?? ''), `${name} waits for permission`);
  await card.getByRole('button', { name: 'Allow once' }).click();
  let after = '';
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(250)) {
    after = ((await card.textContent()) ?? '').replace(/\s+/g, ' ');
    if (!/waits for you|waiting for permission/i.test(after)) break;
  }
  check(!/waits for you|waiting for permission/i.test(after), `after Allow once ${name} no longer says it waits: "${after.slice(0, 160)}"`);
  const runningTool = await card.getByTestId('running-tool').textContent({ timeout: 500 }).catch(() => '');
  log(`${name} after the answer: ${runningTool ? `runs ${runningTool.replace(/\s+/g, ' ')}` : after.slice(0, 120)}`);
  if (process.env.BATON_E2E_RUN_SHOT) {
    // The README's picture of a run: a worker's running tool, others waiting for you.
    if (!runningTool) await sleep(2500);
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await page.mouse.move(1278, 798);
    await page.screenshot({ path: process.env.BATON_E2E_RUN_SHOT });
    log(`wrote ${process.env.BATON_E2E_RUN_SHOT}`);
  }

  // Another prompt, from the Inbox, with the keyboard: it keeps its place.
  await go('Inbox');
  const items = page.getByRole('list', { name: 'Waiting for you' }).getByRole('listitem');
  const pending = items.filter({ has: page.getByRole('button', { name: 'Allow once' }) });
  // The run's other workers still wait (the scenario asks before every Write).
  await pending.first().waitFor({ timeout: 30_000 });
  await axe('Inbox');
  const titles = await items.evaluateAll((lis) => lis.map((li) => li.querySelector('.title')?.textContent ?? ''));
  const first = pending.first();
  const key = await first.getAttribute('data-key');
  const title = await first.locator('.title').textContent();
  await first.getByRole('button', { name: 'Allow once' }).focus();
  await page.keyboard.press('Enter');
  await items.filter({ hasText: title ?? '' }).getByText('Allowed once').waitFor({ timeout: 15_000 });
  const now = await items.evaluateAll((lis) => lis.map((li) => li.querySelector('.title')?.textContent ?? ''));
  check(JSON.stringify(now.slice(0, titles.length)) === JSON.stringify(titles), `the Inbox items kept their places while one was answered with the keyboard (${titles.length} items)`);
  // The keyboard goes on to the next item that waits, or stays on the answered one when none does.
  const focusNow = () =>
    page.evaluate((answered) => {
      const li = document.activeElement?.closest('li[data-key]');
      const waiting = [...document.querySelectorAll('li[data-key]')].filter((el) => !el.dataset.done && el.dataset.key !== answered).length;
      return { key: li?.dataset.key, done: !!li?.dataset.done, tag: document.activeElement?.tagName, waiting };
    }, key);
  const focusOk = (f) => (f.waiting > 0 ? f.key !== undefined && f.key !== key && !f.done : f.key === key);
  // The focus moves when the answer is taken; a second is the most it may take here.
  let focus = await focusNow();
  for (const deadline = Date.now() + 1000; !focusOk(focus) && Date.now() < deadline; await sleep(100)) focus = await focusNow();
  check(
    focusOk(focus),
    `after the answer the keyboard's focus is on the next item that waits: ${JSON.stringify(focus)}`,
  );

  // The run is not needed any more.
  await go('Runs');
  await page.getByRole('article').getByRole('button', { name: /^(Open|Review tasks)$/ }).first().click();
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel run' }).click();
  await status.filter({ hasText: /^Cancelled$/ }).waitFor({ timeout: minute });
  await axe('the run view (cancelled)');
  log('run cancelled');

  // ---- 2. Every other view ------------------------------------------------
  await go('Templates');
  await axe('Templates');
  await page.getByRole('button', { name: /Documentation/ }).first().click();
  await page.getByRole('tab').first().waitFor();
  await sleep(500);
  await axe('the template editor');
  await go('Sessions');
  await axe('Sessions');
  await go('Settings');
  await axe('Settings');
  await go('History');
  await page.getByRole('table', { name: 'Past runs' }).waitFor();
  await axe('History');

  // ---- 3. History fits; focus is visible ----------------------------------
  // 1280×800, and the window's own first size (window.go: 1200×780).
  for (const [width, height] of [
    [1280, 800],
    [1200, 780],
  ]) {
    await page.setViewportSize({ width, height });
    await sleep(300);
    const overflow = await page.evaluate(() =>
      [...document.querySelectorAll('main.content, main.content .table-wrap')].map((el) => ({ el: el.className, scroll: el.scrollWidth, client: el.clientWidth })),
    );
    check(
      overflow.every((o) => o.scroll <= o.client + 1),
      `History fits ${width}×${height} without a horizontal scrollbar: ${JSON.stringify(overflow)}`,
    );
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.keyboard.press('Tab');
  const ring = await page.evaluate(() => {
    const el = document.activeElement;
    const s = el ? getComputedStyle(el) : undefined;
    return { tag: el?.tagName, outline: s ? `${s.outlineStyle} ${s.outlineWidth}` : '' };
  });
  check(ring.tag !== 'BODY' && !ring.outline.startsWith('none'), `the keyboard's focus is visible: ${JSON.stringify(ring)}`);
} catch (err) {
  failed = true;
  console.error(`window e2e failed: ${err instanceof Error ? err.message : err}`);
  const shot = process.env.BATON_E2E_SHOT ?? 'e2e-failure.png';
  await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
  console.error(`screenshot of the page: ${shot}`);
} finally {
  await browser.close();
}
log(`${checked} axe checks; ${problems.length} problems`);
process.exit(failed || problems.length > 0 ? 1 : 0);
