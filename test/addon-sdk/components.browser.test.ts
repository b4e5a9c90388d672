/** The host-rendered components an add-on uses, as the host page's DOM has them: classes, roles, labels, errors. */
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startAddonTest, type AddonTest } from '@addon-kit/sdk/testing';
import { expectAccessible } from '../support/page-checks.ts';

let browser: Browser;
let addon: AddonTest;

beforeAll(async () => {
  browser = await launchChromium();
  addon = await startAddonTest({
    entry: fileURLToPath(new URL('./fixtures/components-addon.tsx', import.meta.url)),
    browser,
    extension: 'people.list.send_message',
    responses: {},
  });
  await addon.findByText('Sent.');
});
afterAll(async () => {
  await addon?.close();
  await browser?.close();
});

describe('the host components (addon-sdk/host/components)', () => {
  it("renders variants, tones and gaps as the components' stylesheet classes, never as styles of the add-on", async () => {
    const root = addon.page.locator('#addon');
    const classes = await root
      .locator('button')
      .evaluateAll((buttons) => buttons.map((b) => `${b.textContent}: ${b.className}`));
    expect(classes).toEqual([
      'Save: addon-kit-button addon-kit-button-primary',
      'Cancel: addon-kit-button addon-kit-button-secondary',
      'Details: addon-kit-button addon-kit-button-plain',
      'Delete list: addon-kit-button addon-kit-button-destructive',
    ]);
    const stacks = await root.locator('.addon-kit-stack').evaluateAll((divs) => divs.map((d) => d.className));
    expect(stacks).toEqual([
      'addon-kit-stack addon-kit-stack-vertical addon-kit-gap-large',
      'addon-kit-stack addon-kit-stack-horizontal addon-kit-gap-small',
    ]);
    expect(await root.locator('[style]').count()).toBe(0);
    const critical = addon.page.getByRole('alert');
    expect(await critical.getAttribute('class')).toBe('addon-kit-banner addon-kit-tone-critical');
    expect(await critical.locator('.addon-kit-banner-title').textContent()).toBe('Not sent');
    expect(await addon.page.getByRole('status').filter({ hasText: 'Sent.' }).getAttribute('class')).toBe(
      'addon-kit-banner addon-kit-tone-success',
    );
  });

  it("ties a field's error to its control and names a control without a label by its placeholder [a11y]", async () => {
    const name = addon.page.getByRole('textbox', { name: 'Name' });
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await name.getAttribute('aria-describedby'))!;
    expect(await addon.page.locator(`[id="${describedBy}"]`).textContent()).toBe('Enter a name.');
    const colour = addon.page.getByRole('combobox', { name: 'Colour' });
    expect(await addon.page.locator(`[id="${(await colour.getAttribute('aria-describedby'))!}"]`).textContent()).toBe(
      'Red is taken.',
    );
    const note = addon.page.getByRole('textbox', { name: 'Write a note' });
    expect([await note.getAttribute('aria-invalid'), await note.getAttribute('aria-describedby')]).toEqual([
      null,
      null,
    ]);
    await expectAccessible(addon.page, 'the components fixture');
  });
});
