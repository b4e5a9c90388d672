/** The consent page's words: the add-on named when the integrator knows its name, "an add-on" when it does not. */
import { describe, expect, it } from 'vitest';
import { consentPage } from '../pages/consent-page.ts';
import { createPageSite } from '../pages/site.ts';

const site = createPageSite('Template Integrator');
const page = (addonName: string | undefined) =>
  consentPage(site, {
    addonName,
    hostName: 'localhost:4000',
    userName: 'Demo User',
    scopes: [{ name: 'messages', description: 'Send messages' }],
    fields: {},
  });

describe('consentPage()', () => {
  it('names the add-on it knows', () => {
    const html = page('Send Message');
    expect(html).toContain('<h1>Allow Send Message to use your account?</h1>');
    expect(html).toContain(
      '<p>The add-on <strong>Send Message</strong> in <strong>localhost:4000</strong> asks to act for you on Template Integrator.</p>',
    );
  });

  it('says "an add-on" on the defaults, never a placeholder name ("Allow Add-on …", "The add-on Add-on")', () => {
    const html = page(undefined);
    expect(html).toContain('<h1>Allow an add-on to use your account?</h1>');
    expect(html).toContain(
      '<p>An add-on in <strong>localhost:4000</strong> asks to act for you on Template Integrator.</p>',
    );
    expect(html).not.toMatch(/Add-on Add-on|Allow Add-on|undefined/);
  });
});
