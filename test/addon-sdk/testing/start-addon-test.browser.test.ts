import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ADDON_BUNDLE } from '#sdk/build/bundles.ts';
import { launchChromium, startAddonTest, textOf, type AddonTest } from '@addon-kit/sdk/testing';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const person = (id: string, first: string, last: string) => ({
  type: 'Person',
  id,
  attributes: { first_name: first, last_name: last },
});
const checkbox = (label: string, checked: boolean) => ({
  type: 'ListItem',
  props: {},
  children: [{ type: 'Checkbox', props: { checked, disabled: false, label }, children: [] }],
});

describe('startAddonTest() with the sample send_message add-on', () => {
  let addon: AddonTest;
  beforeAll(async () => {
    addon = await startAddonTest({
      entry: SAMPLE_ADDON_BUNDLE.entry,
      browser,
      extension: 'people.list.send_message',
      props: { listId: '7' },
      responses: {
        service: {
          'GET /people/v2/lists/7/people?per_page=100': {
            json: {
              data: [person('1', 'Ada', 'Lovelace'), person('2', 'Grace', 'Hopper')],
              links: { next: 'https://host.example/people/v2/lists/7/people?per_page=100&offset=100' },
            },
          },
          // The second page, by the absolute links.next the first page gave (query in another order).
          'GET /people/v2/lists/7/people?offset=100&per_page=100': {
            json: { data: [person('3', 'Katherine', 'Johnson')] },
          },
        },
        integrator: {
          'POST /api/messages': { status: 201, json: { data: { id: 'msg_9' } } },
        },
      },
    });
  });
  afterAll(async () => {
    await addon?.close();
  });

  it('renders the UI tree from every scripted page of the List', async () => {
    await addon.findByText('3 of 3 people selected');
    expect(addon.tree).toEqual([
      {
        type: 'Stack',
        props: { gap: 'medium' },
        children: [
          {
            type: 'TextArea',
            props: { label: 'Message', value: '', placeholder: 'Write your message', disabled: false },
            children: [],
          },
          { type: 'Button', props: { variant: 'primary', disabled: true }, children: ['Send message'] },
          { type: 'Text', props: { tone: 'subdued', strong: false }, children: ['3 of 3 people selected'] },
          {
            type: 'List',
            props: { ordered: false },
            children: [
              checkbox('Ada Lovelace', true),
              checkbox('Grace Hopper', true),
              checkbox('Katherine Johnson', true),
            ],
          },
        ],
      },
    ]);
    expect(addon.requests).toEqual([
      {
        target: 'service',
        method: 'GET',
        url: 'https://host.example/people/v2/lists/7/people?per_page=100',
        path: '/people/v2/lists/7/people?per_page=100',
        headers: {},
        body: null,
        outcome: 'scripted',
      },
      {
        target: 'service',
        method: 'GET',
        url: 'https://host.example/people/v2/lists/7/people?per_page=100&offset=100',
        path: '/people/v2/lists/7/people?per_page=100&offset=100',
        headers: {},
        body: null,
        outcome: 'scripted',
      },
    ]);
  });

  it('sends the scripted integrator POST after the person unchecks, types and presses, and records it', async () => {
    await addon.check('Grace Hopper', false);
    await addon.findByText('2 of 3 people selected');
    await addon.type('Message', 'Rehearsal moves to 7pm.');
    await addon.press('Send message');
    const banner = await addon.findByText('Message msg_9 sent to 2 people.');
    expect(banner).toEqual({
      type: 'Banner',
      props: { tone: 'success' },
      children: ['Message msg_9 sent to 2 people.'],
    });
    // Sent: the message box is empty again, ready for the next message.
    const stack = addon.tree[0] as { children: { type: string; props: Record<string, unknown> }[] };
    expect(stack.children.find((node) => node.type === 'TextArea')?.props.value).toBe('');
    expect(addon.requests.slice(2)).toEqual([
      {
        target: 'integrator',
        method: 'POST',
        url: 'https://integrator.example/api/messages',
        path: '/api/messages',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ list_id: '7', person_ids: ['1', '3'], message: 'Rehearsal moves to 7pm.' }),
        outcome: 'scripted',
      },
    ]);
    expect(addon.unscripted).toEqual([]);
    expect(addon.events.map((e) => (e.type === 'fetch' ? `${e.target} ${e.outcome} ${e.status}` : e.type))).toEqual([
      'service response 200',
      'service response 200',
      'integrator response 201',
    ]);
  });
});

