/**
 * The Raiser's Edge NXT journey in Chromium, whole, as the administrator: on Connections a file
 * upload source is added, and a Raiser's Edge NXT data source, connected through Blackbaud's
 * consent page (authorization code with PKCE; the local SKY API fake, tests/support/vendors/skyApi.ts,
 * answers the consent, the token endpoint and the API behind CONNECTOR_BASE_URL_RENXT, as
 * server/connectors/vendorHttp.ts maps SKY API's hosts onto one base). A formula is built in the
 * wizard from an uploaded file into constituents and activated; a file uploaded to it brings a new
 * supporter, reviewed in Needs Attention, created and sent: the constituent is in the fake with
 * the name and e-mail mapped. A second file with the same supporter (the same e-mail) under
 * another first name updates that constituent, and no second one is made. After each save of the
 * wizard its '... has been saved' notice covers none of the wizard's buttons, at 1440 px or 390 px.
 *
 * Then Mailchimp (its fake, tests/support/vendors/mailchimp.ts, behind CONNECTOR_BASE_URL_MAILCHIMP,
 * which stands in for login.mailchimp.com and the data centre's host): a Mailchimp data source
 * connected through Mailchimp's consent (OAuth) and tested, a formula built in the wizard from the audience's members into constituents,
 * activated and run now; the member in the fake's audience is sent and is a constituent in the SKY
 * fake with the name and e-mail mapped.
 *
 * Then Stripe (tests/support/vendors/stripe.ts, behind CONNECTOR_BASE_URL_STRIPE): a Stripe data
 * source by its restricted key, a formula built in the wizard from charges into Sandbox CRM
 * constituents that also writes each charge's gift, run now with Ready records sent
 * automatically: each donor is one constituent with all of their gifts.
 *
 * Screenshots of the key screens, at 1440 px and 390 px, go to /tmp/renxt-*.png; the Mailchimp
 * formula's review step to /tmp/mailchimp-review.png.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { baseUrlVariable } from '../../server/connectors/vendorHttp.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { AUDIENCE, MAILCHIMP_ACCOUNT, MAILCHIMP_APP, startFakeMailchimp, type FakeMailchimp } from '../support/vendors/mailchimp.ts';
import { startFakeStripe, STRIPE_READ_KEY, type FakeStripe } from '../support/vendors/stripe.ts';
import { SKY_APP, startFakeSkyApi, type FakeSkyApi } from '../support/vendors/skyApi.ts';

const ADMIN = 'administrator@demo.tributary.test';
const FORMULA = 'Spring supporters into RE NXT';
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const SOON = { timeout: 15_000 };
const NEW_EMAIL = 'grace.hopper@navy.example';

const csv = (rows: string[][]) => Buffer.from(`${rows.map((r) => r.join(',')).join('\r\n')}\r\n`);
const HEADER = ['First name', 'Last name', 'Email'];

const clamavSocket = inject('clamavSocket');
const variable = baseUrlVariable('renxt');
const before = process.env[variable];
const mcVariable = baseUrlVariable('mailchimp');
const mcBefore = process.env[mcVariable];
const stVariable = baseUrlVariable('stripe');
const stBefore = process.env[stVariable];
let sky: FakeSkyApi;
let mc: FakeMailchimp;
let st: FakeStripe;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let formulaId: string;
let db: pg.Client;

beforeAll(async () => {
  [sky, mc, st] = await Promise.all([startFakeSkyApi(), startFakeMailchimp(), startFakeStripe()]);
  // the server runs in this process: its vendor calls read the variables here
  process.env[variable] = sky.url;
  process.env[mcVariable] = mc.url;
  process.env[stVariable] = st.url;
  [server, browser] = await Promise.all([
    startTestServer({ staticRoot: path.resolve('dist'), work: true, env: { [variable]: sky.url, [mcVariable]: mc.url, [stVariable]: st.url, ...(clamavSocket ? { CLAMAV_SOCKET: clamavSocket } : {}) } }),
    launchChromium(),
  ]);
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  // the administrator has signed in before: no welcome page
  await db.query('update users set login_count = 5 where email = $1', [ADMIN]);
  context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
  await signInThroughApp(page, server.url, ADMIN, undefined, '/connections');
  await page.getByRole('button', { name: /User menu/ }).first().waitFor();
}, 60_000);
afterEach(async (test) => {
  if (test.task.result?.state === 'fail') await page?.screenshot({ path: '/tmp/renxt-failure.png' }).catch(() => undefined);
});
afterAll(async () => {
  if (before === undefined) delete process.env[variable]; else process.env[variable] = before;
  if (mcBefore === undefined) delete process.env[mcVariable]; else process.env[mcVariable] = mcBefore;
  if (stBefore === undefined) delete process.env[stVariable]; else process.env[stVariable] = stBefore;
  await db?.end();
  await context?.close();
  await browser?.close();
  await server?.close();
  await sky?.close();
  await mc?.close();
  await st?.close();
});

/** The screen as it is, at a desktop's width and at a phone's. */
async function shots(name: string, target: Page = page) {
  // a drawer or dialog still sliding in is not what the person reads
  const settled = () => target.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
  await settled();
  await target.screenshot({ path: `/tmp/renxt-${name}.png` });
  await target.setViewportSize(PHONE);
  try {
    await settled();
    await target.screenshot({ path: `/tmp/renxt-${name}-phone.png`, fullPage: true });
    // the page itself does not scroll sideways
    expect(await target.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(PHONE.width);
  } finally {
    await target.setViewportSize(DESKTOP);
  }
}

const drawer = () => page.getByRole('dialog');
const field = (label: string) => drawer().getByLabel(new RegExp(`^${label.replace(/[()]/g, '\\$&')}( \\*)?$`));
const wizard = () => page.getByRole('dialog', { name: /^Formula Wizard/ });
const button = (name: string) => wizard().getByRole('button', { name, exact: true });
const openStep = () => wizard().locator('[data-step]').getAttribute('data-step');

/** What the screen says went wrong: field errors, alerts and notifications. */
async function problemsShown(): Promise<string> {
  const texts = await page.locator('.mantine-InputWrapper-error, [role="alert"]').allTextContents();
  return texts.filter((t) => !/has been saved/.test(t)).join(' | ');
}

/**
 * The wizard's buttons (its close button, the step's own, Back and Save and continue) a
 * notification on screen covers, at a desktop's width and at a phone's: a
 * person stepping through quickly clicks the next step's Save while the last step's
 * '... has been saved' is still shown, so it must never lie over them.
 */
async function coveredActions(): Promise<string[]> {
  const covered: string[] = [];
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    try {
      // the modal settles into its layout for this width
      await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
      const found = await page.evaluate(() => {
        const boxes = [...document.querySelectorAll('.mantine-Notification-root')].map((n) => n.getBoundingClientRect());
        const nameOf = (d: Element) => d.getAttribute('aria-label') ?? document.getElementById(d.getAttribute('aria-labelledby') ?? '')?.textContent ?? '';
        const dialog = [...document.querySelectorAll('[role="dialog"]')].find((d) => /^Formula Wizard/.test(nameOf(d)));
        if (!dialog) return ['(no wizard)'];
        // the stepper's links to other steps are not among them: on a phone the notification shows
        // over the wizard's title and the top of its stepper, which scrolls sideways beneath
        const buttons = [...dialog.querySelectorAll('button')].filter((b) => b.getClientRects().length > 0 && !b.closest('[aria-label="Wizard steps"]'));
        return buttons.filter((b) => {
          const r = b.getBoundingClientRect();
          return boxes.some((n) => r.left < n.right && n.left < r.right && r.top < n.bottom && n.top < r.bottom);
        }).map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim());
      });
      covered.push(...found.map((name) => `${name} at ${viewport.width} px`));
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }
  return covered;
}

