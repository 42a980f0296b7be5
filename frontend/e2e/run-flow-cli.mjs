// End to end on the Claude Code host, through the real frontend and the
// real Go bindings (wails dev at BATON_URL): picks "Claude Code (CLI)" in
// Settings with the CLI at BATON_E2E_CLAUDE, runs the documentation template
// on BATON_E2E_CLI_FOLDER (answering any permission prompt with Allow once,
// as a user would in the run view), waits for it to complete and checks the
// pages the workers wrote in the folder (docs/, one a task, the index
// docs/README.md among them). The CLI's model is the model-sim
// that scripts/e2e.sh starts (ANTHROPIC_BASE_URL in the app's environment,
// which every CLI inherits). Run by scripts/e2e.sh after run-flow.mjs.
import { chromium } from 'playwright-core';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const base = process.env.BATON_URL ?? 'http://127.0.0.1:34115';
const folder = process.env.BATON_E2E_CLI_FOLDER;
const claude = process.env.BATON_E2E_CLAUDE;
if (!folder || !claude) {
  console.error('BATON_E2E_CLI_FOLDER and BATON_E2E_CLAUDE must name the project folder and the Claude Code CLI');
  process.exit(2);
}
const request = `Document the inventory service on Claude Code (e2e ${Date.now()})`;

// pages lists the Markdown pages under dir/docs.
function pages(dir) {
  try {
    return readdirSync(join(dir, 'docs'), { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.md'))
      .map((e) => join(dir, 'docs', e.name));
  } catch {
    return [];
  }
}

const browser = await chromium.launch({
  executablePath: process.env.BATON_CHROME ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
let failed = false;
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
try {
  page.setDefaultTimeout(30_000);
  await page.goto(base);
  const nav = page.getByRole('navigation', { name: 'Main' });

  await nav.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('radio', { name: /Claude Code \(CLI\)/ }).check();
  await page.getByRole('textbox', { name: 'CLI path' }).fill(claude);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText(/^Claude Code \(CLI\) \d+\.\d+\.\d+$/).waitFor();
  console.log('Settings: the host is Claude Code (CLI)');

  await nav.getByRole('button', { name: 'New run' }).click();
  await page.getByRole('radio', { name: /Documentation/ }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(folder);
  await page.getByRole('textbox', { name: 'Request' }).fill(request);
  await page.getByRole('button', { name: 'Start run' }).click();
  console.log('run started on Claude Code; waiting for the task list');

  const confirm = page.getByRole('button', { name: 'Confirm and start' });
  await confirm.waitFor({ timeout: 180_000 });
  await confirm.click();
  console.log('tasks confirmed; waiting for the run to complete');

  const status = page.getByTestId('run-status');
  const deadline = Date.now() + 300_000;
  let allowed = 0;
  for (;;) {
    const text = ((await status.first().textContent().catch(() => '')) ?? '').trim();
    if (text === 'Completed') break;
    if (/^(Failed|Cancelled)$/.test(text)) throw new Error(`the run ended ${text}`);
    if (Date.now() > deadline) throw new Error(`the run did not complete within 5 minutes (status ${text})`);
    const allow = page.getByRole('button', { name: 'Allow once' });
    if ((await allow.count()) > 0 && (await allow.first().isEnabled().catch(() => false))) {
      await allow.first().click().catch(() => {});
      allowed++;
    }
    await page.waitForTimeout(250);
  }
  const done = await page.getByText(/(\d+) of \1 tasks done/).textContent();
  const tasks = Number(/(\d+) of/.exec(done ?? '')?.[1] ?? 0);
  console.log(`run completed: ${done} (${allowed} permission prompts allowed in the window)`);

  const files = pages(folder);
  if (tasks === 0 || files.length < tasks || !files.some((f) => f.endsWith('/README.md'))) {
    throw new Error(`${tasks} tasks done but ${files.length} pages in ${folder}/docs: ${files.join(', ')}`);
  }
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    if (!/^# \S/.test(text) || !text.includes("Baton's scripted agent")) throw new Error(`${f} is not a worker's page: ${JSON.stringify(text.slice(0, 200))}`);
  }
  console.log(`the workers' pages are in the folder: ${files.length} files`);
} catch (err) {
  failed = true;
  console.error(`e2e (Claude Code) failed: ${err instanceof Error ? err.message : err}`);
  const shot = process.env.BATON_E2E_SHOT ?? 'e2e-failure.png';
  await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
  console.error(`screenshot of the page: ${shot}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
