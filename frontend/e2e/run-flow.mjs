// End to end through the real frontend and the real Go bindings: wails dev
// serves the app at BATON_URL (default http://127.0.0.1:34115) with its
// bindings live; this drives it in Chromium. Creates a run on the simulator,
// confirms its tasks, waits for it to complete, and finds it in History.
// Run by scripts/e2e.sh (make e2e, part of make test).
import { chromium } from 'playwright-core';

const base = process.env.BATON_URL ?? 'http://127.0.0.1:34115';
const folder = process.env.BATON_E2E_FOLDER;
if (!folder) {
  console.error('BATON_E2E_FOLDER must name the project folder to run on');
  process.exit(2);
}
const request = `Document the inventory service (e2e ${Date.now()})`;

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

  await nav.getByRole('button', { name: 'New run' }).click();
  await page.getByRole('radio', { name: /Documentation/ }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(folder);
  await page.getByRole('textbox', { name: 'Request' }).fill(request);
  await page.getByRole('button', { name: 'Start run' }).click();
  console.log('run started; waiting for the task list');

  const confirm = page.getByRole('button', { name: 'Confirm and start' });
  await confirm.waitFor({ timeout: 180_000 });
  await confirm.click();
  console.log('tasks confirmed; waiting for the run to complete');

  await page.getByTestId('run-status').filter({ hasText: /^Completed$/ }).waitFor({ timeout: 300_000 });
  await page.getByText(/(\d+) of \1 tasks done/).waitFor();
  console.log('run completed');

  await nav.getByRole('button', { name: 'History' }).click();
  await page.getByRole('searchbox', { name: 'Search the requests' }).fill('inventory');
  const row = page.getByRole('table', { name: 'Past runs' }).getByText(request);
  await row.waitFor();
  console.log('run found in History');
} catch (err) {
  failed = true;
  console.error(`e2e failed: ${err instanceof Error ? err.message : err}`);
  const shot = process.env.BATON_E2E_SHOT ?? 'e2e-failure.png';
  await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
  console.error(`screenshot of the page: ${shot}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