async function saveAndExpect(title: string, next: string, label = 'Save and continue', checkCovered = true) {
  await button(label).click();
  const saved = page.getByText(`${title} has been saved`).first();
  await expect.poll(async () => ((await saved.isVisible()) ? 'saved' : (await problemsShown()) || 'not yet'), SOON).toBe('saved');
  await expect.poll(openStep, SOON).toBe(next);
  // the next step's actions are there while the notification still is, and it covers none of them
  await wizard().getByRole('button', { name: /^(Back|Save and continue|Continue|Activate the formula)$/ }).first().waitFor();
  if (checkCovered && await saved.isVisible()) expect(await coveredActions(), `${title} has been saved`).toEqual([]);
}

/** A step saved, as saveAndExpect, where the first formula has already checked what its notice covers. */
const saveThen = (title: string, next: string, label?: string) => saveAndExpect(title, next, label, false);

/** Connections, ready to add a data source. */
async function openConnections() {
  await page.goto(`${server.url}/connections`);
  await expect.poll(() => page.getByRole('button', { name: 'Add data source', exact: true }).isEnabled(), SOON).toBe(true);
}

/** Saves the open data source and waits for its drawer to close. */
async function saveDataSource() {
  await drawer().getByRole('button', { name: 'Save', exact: true }).click();
  await drawer().waitFor({ state: 'hidden' });
}

