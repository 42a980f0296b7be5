// The README's screenshots of the run flow, taken through the real frontend
// and the real Go bindings: wails dev serves the app at BATON_URL (default
// http://127.0.0.1:34115) on the embedded simulator; this drives it in
// Chromium like run-flow.mjs and writes the PNGs to BATON_SHOTS_DIR (default
// docs/screenshots). Run by scripts/screenshots.sh.
//
// Three runs on BATON_E2E_FOLDER:
//   A. Documentation: the wizard with Advanced open, the task review.
//   B. Test coverage with [[sim:scenario=needs-permission]] and the
//      permission mode "default", so that every session asks before a Write:
//      the workers with their prompts on their cards.
//   C. SPARC delegation with [[sim:scenario=clarification]]: each worker's
//      first report asks a question. The Inbox then holds C's questions and
//      B's permission prompts; all are handled there, in place.
// Then History, and C's results (answers as decisions, verification).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const base = process.env.BATON_URL ?? 'http://127.0.0.1:34115';
const folder = process.env.BATON_E2E_FOLDER;
if (!folder) {
  console.error('BATON_E2E_FOLDER must name the project folder to run on');
  process.exit(2);
}
const dir = resolve(process.env.BATON_SHOTS_DIR ?? 'docs/screenshots');
mkdirSync(dir, { recursive: true });
const failureShot = process.env.BATON_E2E_SHOT ?? join(tmpdir(), 'baton-screenshots-failure.png');

const width = 1280;
const height = 800;
const minute = 60_000;
const started = Date.now();
const log = (msg) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await chromium.launch({
  executablePath: process.env.BATON_CHROME ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: 'light', reducedMotion: 'reduce' });
const page = await context.newPage();
page.setDefaultTimeout(30_000);
const nav = page.getByRole('navigation', { name: 'Main' });
const content = page.locator('main.content');
const status = page.getByTestId('run-status');

/** Writes name.png: the window, or with full the whole height of the scrolled content. */
async function shot(name, { full = false } = {}) {
  // No focus ring, hover or caret in the picture.
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await page.mouse.move(width - 2, height - 2);
  await sleep(400);
  const path = join(dir, `${name}.png`);
  if (full) {
    // The window does not scroll, main.content does: grow the window to it.
    const h = await content.evaluate((el) => el.scrollHeight);
    await page.setViewportSize({ width, height: Math.max(height, Math.ceil(h)) });
    await sleep(400);
    await page.screenshot({ path });
    await page.setViewportSize({ width, height });
  } else {
    await page.screenshot({ path });
  }
  log(`wrote ${path}`);
}

async function scrollTop() {
  await content.evaluate((el) => el.scrollTo(0, 0));
}

/** Fills the wizard and opens Advanced; the run is started by the caller. */
async function wizard(template, request) {
  await nav.getByRole('button', { name: 'New run', exact: true }).click();
  await page.getByRole('radio', { name: template }).click();
  await page.getByText('Advanced', { exact: true }).waitFor();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(folder);
  await page.getByRole('textbox', { name: 'Request' }).fill(request);
}

async function startRun() {
  await page.getByRole('button', { name: 'Start run' }).click();
  await status.waitFor({ timeout: minute });
}

/** Waits for the task review of the open run, answering the main session's permission prompts. */
async function waitForReview() {
  const confirm = page.getByRole('button', { name: 'Confirm and start' });
  const mainPrompt = page.getByRole('group', { name: 'The main session waits for you' });
  const deadline = Date.now() + 5 * minute;
  while (!(await confirm.isVisible())) {
    if (Date.now() > deadline) throw new Error('the task list did not come within 5 minutes');
    if (await mainPrompt.first().isVisible()) {
      // Always: the main session asks no more in this run (planning, aggregation, verification).
      await mainPrompt.first().getByRole('button', { name: 'Always' }).click();
      log('main session: Write allowed always');
    }
    await sleep(500);
  }
  return confirm;
}

