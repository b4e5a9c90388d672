import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDemoBundles } from '../../../host/demo/build-bundles.ts';

describe('buildDemoBundles()', () => {
  it('builds once, reuses the bundles while the sources are unchanged, and rebuilds when an output or the stamp is off', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'addon-kit-bundles-'));
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    const first = await buildDemoBundles(dir, log);
    expect(lines.shift()).toMatch(/building the add-on SDK bundles/);
    expect(lines.shift()).toMatch(/^addon-kit: built host\.js, sandbox-bootstrap\.js and addons\/send-message\.js in \d+ ms$/);
    expect(first.sampleBundle).toContain('send');

    const second = await buildDemoBundles(dir, log);
    expect(lines).toEqual([`addon-kit: add-on SDK bundles in ${dir} are up to date`]);
    expect(second.sampleBundle).toBe(first.sampleBundle);

    lines.length = 0;
    await rm(join(dir, 'host.js'));
    await buildDemoBundles(dir, log);
    expect(lines[0]).toMatch(/building the add-on SDK bundles/);

    lines.length = 0;
    await writeFile(join(dir, 'sources.sha256'), 'stale\n');
    await buildDemoBundles(dir, log);
    expect(lines[0]).toMatch(/building the add-on SDK bundles/);
  });
});
