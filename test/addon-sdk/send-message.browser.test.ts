import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ADDON_BUNDLE } from '@addon-kit/sdk/internal/build/bundles.ts';
import { mountEvents, startHarness, type Harness } from './harness.ts';

let harness: Harness;
let page: Page;

beforeAll(async () => {
  harness = await startHarness({ 'send-message': SAMPLE_ADDON_BUNDLE.entry });
  page = await harness.openHostPage();
  await page.evaluate(() => (window as any).mountTestAddon({ installationId: 'inst-s', extension: 'people.list.send_message', props: { listId: '42' }, addonUrl: 'addons/send-message.js' }));
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
    expect(await page.locator('#addon').textContent()).toBe('This add-on needs your authorization before it can run.Authorize');
    expect(await page.locator('iframe').count()).toBe(0);
    expect(harness.servers.proxyLog).toEqual([]);
  });

  it('runs the add-on once the popup reports the handshake done, and it lists the people of the list [popup]', async () => {
    await authorizeInPopup();
    await page.waitForFunction(() => (window as any).addonReady === true);
    await page.getByText('3 of 3 people selected').waitFor();
    expect(await page.locator('#addon li').allInnerTexts()).toEqual(['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
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
    const sent = harness.servers.integratorLog.filter((e) => e.path === '/api/messages');
    expect(sent.map((e) => ({ method: e.method, authorization: e.authorization, contentType: e.contentType, body: JSON.parse(e.body.toString('utf8')) }))).toEqual([
      { method: 'POST', authorization: 'Bearer integrator-access-token', contentType: 'application/json', body: { list_id: '42', person_ids: ['101', '103'], message: 'Rehearsal moves to 7pm.' } },
    ]);
  });

  it('shows Authorize again when the proxy answers reauthorization_required, and recovers after the popup [reauthorization]', async () => {
    harness.servers.failNext('integrator', 401, { side: 'integrator_auth', code: 'reauthorization_required', message: 'The integrator token was revoked', retryable: false });
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByText('Sending failed: The integrator token was revoked').waitFor();
    await page.getByText('This add-on needs to be authorized again.').waitFor();
    harness.servers.states.set('inst-s', 'reauthorization_required');
    const failure = (await mountEvents(page)).filter((e) => e.type === 'fetch' && e.outcome !== 'response');
    expect(failure).toEqual([{ type: 'fetch', id: expect.any(Number), target: 'integrator', outcome: 'reauthorization_required' }]);

    await authorizeInPopup();
    await page.getByText('This add-on needs to be authorized again.').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByText('Message msg_2 sent to 2 people.').waitFor();
  });
});
