import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ADDON_BUNDLE } from '#sdk/build/bundles.ts';
import { mountEvents, startHarness, type Harness } from './harness.ts';

let harness: Harness;
let page: Page;

beforeAll(async () => {
  harness = await startHarness({ 'send-message': SAMPLE_ADDON_BUNDLE.entry });
  page = await harness.openHostPage();
  await page.evaluate(() =>
    (window as any).mountTestAddon({
      installationId: 'inst-s',
      extension: 'people.list.send_message',
      props: { listId: '42' },
      addonUrl: 'addons/send-message.js',
    }),
  );
});

afterAll(async () => {
  await harness?.close();
});

/** Clicks Authorize, approves in the popup, and waits for the popup to close itself. */
async function authorizeInPopup() {
  const popupOpened = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Authorize' }).click();
  const popup = await popupOpened;
  const closed = popup.waitForEvent('close');
  await popup.getByRole('button', { name: 'Approve' }).click();
  await closed;
}

describe('mountAddon() with the sample send_message add-on', () => {
  it('shows the Authorize button and starts no sandbox while the handshake is not done [uninitialized]', async () => {
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
    expect(await page.locator('#addon').textContent()).toBe(
      'This add-on needs your authorization before it can run.Authorize',
    );
    expect(await page.locator('iframe').count()).toBe(0);
    expect(harness.servers.proxyLog).toEqual([]);
  });

  it('runs the add-on once the popup reports the handshake done, and it lists the people of the list [popup]', async () => {
    await authorizeInPopup();
    await page.waitForFunction(() => (window as any).addonReady === true);
    await page.getByText('3 of 3 people selected').waitFor();
    expect(await page.locator('#addon li').allInnerTexts()).toEqual([
      'Ada Lovelace',
      'Grace Hopper',
      'Katherine Johnson',
    ]);
    expect(harness.servers.serviceLog.map((e) => [e.method, e.path, e.authorization])).toEqual([
      ['GET', '/people/v2/lists/42/people?per_page=100', 'Bearer service-access-token'],
    ]);
    expect(await page.getByRole('button', { name: 'Send message' }).isDisabled()).toBe(true);
  });

  it('sends the message to the selected people through the integrator and shows the result [send]', async () => {
    await page.getByRole('checkbox', { name: 'Grace Hopper' }).uncheck();
    await page.getByText('2 of 3 people selected').waitFor();
    await page.getByLabel('Message').fill('Rehearsal moves to 7pm.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByText('Message msg_1 sent to 2 people.').waitFor();
    // Sent: the message box is empty again, ready for the next message.
    expect(await page.getByLabel('Message').inputValue()).toBe('');
    const sent = harness.servers.integratorLog.filter((e) => e.path === '/api/messages');
    expect(
      sent.map((e) => ({
        method: e.method,
        authorization: e.authorization,
        contentType: e.contentType,
        body: JSON.parse(e.body.toString('utf8')),
      })),
    ).toEqual([
      {
        method: 'POST',
        authorization: 'Bearer integrator-access-token',
        contentType: 'application/json',
        body: { list_id: '42', person_ids: ['101', '103'], message: 'Rehearsal moves to 7pm.' },
      },
    ]);
  });

  it('shows Authorize again on reauthorization_required, and restarts the add-on in a fresh worker after the popup [reauthorization]', async () => {
    harness.servers.failNext('integrator', 401, {
      side: 'integrator_auth',
      code: 'reauthorization_required',
      message: 'The integrator token was revoked',
      retryable: false,
    });
    await page.getByLabel('Message').fill('Rehearsal moves to 7pm.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByText('Sending failed: The integrator token was revoked').waitFor();
    await page.getByText('This add-on needs to be authorized again.').waitFor();
    harness.servers.states.set('inst-s', 'reauthorization_required');
    const failure = (await mountEvents(page)).filter((e) => e.type === 'fetch' && e.outcome !== 'response');
    expect(failure).toEqual([
      { type: 'fetch', id: expect.any(Number), target: 'integrator', outcome: 'reauthorization_required' },
    ]);

    const frame = await page.locator('iframe').elementHandle();
    const peopleReads = harness.servers.serviceLog.length;
    await authorizeInPopup();
    await page.getByText('This add-on needs to be authorized again.').waitFor({ state: 'detached' });
    // A fresh worker: the old error is gone, the people are read again, nothing of the old state is left.
    await page.getByText('3 of 3 people selected').waitFor();
    expect(await frame.evaluate((f) => f.isConnected)).toBe(false);
    expect(await page.locator('iframe').count()).toBe(1);
    expect(await page.getByText('Sending failed: The integrator token was revoked').count()).toBe(0);
    expect(harness.servers.serviceLog.slice(peopleReads).map((e) => e.path)).toEqual([
      '/people/v2/lists/42/people?per_page=100',
    ]);
    await page.getByLabel('Message').fill('Rehearsal moves to 8pm.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByText('Message msg_2 sent to 3 people.').waitFor();
    expect(await page.evaluate(() => (window as any).mounted.status())).toEqual({ kind: 'running' });
  });
});

describe('the sample send_message add-on with a List of more than one page of people', () => {
  it('lists a checkbox for every person it counts, and a change is counted [228 people]', async () => {
    harness.servers.states.set('inst-big', 'ready');
    const big = await harness.openHostPage();
    await big.evaluate(() =>
      (window as any).mountTestAddon({
        installationId: 'inst-big',
        extension: 'people.list.send_message',
        props: { listId: '228' },
        addonUrl: 'addons/send-message.js',
      }),
    );
    await big.getByText('228 of 228 people selected').waitFor();
    const checkboxes = big.locator('#addon input[type=checkbox]');
    await expect.poll(() => checkboxes.count()).toBe(228);
    expect(await big.locator('#addon input[type=checkbox]:checked').count()).toBe(228);
    expect(await big.locator('#addon li').last().innerText()).toBe('Person 228');
    await big.getByRole('checkbox', { name: 'Person 228', exact: true }).uncheck();
    await big.getByText('227 of 228 people selected').waitFor();
    expect(await big.locator('#addon input[type=checkbox]:checked').count()).toBe(227);
    await big.close();
  });
});