describe('startAddonTest() with a fixture add-on', () => {
  let addon: AddonTest;
  beforeAll(async () => {
    addon = await startAddonTest({
      entry: fixture('kit-addon.tsx'),
      browser,
      extension: 'people.profile.custom_tab',
      props: { personId: '12' },
      environment: 'beta',
      responses: {
        service: {
          'POST /people/v2/echo': (request) => ({ json: { got: request.body, custom: request.headers['x-custom'] } }),
          'GET /people/v2/throws': () => {
            throw new Error('the test script is broken');
          },
        },
        integrator: {
          'GET /api/whoami': {
            fail: 'integrator_auth',
            code: 'reauthorization_required',
            message: 'The integrator token was revoked',
          },
        },
      },
    });
  });
  afterAll(async () => {
    await addon?.close();
  });

  it('gives addOnContext() and addOnEnvironment() the extension, props and environment of the options', async () => {
    const node = await addon.findByText(/^context: /);
    expect(textOf(node)).toBe('context: people.profile.custom_tab {"personId":"12"} beta');
  });

  it('answers an unscripted call 404 not_scripted, which the add-on sees and the test finds in unscripted [unscripted]', async () => {
    await addon.press('Unscripted');
    await addon.findByText(/^unscripted: /);
    expect(textOf(addon.queryByText(/^unscripted: /)!)).toBe(
      'unscripted: 404 {"errors":[{"status":"404","code":"not_scripted","title":"Not scripted","detail":"No scripted response for GET /people/v2/nothing?x=1"}]}',
    );
    expect(addon.unscripted).toEqual([
      {
        target: 'service',
        method: 'GET',
        url: 'https://host.example/people/v2/nothing?x=1',
        path: '/people/v2/nothing?x=1',
        headers: {},
        body: null,
        outcome: 'not_scripted',
      },
    ]);
  });

  it('refuses a call to another origin than the API base with policy_denied, as the host proxy does [not_allowed]', async () => {
    await addon.press('Elsewhere');
    expect(textOf(await addon.findByText(/^elsewhere: /))).toBe('elsewhere: policy_denied not_allowed');
    expect(addon.unscripted.at(-1)).toEqual({
      target: 'integrator',
      method: 'POST',
      url: 'https://elsewhere.example/steal',
      path: '/steal',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: 'secret',
      outcome: 'not_allowed',
    });
  });

  it("fails a call with a scripted proxy failure as the SDK's typed error [failure]", async () => {
    await addon.press('Failure');
    expect(textOf(await addon.findByText(/^failure: /))).toBe(
      'failure: reauthorization_required reauthorization_required',
    );
    expect(addon.events.at(-1)).toEqual({
      type: 'fetch',
      id: expect.any(Number),
      target: 'integrator',
      outcome: 'reauthorization_required',
    });
  });

  it('passes the recorded request to a responder function and sends what it returns [function]', async () => {
    await addon.press('Echo');
    expect(textOf(await addon.findByText(/^echo: /))).toBe('echo: 200 {"got":"ping","custom":"yes"}');
    expect(addon.requests.at(-1)).toEqual({
      target: 'service',
      method: 'POST',
      url: 'https://host.example/people/v2/echo',
      path: '/people/v2/echo',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-custom': 'yes' },
      body: 'ping',
      outcome: 'scripted',
    });
  });

  it('fails the call as upstream_unreachable (script_failed) when a responder function throws [throwing responder]', async () => {
    await addon.press('Throwing');
    expect(textOf(await addon.findByText(/^throwing: /))).toBe('throwing: upstream_unreachable script_failed');
    expect(addon.requests.at(-1)).toMatchObject({ method: 'GET', path: '/people/v2/throws', outcome: 'scripted' });
  });

  it('types into a TextField (onInput, then onChange on leaving it) and chooses in a Select', async () => {
    await addon.type('Name', 'Ada');
    await addon.select('Color', 'blue');
    await addon.findByText('name: Ada, changed: Ada, color: blue');
    expect(addon.tree[0]!.children.filter((n) => typeof n !== 'string' && n.type === 'TextField')).toEqual([
      { type: 'TextField', props: { label: 'Name', value: 'Ada', disabled: false }, children: [] },
    ]);
  });

  it('reports a UI update outside the allow-list as ui-rejected and keeps the last accepted tree [allow-list]', async () => {
    const before = addon.tree;
    await addon.press('Hostile');
    const rejected = await addon.waitFor(() => {
      const event = addon.events.find((e) => e.type === 'ui-rejected');
      if (!event) throw new Error('no ui-rejected event yet');
      return event;
    });
    expect(rejected).toEqual({ type: 'ui-rejected', reason: 'origin not declared: src' });
    expect(addon.tree).toEqual(before);
  });

  it('fails press() on a Button that stays disabled, and findByText() on missing text, showing the UI [timeout]', async () => {
    const pressed = await addon.press('Never enabled', { timeout: 300 }).catch((e: Error) => e.message);
    expect(pressed).toMatch(/^press\("Never enabled"\): locator\.click: Timeout 300ms exceeded\./);
    expect(pressed).toContain(
      '\nUI now:\n<Stack>\n  <Text strong=false>\n    "context: people.profile.custom_tab {\\"personId\\":\\"12\\"} beta"\n',
    );
    expect(pressed).toContain('\nUI update rejected: origin not declared: src\n');
    expect(pressed).toContain(
      '\nnot_scripted: GET https://host.example/people/v2/nothing?x=1\nnot_allowed: POST https://elsewhere.example/steal',
    );
    const found = await addon.findByText('never there', { timeout: 200 }).catch((e: Error) => e.message);
    expect(found).toMatch(/^findByText\(never there\): not rendered within 200 ms\nUI now:\n<Stack>\n/);
  });
});

