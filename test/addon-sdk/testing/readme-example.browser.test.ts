// The example of addon-sdk/README.md "Testing an add-on", as written there (test/addon-sdk/readme.test.ts keeps
// the two identical): only the import of the kit and the entry differ, since here they are repository paths.
import { afterEach, expect, it } from 'vitest';
import { startAddonTest, type AddonTest } from '@addon-kit/sdk/testing';

let addon: AddonTest | undefined;
afterEach(() => addon?.close());

it('sends the message to the people of the list', async () => {
  addon = await startAddonTest({
    entry: 'addon-sdk/sample/send-message.tsx',
    extension: 'people.list.send_message',
    props: { listId: '7' },
    responses: {
      service: {
        'GET /people/v2/lists/7/people': {
          json: { data: [{ id: '1', attributes: { first_name: 'Ada', last_name: 'Lovelace' } }] },
        },
      },
      integrator: {
        'POST /api/messages': { status: 201, json: { data: { id: 'msg_1' } } },
      },
    },
  });
  await addon.findByText('1 of 1 people selected');
  await addon.type('Message', 'Rehearsal moves to 7pm.');
  await addon.press('Send message');
  await addon.findByText('Message msg_1 sent to 1 person.');

  expect(addon.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    'GET /people/v2/lists/7/people?per_page=100',
    'POST /api/messages',
  ]);
  expect(JSON.parse(addon.requests[1]!.body!)).toEqual({
    list_id: '7',
    person_ids: ['1'],
    message: 'Rehearsal moves to 7pm.',
  });
  expect(addon.unscripted).toEqual([]);
});
