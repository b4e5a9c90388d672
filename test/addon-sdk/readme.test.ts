/** addon-sdk/README.md's examples are what the tests run. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const readme = await readFile(new URL('../../addon-sdk/README.md', import.meta.url), 'utf8');

/** The first ```ts block after `heading`. */
function example(heading: string): string {
  const match = new RegExp(`${heading}\\n[\\s\\S]*?\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`no ts example under ${heading}`);
  return match[1]!;
}

describe('addon-sdk/README.md', () => {
  it('shows the testing example exactly as test/addon-sdk/testing/readme-example.browser.test.ts runs it', async () => {
    const test = await readFile(new URL('./testing/readme-example.browser.test.ts', import.meta.url), 'utf8');
    // The package name resolves to the SDK's sources in the repository; only the entry's path differs.
    const asInTheRepository = example('## Testing an add-on \\(`testing/`\\)').replace(
      "'src/send-message.tsx'",
      "'addon-sdk/sample/send-message.tsx'",
    );
    expect(test.replace(/^(\/\/.*\n)+/, '')).toBe(asInTheRepository);
  });
});