/** A new formula in the wizard, named, its data sources chosen (not saved yet); the formula's id kept for the bucket screens. */
async function newFormula(name: string, source: string, destination: string) {
  await page.goto(`${server.url}/integrations-formulas`);
  await page.getByRole('button', { name: 'Create a formula' }).click();
  await wizard().waitFor();
  await page.waitForURL(/[?&]wizardFormulaId=[^&]+/);
  formulaId = new URL(page.url()).searchParams.get('wizardFormulaId')!;
  await expect.poll(openStep, SOON).toBe('data-sources');
  await wizard().getByRole('textbox', { name: /^Formula name/ }).fill(name);
  await wizard().getByRole('combobox', { name: /^Source/ }).selectOption({ label: source });
  await wizard().getByRole('combobox', { name: /^Destination/ }).selectOption({ label: destination });
}

/** Picks an object of the formula type step once its list has loaded. */
async function chooseObject(which: 'Source object' | 'Destination object', label: string) {
  const select = wizard().getByRole('combobox', { name: new RegExp(`^${which}`) });
  await expect.poll(() => select.isEnabled(), SOON).toBe(true);
  await select.selectOption({ label });
}

/** Fills each destination field from its source field, and shows it in the buckets. */
async function mapFrom(pairs: readonly (readonly [destination: string, source: string])[]) {
  const fieldsTable = wizard().getByRole('table', { name: 'Destination fields' });
  await fieldsTable.waitFor();
  for (const [destination, source] of pairs) {
    await fieldsTable.getByRole('combobox', { name: `How ${destination} is filled` }).selectOption('source');
    const select = fieldsTable.getByRole('combobox', { name: `Source field for ${destination}` });
    await select.selectOption(source);
    expect(await select.inputValue(), destination).toBe(source);
    await fieldsTable.getByRole('checkbox', { name: `Show ${destination} in buckets` }).check();
  }
}

/** From the review: activates the draft, closes the wizard, and answers its row on All Formulas, once Active. */
async function activate(name: string, save: typeof saveThen = saveThen) {
  await button('Continue').click();
  await expect.poll(openStep, SOON).toBe('processing');
  await save('Processing', 'review', 'Activate the formula');
  await page.getByRole('button', { name: 'Close the wizard' }).click();
  await wizard().waitFor({ state: 'detached' });
  const row = page.getByRole('table', { name: 'Formulas' }).getByRole('row').filter({ hasText: name });
  await expect.poll(() => row.getByRole('cell').nth(3).textContent(), SOON).toBe('Active');
  return row;
}

async function addDataSource(system: string, name: string) {
  await page.getByRole('button', { name: 'Add data source', exact: true }).click();
  await field('System').click();
  await page.getByRole('option', { name: system, exact: true }).click();
  await field('Display name').fill(name);
}

/** Uploads a file to the live formula from All Formulas, as its 'Upload a file' does. */
async function uploadToFormula(name: string, content: Buffer) {
  await page.goto(`${server.url}/integrations-formulas`);
  await page.getByRole('button', { name: `Upload a file: ${FORMULA}` }).click();
  const dialog = page.getByRole('dialog', { name: `Upload a file to ${FORMULA}` });
  await dialog.locator('[data-testid="upload-dropzone"] input[type="file"]').setInputFiles({ name, mimeType: 'text/csv', buffer: content });
  const outcome = dialog.locator('[role="alert"][data-outcome]');
  await expect.poll(() => outcome.getAttribute('data-outcome'), SOON).toBe('success');
  return dialog;
}