async function waitForStatus(re, ms, { onTick } = {}) {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = ((await status.textContent().catch(() => '')) ?? '').trim();
    if (re.test(text)) return text;
    if (/^(Failed|Error|Cancelled)/.test(text)) throw new Error(`the run ended as ${text}`);
    if (Date.now() > deadline) throw new Error(`the run is still "${text}" after ${ms / 1000} s, waiting for ${re}`);
    if (onTick) await onTick();
    await sleep(500);
  }
}

const requestA = 'Document the inventory service: one page per package, with examples';
const requestB = 'Raise the test coverage of the store and the HTTP handlers to 80 % [[sim:scenario=needs-permission]]';
const requestC = 'Write end-to-end tests for the HTTP API, with fixtures for the store [[sim:scenario=clarification]]';
const answer = 'Markdown, like the README';

const inboxButton = nav.getByRole('button', { name: /^Inbox/ });
const inboxItems = page.getByRole('list', { name: 'Waiting for you' }).getByRole('listitem');
const questionFields = page.getByRole('textbox', { name: /^Answer to the questions of / });
const historyRow = (request) =>
  page.getByRole('table', { name: 'Past runs' }).getByRole('row').filter({ has: page.getByRole('button', { name: headline(request), exact: true }) });
/** The request as the app shows it: without the simulator's marker. */
function headline(request) {
  return request.replace(/\[\[sim:[^\]]*\]\]/g, '').trim();
}

/** Handles one item of the Inbox in place: allows a permission once or answers a question. */
async function handleInboxItem() {
  const permission = inboxItems.filter({ has: page.getByRole('button', { name: 'Allow once' }) }).first();
  if (await permission.isVisible()) {
    const title = await permission.getByRole('button').first().textContent();
    await permission.getByRole('button', { name: 'Allow once' }).click();
    // The item keeps its place, marked with what was done.
    await inboxItems.filter({ hasText: title ?? '' }).getByText('Allowed once').first().waitFor({ timeout: 10_000 }).catch(() => {});
    log(`inbox: allowed once: ${title?.trim()}`);
    return true;
  }
  const field = questionFields.first();
  if (await field.isVisible()) {
    const label = (await field.getAttribute('aria-label')) ?? '';
    await field.fill(answer);
    await field.locator('xpath=ancestor::form[1]').getByRole('button', { name: 'Send' }).click();
    await page.getByRole('textbox', { name: label, exact: true }).waitFor({ state: 'detached', timeout: 15_000 });
    log(`inbox: answered ${label.replace('Answer to the questions of ', '')}`);
    return true;
  }
  return false;
}

