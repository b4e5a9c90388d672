/**
 * The add-on in a real Chromium worker against the SDK's fake host: the two fetches answered from scripts,
 * the rendered UI read and used as a person would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonTest, type AddonTest } from '@addon-kit/sdk/testing';

let addon: AddonTest;

beforeAll(async () => {
  addon = await startAddonTest({
    entry: 'src/index.tsx',
    extension: 'people.list.send_message',
    props: { listId: '7' },
    responses: {
      service: {
        'GET /current/v2/me': {
          json: { data: { type: 'Person', id: '1', attributes: { first_name: 'Alex', last_name: 'Admin' } } },
        },
      },
      integrator: {
        'GET /api/messages': { json: { data: [{ id: '1' }, { id: '2' }] } },
        'POST /api/messages': { status: 201, json: { data: { id: '3' } } },
      },
    },
  });
});

afterAll(async () => {
  await addon?.close();
});

describe('the add-on', () => {
  it('greets the signed-in person and counts their messages [authenticatedFetch, authenticatedIntegratorFetch]', async () => {
    await addon.findByText('Hello, Alex');
    await addon.findByText('You have sent 2 message(s).');
  });

  it('sends the typed message to the integrator and says so [POST /api/messages]', async () => {
    await addon.type('Message', 'See you on Sunday');
    await addon.press('Send message');
    await addon.findByText('Message 3 sent.');
    const post = addon.requests.find((r) => r.method === 'POST');
    expect(post?.target).toBe('integrator');
    expect(post?.path).toBe('/api/messages');
    expect(addon.unscripted).toEqual([]);
  });
});