const records = () => page.getByRole('table', { name: 'Records' });
const rowWith = (text: string) => records().getByRole('row').filter({ hasText: text });
const toolbar = () => page.getByRole('toolbar', { name: 'Record actions' });

/** Where the formula's runs and records stand, for a failure to say. */
async function whereThingsAre(): Promise<string> {
  const runs = await db.query('select status, error, counts from formula_runs where formula_id = $1 order by created_on', [formulaId]);
  const rows = await db.query('select bucket, state, error_reason from records where formula_id = $1', [formulaId]);
  return JSON.stringify({ runs: runs.rows, records: rows.rows });
}

/** Opens a bucket of the formula, again until the run has put the record there. */
async function openBucketWith(bucket: 'needs-attention' | 'ready-records' | 'sent', text: string) {
  try {
    await expect.poll(async () => {
      await page.goto(`${server.url}/${formulaId}/${bucket}`);
      await records().or(page.getByText('No records in this bucket.')).first().waitFor();
      return rowWith(text).count();
    }, { timeout: 30_000, interval: 500 }).toBe(1);
  } catch (err) {
    throw new Error(`${String(err)}\n${await whereThingsAre()}`);
  }
}

const hoppers = () => [...sky.constituents.values()].filter((c) => c.last === 'Hopper');