let failed = false;
try {
  await page.goto(base);
  await nav.waitFor();
  log(`app loaded from ${base}`);
  // The host connects on first use: Sessions lists the simulator's sessions,
  // and the host's dot in the sidebar turns green.
  await nav.getByRole('button', { name: 'Sessions', exact: true }).click();
  await page.locator('.host[data-state="connected"]').waitFor({ timeout: minute }).catch(() => log('the host is not connected yet'));

  // ---- A: Documentation: the wizard and the task review ------------------
  await wizard(/^Documentation/, requestA);
  await page.getByText('Advanced', { exact: true }).click();
  await page.getByLabel('Workers at once').waitFor();
  await shot('runs-wizard', { full: true });

  await startRun();
  log('run A started; waiting for its task list');
  const confirmA = await waitForReview();
  // The analysis stays open while the tasks are reviewed; fold it so the graph shows.
  await page.locator('details.analysis > summary').click();
  await page.getByRole('region', { name: 'Task review' }).locator('svg').first().waitFor();
  await scrollTop();
  await shot('runs-review');
  await confirmA.click();
  log('run A: tasks confirmed; waiting for it to complete');
  await waitForStatus(/^Completed$/, 6 * minute);
  log('run A completed');

  // ---- B: Test coverage, every session asks before a Write ---------------
  await wizard(/^Test coverage/, requestB);
  await page.getByText('Advanced', { exact: true }).click();
  await page.getByLabel('Permission mode').selectOption('default');
  await startRun();
  log('run B started (permission mode default); waiting for its task list');
  const confirmB = await waitForReview();
  await confirmB.click();
  log('run B: tasks confirmed; waiting for the workers to ask');
  const workers = page.getByRole('region', { name: 'Workers' });
  const prompts = workers.getByRole('group', { name: 'Waiting for your answer' });
  const begun = workers.getByRole('article').filter({ hasNotText: 'Waits for its dependencies' });
  {
    const deadline = Date.now() + 4 * minute;
    for (;;) {
      const n = await prompts.count();
      if (n > 0 && n >= (await begun.count())) break;
      if (Date.now() > deadline) {
        if (n > 0) break;
        throw new Error('no worker asked for permission within 4 minutes');
      }
      await sleep(500);
    }
    log(`run B: ${await prompts.count()} workers wait for permission`);
  }
  await sleep(1500); // the cards' clocks move past 0s
  await scrollTop();
  await shot('runs-workers');

  // ---- C: SPARC, each worker asks a question; B still waits --------------
  await wizard(/^SPARC/, requestC);
  await startRun();
  log('run C started; waiting for its task list');
  const confirmC = await waitForReview();
  await confirmC.click();
  log('run C: tasks confirmed; waiting for the workers to ask');
  await inboxButton.click();
  {
    const deadline = Date.now() + 4 * minute;
    while ((await questionFields.count()) < 3) {
      if (Date.now() > deadline) {
        if ((await questionFields.count()) > 0) break;
        throw new Error('no worker of run C asked a question within 4 minutes');
      }
      await sleep(500);
    }
  }
  log(`inbox: ${await inboxItems.count()} items, ${await questionFields.count()} of them questions`);
  // One answer typed in place, about to be sent.
  await questionFields.first().fill(answer);
  await shot('inbox');

  // Everything is handled in the Inbox until B and C have completed (their
  // integration tasks ask once the others are done).
  {
    const deadline = Date.now() + 8 * minute;
    let idle = 0;
    for (;;) {
      if (await handleInboxItem()) {
        idle = 0;
        continue;
      }
      if (++idle % 10 === 0) {
        await nav.getByRole('button', { name: 'History', exact: true }).click();
        await historyRow(requestC).waitFor();
        const states = await Promise.all([requestA, requestB, requestC].map((r) => historyRow(r).getByText(/^(Completed|Failed|Error|Cancelled)/).textContent({ timeout: 1000 }).catch(() => '')));
        const bad = states.find((s) => s && s !== 'Completed');
        if (bad) throw new Error(`a run ended as ${bad}`);
        if (states.every((s) => s === 'Completed')) break;
        await inboxButton.click();
      }
      if (Date.now() > deadline) throw new Error('runs B and C did not complete within 8 minutes');
      await sleep(500);
    }
  }
  log('runs B and C completed');

  // ---- History, and C's results -------------------------------------------
  await shot('runs-history');
  await historyRow(requestC).getByRole('button', { name: headline(requestC), exact: true }).click();
  await page.getByRole('region', { name: 'Final report' }).waitFor();
  await page.getByRole('region', { name: 'Final report' }).getByRole('list', { name: 'Decisions' }).waitFor();
  await shot('runs-finished', { full: true });
  await page.getByRole('button', { name: '← History' }).click();
  log(`done: 6 screenshots in ${dir}`);
} catch (err) {
  failed = true;
  console.error(`screenshots failed: ${err instanceof Error ? err.message : err}`);
  await page.screenshot({ path: failureShot, fullPage: true }).catch(() => {});
  console.error(`screenshot of the page: ${failureShot}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