describe('startAddonTest()', () => {
  it('rejects with the boot error when the add-on throws at start or never says hello, and closes what it started [boot]', async () => {
    const contexts = browser.contexts().length;
    const error = await startAddonTest({ entry: fixture('throwing-addon.ts'), browser, bootTimeoutMs: 3000 }).catch(
      (e: Error) => e.message,
    );
    // The worker imports the script across origins: the browser reports a top-level throw as a load failure.
    expect(error).toMatch(
      new RegExp(
        '^startAddonTest: the add-on did not start \\(worker_failed\\): Uncaught NetworkError: ' +
          "Failed to execute 'importScripts' on 'WorkerGlobalScope': The script at 'http://127\\.0\\.0\\.1:\\d+/addons/addon\\.js' " +
          'failed to load\\. \\(the script is missing, or it threw while it first ran\\)$',
      ),
    );
    const silent = await startAddonTest({ script: fixture('silent-addon.ts'), browser, bootTimeoutMs: 500 }).catch(
      (e: Error) => e.message,
    );
    expect(silent).toBe(
      'startAddonTest: the add-on did not start (boot_timeout): The add-on did not start within 500 ms',
    );
    expect(browser.contexts().length).toBe(contexts);
  });

  it("renders an Image of an origin given in uiOrigins, as the host does for the config's ui_origins [uiOrigins]", async () => {
    const declared = await startAddonTest({
      entry: fixture('kit-addon.tsx'),
      browser,
      uiOrigins: ['http://plain-http.example'],
    });
    try {
      await declared.press('Hostile');
      const image = await declared.waitFor(() => {
        const found = declared.tree[0]!.children.find((n) => typeof n !== 'string' && n.type === 'Image');
        if (!found) throw new Error('no Image yet');
        return found;
      });
      expect(image).toEqual({
        type: 'Image',
        props: { src: 'http://plain-http.example/pixel.png', alt: 'pixel' },
        children: [],
      });
      expect(declared.events.filter((e) => e.type === 'ui-rejected')).toEqual([]);
    } finally {
      await declared.close();
    }
  });

  it('launches its own Chromium and closes it, leaving a given browser open [browser]', async () => {
    const own = await startAddonTest({ entry: fixture('kit-addon.tsx') });
    const ownBrowser = own.page.context().browser()!;
    expect(ownBrowser).not.toBe(browser);
    await own.close();
    expect(ownBrowser.isConnected()).toBe(false);
    const shared = await startAddonTest({ entry: fixture('kit-addon.tsx'), browser });
    await shared.close();
    expect(browser.isConnected()).toBe(true);
  });

  it('refuses a missing Chromium with a clear error and never downloads one [chromiumPath]', async () => {
    const error = await startAddonTest({
      entry: fixture('kit-addon.tsx'),
      chromiumPath: '/nonexistent/chromium',
    }).catch((e: Error) => e.message);
    expect(error).toBe(
      'Chromium not found at /nonexistent/chromium: install it (Debian: apt-get install -y chromium) ' +
        'or set CHROMIUM_PATH (or the chromiumPath option) to its executable',
    );
  });

  it('refuses options with both or neither of entry and script, and a malformed response key', async () => {
    await expect(startAddonTest({})).rejects.toThrow('startAddonTest: give exactly one of `entry` and `script`');
    await expect(startAddonTest({ entry: 'a.tsx', script: 'a.js' })).rejects.toThrow(
      'startAddonTest: give exactly one of `entry` and `script`',
    );
    await expect(
      startAddonTest({ entry: 'a.tsx', responses: { service: { '/people/v2': { json: {} } } } }),
    ).rejects.toThrow('startAddonTest: response key "/people/v2" is not "METHOD /path"');
  });
});