describe("Raiser's Edge NXT, whole, in Chromium", () => {
  it('connects Raiser\'s Edge NXT on Connections through Blackbaud\'s consent page', async () => {
    await page.waitForURL(/\/connections$/);
    await expect.poll(() => page.getByRole('button', { name: 'Add data source', exact: true }).isEnabled(), SOON).toBe(true);

    // the file-upload source the formula reads from
    await addDataSource('File upload', 'Uploads');
    await saveDataSource();

    await addDataSource("Raiser's Edge NXT", 'Riverside RE NXT');
    await field('Application ID (OAuth client ID)').fill(SKY_APP.clientId);
    await field('Application secret').fill(SKY_APP.clientSecret);
    await field('SKY API subscription key').fill(SKY_APP.subscriptionKey);
    await drawer().getByRole('button', { name: "Connect to Raiser's Edge NXT" }).click();

    // Blackbaud's consent page, where the environment's administrator authorizes Tributary
    await page.waitForURL((u) => u.href.startsWith(`${sky.url}/oauth/authorize?`));
    await page.getByRole('heading', { name: 'Authorize application' }).waitFor();
    const asked = new URL(page.url()).searchParams;
    expect(Object.fromEntries(asked)).toMatchObject({ response_type: 'code', client_id: SKY_APP.clientId, code_challenge_method: 'S256' });
    await shots('0-consent');
    await page.getByRole('button', { name: 'Authorize' }).click();

    // back on Connections, connected, the code gone from the address
    await page.waitForURL(/\/connections$/);
    await expect.poll(() => drawer().getByRole('status').first().textContent(), SOON).toContain("Connected to Raiser's Edge NXT (Riverside Production).");
    const exchange = sky.seen.find((r) => r.path === '/token' && String(r.body).includes('grant_type=authorization_code'))!;
    expect(exchange.headers.authorization).toBe(`Basic ${Buffer.from(`${SKY_APP.clientId}:${SKY_APP.clientSecret}`).toString('base64')}`);
    expect(new URLSearchParams(String(exchange.body)).get('code_verifier')).toBeTruthy();
    await shots('1-connected');

    // the saved grant works: the test signs in with the refresh token the consent gave
    await drawer().getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => drawer().getByText("Signed in to Raiser's Edge NXT (Riverside Production).").count(), SOON).toBeGreaterThan(0);
    expect(sky.refreshes()).toBeGreaterThan(0);
    await saveDataSource();
    await page.getByRole('table').getByText('Riverside RE NXT').first().waitFor();
    await shots('2-connections');
  }, 60_000);

  it('builds a formula from an uploaded file into Raiser\'s Edge NXT constituents, and activates it', async () => {
    await page.goto(`${server.url}/files/upload`);
    await page.getByRole('heading', { name: 'Upload a file' }).waitFor();
    await page.locator('[data-testid="upload-dropzone"] input[type="file"]')
      .setInputFiles({ name: 'spring-sample.csv', mimeType: 'text/csv', buffer: csv([HEADER, ['Ada', 'Lovelace', 'ada@analytical.example'], ['Alan', 'Turing', 'alan@bletchley.example']]) });
    await expect.poll(() => page.locator('[role="alert"][data-outcome]').getAttribute('data-outcome'), SOON).toBe('success');

    await newFormula(FORMULA, 'Uploads (File upload)', "Riverside RE NXT (Raiser's Edge NXT)");
    await saveAndExpect('Data sources', 'formula-types');

    const sampleFile = wizard().getByRole('combobox', { name: /^Sample file/ });
    await expect.poll(() => sampleFile.isEnabled(), SOON).toBe(true);
    const uploaded = sampleFile.locator('option', { hasText: 'spring-sample.csv' });
    await uploaded.waitFor({ state: 'attached' });
    await sampleFile.selectOption((await uploaded.getAttribute('value'))!);
    await chooseObject('Destination object', 'Constituents');
    await saveAndExpect('Formula type', 'additional-settings-destination');

    await saveAndExpect('Destination settings', 'mapping');

    // the file's columns come mapped by their names onto the constituent's fields
    const fieldsTable = wizard().getByRole('table', { name: 'Destination fields' });
    await fieldsTable.waitFor();
    for (const [destination, source] of [['First name', 'First name'], ['Last name', 'Last name'], ['E-mail (primary)', 'Email']] as const) {
      expect(await fieldsTable.getByRole('combobox', { name: `Source field for ${destination}` }).inputValue(), destination).toBe(source);
    }
    // the buckets show who each record is
    for (const destination of ['First name', 'Last name', 'E-mail (primary)']) await fieldsTable.getByRole('checkbox', { name: `Show ${destination} in buckets` }).check();
    const preview = wizard().getByRole('table', { name: 'Preview' });
    await expect.poll(() => preview.locator('td[data-field="email"]').first().textContent(), SOON).toBe('ada@analytical.example');
    await shots('3-mapping');
    await saveAndExpect('Mapping', 'matching');

    // matched by e-mail, as recommended
    await wizard().getByTestId('recommended-note').waitFor();
    const scenarioNames = await wizard().getByTestId('scenario').getByRole('textbox', { name: 'Scenario name' })
      .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    expect(scenarioNames).toContain('E-mail');
    await saveAndExpect('Matching', 'routing');

    // a new supporter is reviewed first; a single match is ready to send
    await wizard().getByRole('radiogroup', { name: 'Records with no match' }).getByRole('radio', { name: 'Review in Needs Attention' }).check();
    await wizard().getByRole('radiogroup', { name: 'Records with a single match' }).getByRole('radio', { name: 'Add to Ready', exact: true }).check();
    await saveAndExpect('Routing', 'review');

    const summary = wizard().getByTestId('formula-summary');
    await expect.poll(() => summary.locator('[data-summary="destination"]').textContent(), SOON).toContain("Riverside RE NXT (Raiser's Edge NXT)");
    // the constituent's fields by the names Raiser's Edge NXT gives them
    await expect.poll(() => summary.getByRole('table', { name: 'Mapped fields' }).locator('tbody td:first-child').allTextContents(), SOON)
      .toEqual(['First name', 'Last name', 'E-mail (primary)']);
    await shots('4-review');
    await activate(FORMULA, saveAndExpect);
  }, 90_000);

  it('takes a file of a new supporter, reviewed in Needs Attention, created and sent to Raiser\'s Edge NXT', async () => {
    const dialog = await uploadToFormula('spring-1.csv', csv([HEADER, ['Grace', 'Hopper', NEW_EMAIL]]));
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    await openBucketWith('needs-attention', NEW_EMAIL);
    await shots('5-needs-attention');
    await rowWith(NEW_EMAIL).getByRole('button', { name: /^Review record/ }).click();
    const review = page.getByRole('dialog', { name: 'Record review' });
    await review.getByText('The searches found no destination record. Use Match Search, or create a new record.').waitFor();
    // its state and bucket in words
    expect(await review.locator('.mantine-Badge-root').allTextContents()).toEqual(['Needs Attention', 'New']);
    await shots('6-record-review');
    await review.getByRole('toolbar', { name: 'Record decisions' }).getByRole('button', { name: 'Create new' }).click();
    await review.getByRole('status').filter({ hasText: /./ }).first().waitFor();
    await page.keyboard.press('Escape');
    await review.waitFor({ state: 'hidden' });
    await rowWith(NEW_EMAIL).waitFor({ state: 'detached' });

    await openBucketWith('ready-records', NEW_EMAIL);
    await rowWith(NEW_EMAIL).getByRole('checkbox').check();
    await toolbar().getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog', { name: 'Send records now?' }).getByRole('button', { name: 'Send now' }).click();
    await page.getByText('1 record queued for sending.').waitFor();

    await expect.poll(() => hoppers().length, { timeout: 20_000, interval: 250 }).toBe(1);
    expect(sky.view(hoppers()[0]!.id)).toMatchObject({ first: 'Grace', last: 'Hopper', email: { address: NEW_EMAIL, primary: true } });
  }, 60_000);

  it('updates that constituent from a second file with the same supporter, and makes no second one', async () => {
    const grace = hoppers()[0]!;
    const total = sky.constituents.size;
    const dialog = await uploadToFormula('spring-2.csv', csv([HEADER, ['Gracie', 'Hopper', NEW_EMAIL]]));
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    await openBucketWith('ready-records', 'Gracie');
    // its review beside the constituent it matched; at a phone's width every destination value is in sight, not scrolled off to the side
    await rowWith('Gracie').getByRole('button', { name: /^Review record/ }).click();
    const review = page.getByRole('dialog', { name: 'Record review' });
    await review.locator('[data-destination-value]').filter({ hasText: /^Grace$/ }).waitFor();
    // the constituent it matched opens on its own page of the web view, in the grant's environment, in a new tab
    const pages = review.getByRole('link', { name: /in the destination \(new tab\)$/ });
    expect(await pages.evaluateAll((links) => links.map((a) => [a.getAttribute('href'), a.getAttribute('target')])))
      .toContainEqual([`https://host.nxt.blackbaud.com/constituent/records/${grace.id}?envid=p-riverside`, '_blank']);
    await shots('7-record-review-match');
    await page.setViewportSize(PHONE);
    try {
      const values = review.locator('[data-destination-value]');
      await values.filter({ hasText: /^Grace$/ }).waitFor();
      expect(await values.count()).toBeGreaterThan(2);
      for (const box of await values.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect))) {
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      }
    } finally {
      await page.setViewportSize(DESKTOP);
    }
    await page.keyboard.press('Escape');
    await review.waitFor({ state: 'hidden' });
    await rowWith('Gracie').getByRole('checkbox').check();
    await toolbar().getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog', { name: 'Send records now?' }).getByRole('button', { name: 'Send now' }).click();
    await page.getByText('1 record queued for sending.').waitFor();

    await expect.poll(() => sky.constituents.get(grace.id)?.first, { timeout: 20_000, interval: 250 }).toBe('Gracie');
    expect(sky.constituents.size).toBe(total);
    expect(hoppers()).toHaveLength(1);
    expect(sky.view(grace.id)).toMatchObject({ last: 'Hopper', email: { address: NEW_EMAIL } });
    expect(sky.emails.filter((e) => e.constituent_id === grace.id)).toHaveLength(1);
  }, 60_000);
  it("builds a Mailchimp → Raiser's Edge NXT formula in the wizard, runs it, and the audience's member is a constituent", async () => {
    const MEMBER = 'katherine.johnson@langley.example';
    mc.add(AUDIENCE, { email: MEMBER, merge: { FNAME: 'Katherine', LNAME: 'Johnson' } });
    const NAME = 'Newsletter members into RE NXT';

    // the Mailchimp data source, connected through Mailchimp's consent (its fake grants at once); the
    // data centre comes from the token's metadata
    await openConnections();
    await addDataSource('Mailchimp', 'Riverside Mailchimp');
    await field('Authentication type').click();
    await page.getByRole('option', { name: 'Sign in with Mailchimp (OAuth)', exact: true }).click();
    await field('App client ID').fill(MAILCHIMP_APP.clientId);
    await field('App client secret').fill(MAILCHIMP_APP.clientSecret);
    await drawer().getByRole('button', { name: 'Connect to Mailchimp' }).click();
    await page.waitForURL(/\/connections$/);
    await expect.poll(() => drawer().getByRole('status').first().textContent(), SOON).toContain('Connected to Mailchimp.');
    await drawer().getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => drawer().getByText(`Mailchimp answered: Everything's Chimpy! (account ${MAILCHIMP_ACCOUNT})`).count(), SOON).toBeGreaterThan(0);
    await shots('8-mailchimp-connected');
    await saveDataSource();
    await page.getByRole('table').getByText('Riverside Mailchimp').first().waitFor();

    await newFormula(NAME, 'Riverside Mailchimp (Mailchimp)', "Riverside RE NXT (Raiser's Edge NXT)");
    // the audience the members are read from, asked for as soon as Mailchimp is the source
    await wizard().getByRole('textbox', { name: /^Audience ID/ }).fill(AUDIENCE);
    await saveThen('Data sources', 'formula-types');

    await chooseObject('Source object', 'Audience members');
    await chooseObject('Destination object', 'Constituents');
    await saveThen('Formula type', 'additional-settings-source');

    expect(await wizard().getByRole('textbox', { name: /^Audience ID/ }).inputValue()).toBe(AUDIENCE);
    await saveThen('Source settings', 'additional-settings-destination');
    await saveThen('Destination settings', 'mapping');

    await mapFrom([['First name', 'FNAME'], ['Last name', 'LNAME'], ['E-mail (primary)', 'email_address']]);
    await saveThen('Mapping', 'matching');

    // matched by e-mail, as recommended
    await wizard().getByTestId('recommended-note').waitFor();
    const scenarioNames = await wizard().getByTestId('scenario').getByRole('textbox', { name: 'Scenario name' })
      .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    expect(scenarioNames).toContain('E-mail');
    await saveThen('Matching', 'routing');

    // a new member is ready to send
    await wizard().getByRole('radiogroup', { name: 'Records with no match' }).getByRole('radio', { name: 'Add to Ready as new records' }).check();
    await saveThen('Routing', 'scheduling');
    await saveThen('Scheduling', 'review');

    const summary = wizard().getByTestId('formula-summary');
    await expect.poll(() => summary.locator('[data-summary="source"]').textContent(), SOON).toContain('Riverside Mailchimp (Mailchimp)');
    // the phone merge field comes mapped by its name too
    await expect.poll(() => summary.getByRole('table', { name: 'Mapped fields' }).locator('tbody td:first-child').allTextContents(), SOON)
      .toEqual(['First name', 'Last name', 'E-mail (primary)', 'Phone (primary)']);
    // each from the member's field by the name Mailchimp gives it
    expect(await summary.getByRole('table', { name: 'Mapped fields' }).locator('tbody td:nth-child(2)').allTextContents())
      .toEqual(['First Name', 'Last Name', 'E-mail address', 'Phone Number']);
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
    await page.screenshot({ path: '/tmp/mailchimp-review.png' });
    const row = await activate(NAME);

    // run now: the member is collected, matched with no constituent, and ready to send
    await row.getByRole('button', { name: `Run now: ${NAME}` }).click();
    await openBucketWith('ready-records', MEMBER);
    await rowWith(MEMBER).getByRole('checkbox').check();
    await toolbar().getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog', { name: 'Send records now?' }).getByRole('button', { name: 'Send now' }).click();
    await page.getByText('1 record queued for sending.').waitFor();

    const johnsons = () => [...sky.constituents.values()].filter((c) => c.last === 'Johnson');
    await expect.poll(() => johnsons().length, { timeout: 20_000, interval: 250 }).toBe(1);
    expect(sky.view(johnsons()[0]!.id)).toMatchObject({ first: 'Katherine', last: 'Johnson', email: { address: MEMBER, primary: true } });
  }, 60_000);
  it('builds a Stripe → Sandbox CRM formula in the wizard, each charge a constituent and its gift, runs it, and the gifts arrive with their donors', async () => {
    st.clear();
    const ada = st.customer({ name: 'Ada Lovelace', email: 'ada.journey@example.org', created: new Date(Date.UTC(2026, 2, 1)) });
    st.charge({ amount: 2500, customer: ada.id, created: new Date(Date.UTC(2026, 2, 2)), description: 'Spring appeal' });
    st.charge({ amount: 1000, customer: ada.id, created: new Date(Date.UTC(2026, 2, 3)), description: 'Spring appeal' });
    st.charge({ amount: 5000, billing: { name: 'Grace Hopper', email: 'grace.journey@example.org' }, created: new Date(Date.UTC(2026, 2, 4)), description: 'Building fund' });
    const NAME = 'Stripe gifts into the Sandbox CRM';

    await openConnections();
    await addDataSource('Stripe', 'Riverside Stripe');
    await field('Secret or restricted key').fill(STRIPE_READ_KEY);
    await drawer().getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => drawer().getByText('Stripe accepted the key (test mode).').count(), SOON).toBeGreaterThan(0);
    await saveDataSource();

    await newFormula(NAME, 'Riverside Stripe (Stripe)', 'Sandbox CRM (Sandbox CRM)');
    await saveThen('Data sources', 'formula-types');
    await chooseObject('Source object', 'Charges');
    await chooseObject('Destination object', 'Constituents');
    await saveThen('Formula type', 'additional-settings-destination');
    await saveThen('Destination settings', 'mapping');

    // the donor from the charge's customer, and from each charge its gift
    await mapFrom([['First name', 'customer_first_name'], ['Last name', 'customer_last_name'], ['E-mail', 'customer_email']]);
    await wizard().getByRole('checkbox', { name: 'Also write a gift from each row' }).check();
    const gift = wizard().getByRole('group', { name: 'Gift fields' });
    await gift.getByRole('combobox', { name: /^Gift amount/ }).selectOption('amount');
    await gift.getByRole('combobox', { name: /^Gift date/ }).selectOption('date');
    await gift.getByRole('combobox', { name: /^Gift fund/ }).selectOption('description');
    await shots('9-stripe-mapping');
    await saveThen('Mapping', 'matching');
    await wizard().getByTestId('recommended-note').waitFor();
    await saveThen('Matching', 'routing');
    // new donors and single matches (a donor's second charge) go to Ready, and Ready records are sent without review
    await wizard().getByRole('radiogroup', { name: 'Records with no match' }).getByRole('radio', { name: 'Add to Ready as new records' }).check();
    await wizard().getByRole('radiogroup', { name: 'Records with a single match' }).getByRole('radio', { name: 'Add to Ready', exact: true }).check();
    await wizard().getByRole('radiogroup', { name: 'Ready records' }).getByRole('radio', { name: 'Send automatically' }).check();
    await saveThen('Routing', 'scheduling');
    await saveThen('Scheduling', 'review');
    const summary = wizard().getByTestId('formula-summary');
    await expect.poll(() => summary.locator('[data-summary="gift"]').textContent(), SOON).toContain('Each row that carries a gift also writes it');
    const row = await activate(NAME);
    await row.getByRole('button', { name: `Run now: ${NAME}` }).click();

    // Ada once, with both her gifts; Grace with hers
    const giftsOf = async (email: string) => (await db.query<{ amount: string; gift_date: string; fund: string | null }>(
      `select g.amount::text as amount, to_char(g.gift_date, 'YYYY-MM-DD') as gift_date, g.fund from sandbox_gifts g join sandbox_constituents c on c.id = g.constituent_id
       where lower(c.email) = $1 order by g.gift_date`, [email])).rows;
    await expect.poll(async () => (await giftsOf('ada.journey@example.org')).length, { timeout: 30_000, interval: 250 }).toBe(2);
    expect(await giftsOf('ada.journey@example.org')).toEqual([
      { amount: '25.00', gift_date: '2026-03-02', fund: 'Spring appeal' }, { amount: '10.00', gift_date: '2026-03-03', fund: 'Spring appeal' },
    ]);
    await expect.poll(async () => (await giftsOf('grace.journey@example.org')).length, { timeout: 30_000, interval: 250 }).toBe(1);
    expect((await db.query('select 1 from sandbox_constituents where lower(email) = $1', ['ada.journey@example.org'])).rowCount).toBe(1);
    // the run's outcome on its Sent view: the donors and their gifts
    await openBucketWith('sent', 'Grace');
    await shots('10-stripe-sent');
  }, 90_000);
});
