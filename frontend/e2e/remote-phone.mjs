// Baton from a phone: "baton serve" (started by scripts/remote-e2e.sh with
// the Claude Code CLI host, the pinned CLI and a model-sim) driven in
// Chromium at 390×844, a phone's viewport.
//
//   1. Without the access link: 401 and one sentence, nothing else.
//   2. The link signs the browser in (a cookie); the page is Baton.
//   3. A run on the Claude Code CLI with the permission mode "default", so
//      that its workers ask before they write: started in the New run view,
//      its task list confirmed in the run view; each permission prompt is
//      allowed from the Inbox (the page title carries its count), and the
//      workers go on until the run completes.
//   4. The WebSocket refuses another site's page (Origin), though the
//      browser sends the cookie to it (same site, another port).
//   5. A new link (Settings → Remote access) signs every browser out: the
//      old cookie is refused; the new link signs in again.
//
// BATON_URL is where serve listens, BATON_LOGIN the access link it printed,
// BATON_E2E_FOLDER the project, BATON_E2E_CLAUDE the CLI. BATON_SHOTS_DIR,
// when set, receives a screenshot of each phone view.
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, request } from 'playwright-core';

const base = process.env.BATON_URL;
const login = process.env.BATON_LOGIN;
const folder = process.env.BATON_E2E_FOLDER;
const claude = process.env.BATON_E2E_CLAUDE;
if (!base || !login || !folder || !claude) {
  console.error('BATON_URL, BATON_LOGIN, BATON_E2E_FOLDER and BATON_E2E_CLAUDE must be set (scripts/remote-e2e.sh sets them)');
  process.exit(2);
}
const shots = process.env.BATON_SHOTS_DIR;
if (shots) mkdirSync(shots, { recursive: true });
const minute = 60_000;
const started = Date.now();
const log = (msg) => console.log(`[phone ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) {
    passed++;
    log(`ok: ${what}`);
  } else {
    failed++;
    console.error(`[phone] FAILED: ${what}`);
  }
}

// chromium.launch gives each run a fresh temporary user-data-dir of its own.
const browser = await chromium.launch({
  executablePath: process.env.BATON_CHROME ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const context = await browser.newContext(phone);
const page = await context.newPage();
page.setDefaultTimeout(30_000);
const problems = [];
page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
page.on('console', (msg) => {
  if (msg.type() === 'error' && /Content Security Policy|Refused to/.test(msg.text())) problems.push(`console: ${msg.text()}`);
});
const nav = page.getByRole('navigation', { name: 'Main' });
const shot = async (name) => shots && page.screenshot({ path: join(shots, `${name}.png`) });
let other;

try {
  // 1. No link, no Baton.
  const anon = await browser.newContext(phone);
  const anonPage = await anon.newPage();
  const res = await anonPage.goto(base);
  const body = (await anonPage.locator('body').innerText()).trim();
  check(res?.status() === 401, `without the link: HTTP ${res?.status()}`);
  check(/^Baton needs its access link: .+\.$/.test(body) && !body.includes('\n'), `without the link only a sentence: ${JSON.stringify(body)}`);
  check((await anonPage.locator('script, link, img').count()) === 0, 'without the link: no script, style or image');
  const api = await request.newContext();
  for (const path of ['/_baton/bridge.js', '/index.html', '/api/call/Inbox']) {
    const r = path.startsWith('/api/') ? await api.post(base + path.slice(1), { data: [] }) : await api.get(base + path.slice(1));
    check(r.status() === 401 && (await r.text()).split('\n').filter(Boolean).length === 1, `without the link ${path}: ${r.status()}, one sentence`);
  }
  await anon.close();

  // 2. The link signs in.
  await page.goto(login);
  await nav.waitFor();
  check(new URL(page.url()).pathname === '/' && !page.url().includes('token'), `signed in, at ${page.url()}`);
  const [cookie] = await context.cookies();
  check(cookie?.httpOnly && cookie?.sameSite === 'Strict' && !login.includes(cookie.value), 'the cookie is HttpOnly, SameSite=Strict, not the token');
  check(await page.evaluate(() => typeof window.go?.main?.App?.StartRun === 'function'), 'the bindings are on window.go.main.App');
  const navBox = await nav.boundingBox();
  check(navBox && navBox.width === 390 && navBox.y + navBox.height >= 843, `the navigation runs along the bottom of the phone: ${JSON.stringify(navBox)}`);
  await shot('runs');

  // 3. A run on the Claude Code CLI whose workers ask before writing.
  await nav.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('radio', { name: /Claude Code \(CLI\)/ }).check();
  await page.getByRole('textbox', { name: 'CLI path' }).fill(claude);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText(/^Claude Code \(CLI\) \d+\.\d+\.\d+$/).waitFor({ timeout: minute });
  log('host: Claude Code (CLI)');

  await nav.getByRole('button', { name: 'New run', exact: true }).click();
  await page.getByRole('radio', { name: /Documentation/ }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(folder);
  const runRequest = `Document the inventory service from a phone (${Date.now()})`;
  await page.getByRole('textbox', { name: 'Request' }).fill(runRequest);
  await page.getByText('Advanced', { exact: true }).click();
  await page.getByLabel('Permission mode').selectOption('default');
  await shot('new-run');
  await page.getByRole('button', { name: 'Start run' }).click();
  const status = page.getByTestId('run-status');
  await status.waitFor({ timeout: minute });
  log('run started; waiting for its task list');
  const confirm = page.getByRole('button', { name: 'Confirm and start' });
  await confirm.waitFor({ timeout: 4 * minute });
  const firstRow = page.locator('tr[data-task]').first();
  await firstRow.waitFor();
  const titleBox = await firstRow.getByRole('textbox', { name: /^Title of / }).boundingBox();
  check(titleBox && titleBox.x >= 0 && titleBox.x + titleBox.width <= 390, `a task's fields fit the phone: ${JSON.stringify(titleBox)}`);
  await shot('task-review');
  const confirmBox = await confirm.boundingBox();
  check(confirmBox && confirmBox.x >= 0 && confirmBox.x + confirmBox.width <= 390, `Confirm and start fits the phone: ${JSON.stringify(confirmBox)}`);
  await confirm.click();
  log('tasks confirmed; answering permission prompts from the Inbox');

  const inbox = page.getByRole('list', { name: 'Waiting for you' });
  let allowed = 0;
  let firstTask = '';
  const deadline = Date.now() + 8 * minute;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`the run did not complete in 8 minutes (${allowed} prompts allowed)`);
    await nav.getByRole('button', { name: /^Inbox/ }).click();
    const item = inbox.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Allow once' }) }).first();
    await item.waitFor({ timeout: 3000 }).catch(() => {});
    if (await item.isVisible().catch(() => false)) {
      const what = (await item.getByRole('button').first().textContent())?.trim() ?? '';
      if (allowed === 0) {
        const n = await inbox.getByRole('listitem').count();
        const pageTitle = await page.title();
        check(pageTitle === `(${n}) Baton`, `the page title carries the Inbox count: ${JSON.stringify(pageTitle)} with ${n} waiting`);
        await shot('inbox');
      }
      firstTask ||= what.match(/task_\d+/)?.[0] ?? '';
      await item.getByRole('button', { name: 'Allow once' }).click();
      await page.getByRole('listitem').filter({ hasText: what }).filter({ has: page.getByRole('button', { name: 'Allow once' }) })
        .waitFor({ state: 'detached', timeout: minute }).catch(() => {});
      allowed++;
      log(`allowed: ${what}`);
      continue;
    }
    // Nothing waits: look at the run (Runs lists it while it goes, History once it ended).
    await nav.getByRole('button', { name: 'Runs', exact: true }).click();
    const open = page.getByRole('article', { name: runRequest }).getByRole('button', { name: /^(Open|Review tasks)$/ });
    // The run leaves Runs for History the moment it ends, which can fall
    // between seeing its button and clicking it: then History opens it.
    const opened = await open.waitFor({ timeout: 3000 }).then(
      () => open.click({ timeout: 5000 }).then(() => true, () => false),
      () => false,
    );
    if (!opened) {
      await nav.getByRole('button', { name: 'History', exact: true }).click();
      await page.getByRole('table', { name: 'Past runs' }).getByRole('button', { name: runRequest, exact: true }).click();
    }
    await status.waitFor({ timeout: 5000 }).catch(() => {});
    if (await status.filter({ hasText: /^(Completed|Failed|Cancelled)/ }).isVisible().catch(() => false)) break;
    await page.waitForTimeout(1500);
  }
  await shot('run');
  const final = (await status.textContent())?.trim();
  check(allowed > 0, `${allowed} permission prompts allowed from the phone's Inbox`);
  check(final === 'Completed', `the workers went on and the run completed: ${final}`);
  check(firstTask !== '', `a worker's prompt was among those allowed (${firstTask})`);
  if (firstTask) {
    const worker = page.getByRole('article', { name: `Task ${firstTask}` });
    check((await worker.getByText('Completed', { exact: true }).count()) > 0, `${firstTask}, allowed first, went on to complete`);
  }
  check((await page.title()) === 'Baton', `nothing waits: the title is ${JSON.stringify(await page.title())}`);

  // 4. Another site's page gets no WebSocket, though its request carries the cookie.
  const target = new URL(base);
  const foreign = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise((r) => foreign.listen(0, '127.0.0.1', r));
  const foreignURL = `http://127.0.0.1:${foreign.address().port}/`;
  other = await context.newPage();
  await other.goto(foreignURL);
  const outcome = await other.evaluate(
    (url) =>
      new Promise((resolve) => {
        const ws = new WebSocket(url);
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('refused');
        setTimeout(() => resolve('timeout'), 10_000);
      }),
    `ws://${target.host}/api/events`,
  );
  check(outcome === 'refused', `a WebSocket from ${foreignURL}: ${outcome}`);
  const handshake = await new Promise((resolve, reject) => {
    const req = http.request({
      host: target.hostname,
      port: target.port,
      path: '/api/events',
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Origin: 'http://evil.example', Cookie: `${cookie.name}=${cookie.value}` },
    });
    req.on('response', (r) => resolve(r.statusCode));
    req.on('upgrade', () => resolve(101));
    req.on('error', reject);
    req.end();
  });
  check(handshake === 403, `the upgrade with the cookie from Origin http://evil.example: ${handshake}`);
  await other.close();
  foreign.close();

  // 5. A new link signs every browser out.
  await nav.getByRole('button', { name: 'Settings' }).click();
  const remote = page.getByRole('region', { name: 'Remote access' });
  await remote.getByText(/1 browser connected|browsers connected/).waitFor();
  await remote.getByRole('button', { name: 'New link…' }).click();
  await remote.getByRole('button', { name: 'Make a new link' }).click();
  const linkBox = remote.getByRole('textbox', { name: 'Access link URL' });
  await linkBox.waitFor();
  const fresh = await linkBox.inputValue();
  check(fresh.startsWith(base) && fresh !== login, 'the new link is shown once, on the phone that made it');
  check(await remote.getByRole('img', { name: 'QR code of the access link' }).isVisible(), 'with its QR code');
  await page.getByRole('alert').filter({ hasText: 'signed out of Baton' }).waitFor();
  await shot('signed-out');
  check(true, 'this browser is told it was signed out');
  const old = await request.newContext({ extraHTTPHeaders: { Cookie: `${cookie.name}=${cookie.value}` } });
  const afterRotation = await old.get(base);
  check(afterRotation.status() === 401 && (await afterRotation.text()).includes('signed out'), `the old cookie after a new link: ${afterRotation.status()}`);
  const oldCall = await old.post(`${base}api/call/Inbox`, { data: [], headers: { Origin: base.replace(/\/$/, '') } });
  check(oldCall.status() === 401, `a call with the old cookie: ${oldCall.status()}`);
  await old.dispose();
  const oldLink = await request.newContext();
  check((await oldLink.get(login)).status() === 401, 'the old link is refused');
  await oldLink.dispose();
  await page.goto(fresh);
  await nav.waitFor();
  check(true, 'the new link signs in again');
  check(problems.length === 0, `no page errors or CSP refusals${problems.length ? ': ' + problems.join('; ') : ''}`);
} catch (err) {
  failed++;
  console.error(`[phone] FAILED: ${err instanceof Error ? err.stack : err}`);
  await page.screenshot({ path: process.env.BATON_E2E_SHOT ?? 'remote-phone-failure.png', fullPage: true }).catch(() => {});
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
