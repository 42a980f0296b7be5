// The README's screenshot of a task's diff: a Documentation run with
// worktree isolation on the Claude Code CLI host (see
// scripts/screenshot-diff.sh), then Changes with the first task's diff open.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const base = process.env.BATON_URL ?? 'http://127.0.0.1:34115';
const folder = process.env.BATON_E2E_FOLDER;
const claude = process.env.BATON_CLAUDE;
if (!folder || !claude) {
  console.error('BATON_E2E_FOLDER and BATON_CLAUDE must be set');
  process.exit(2);
}
const dir = resolve(process.env.BATON_SHOTS_DIR ?? 'docs/screenshots');
mkdirSync(dir, { recursive: true });
const width = 1280;
const height = 800;
const minute = 60_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => console.log(`[diff-shot] ${msg}`);

const browser = await chromium.launch({
  executablePath: process.env.BATON_CHROME ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await (await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: 'light', reducedMotion: 'reduce' })).newPage();
page.setDefaultTimeout(30_000);
try {
  await page.goto(base);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  // The Claude Code CLI host, through the app's own settings binding.
  await page.evaluate(async (claudePath) => {
    const app = window.go.main.App;
    const view = await app.GetSettings();
    await app.SaveSettings({ ...view.settings, host: 'claude-code', claudePath });
  }, claude);
  log('host: Claude Code CLI');

  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: 'New run', exact: true }).click();
  await page.getByRole('radio', { name: /Documentation/ }).click();
  await page.getByText('Advanced', { exact: true }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(folder);
  await page.getByRole('textbox', { name: 'Request' }).fill('Document this project: one page per package');
  await page.getByLabel('Isolation').selectOption('worktree');
  await page.getByRole('button', { name: 'Start run' }).click();
  const status = page.getByTestId('run-status');
  await status.waitFor({ timeout: minute });

  const confirm = page.getByRole('button', { name: 'Confirm and start' });
  const mainPrompt = page.getByRole('group', { name: 'The main session waits for you' });
  for (const deadline = Date.now() + 5 * minute; !(await confirm.isVisible()); ) {
    if (Date.now() > deadline) throw new Error('no task list within 5 minutes');
    if (await mainPrompt.first().isVisible()) await mainPrompt.first().getByRole('button', { name: 'Always' }).click();
    await sleep(500);
  }
  await confirm.click();
  log('tasks confirmed');
  for (const deadline = Date.now() + 8 * minute; ; ) {
    const text = ((await status.textContent().catch(() => '')) ?? '').trim();
    if (/^Completed/.test(text)) break;
    if (/^(Failed|Error|Cancelled)/.test(text)) throw new Error(`the run ended as ${text}`);
    if (Date.now() > deadline) throw new Error(`the run is still "${text}"`);
    if (await mainPrompt.first().isVisible()) await mainPrompt.first().getByRole('button', { name: 'Always' }).click();
    // A worker's permission prompt, on its card.
    const always = page.getByRole('region', { name: 'Workers' }).getByRole('button', { name: 'Always' });
    if (await always.first().isVisible().catch(() => false)) {
      await always.first().click().catch(() => {});
      log('a worker: allowed always');
    }
    await sleep(500);
  }
  log('run completed');
  const changes = page.getByRole('region', { name: 'Changes', exact: true });
  await changes.getByRole('button', { name: 'Show diff' }).nth(1).click();
  // The diff view: the file list, then each file in CodeMirror's merge view.
  const file = changes.getByRole('region', { name: /^Diff of / }).first();
  await file.waitFor();
  await file.scrollIntoViewIfNeeded();
  await file.locator('.cm-editor').first().waitFor();
  log('diff shown');
  // The task's card at the top: its files, the layout switch, the file list and the merge view.
  await file.evaluate((el) => el.closest('li.card')?.scrollIntoView({ block: 'start' }));
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await page.mouse.move(width - 2, height - 2);
  await sleep(500);
  const path = join(dir, 'runs-diff.png');
  await page.screenshot({ path });
  log(`wrote ${path}`);
} catch (err) {
  await page.screenshot({ path: '/tmp/baton-diff-shot-failure.png' }).catch(() => {});
  throw err;
} finally {
  await browser.close();
}
