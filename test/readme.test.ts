/** The README's promises, checked: its commands exist, its configuration table is complete, its example runs. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { usageLine } from '#host/cli/args.ts';
import { COMMAND_SPECS } from '#host/cli/command-specs.ts';
import { ENVIRONMENT } from '#host/config.ts';
import { runCli, startCli, stopCli } from './support/cli.ts';

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
  workspaces: string[];
};
const hostPkg = JSON.parse(await readFile(new URL('../host/package.json', import.meta.url), 'utf8')) as {
  bin: Record<string, string>;
};

/** The shell lines of the README section under `heading`. */
function shellLines(heading: string): string[] {
  const section = readme.split(/^#+ /m).find((s) => s.startsWith(heading));
  if (!section) throw new Error(`no README section ${heading}`);
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  return (block?.[1] ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/\s+#.*$/, '').trim());
}

describe('README', () => {
  it('quick start has exactly two set-up commands: one starts the host, one runs the tests', () => {
    expect(shellLines('Quick start')).toEqual(['npm install && npm start', 'npm install && npm test']);
    expect(pkg.scripts.start).toBe('addon-kit start');
    expect(pkg.scripts.test).toBe('npm run typecheck && npm run lint && npm run format:check && vitest run');
    expect(pkg.scripts.lint).toBe('eslint --cache --cache-location node_modules/.cache/eslint/ .');
    expect(pkg.workspaces).toEqual(['addon-sdk', 'integrator-template', 'host']);
    expect(hostPkg.bin['addon-kit']).toBe('bin/addon-kit.js');
  });

  it('documents every environment variable the host reads, and only those', () => {
    const table = readme.split('## Configuration')[1]!.split('\n## ')[0]!;
    const documented = [...table.matchAll(/`((?:ADDON_KIT|DATABASE|OTEL)_[A-Z_]+)`/g)].map((m) => m[1]!);
    expect(new Set(documented)).toEqual(new Set(Object.keys(ENVIRONMENT)));
  });

  it('lists in the CLI table exactly the usage lines of every command form, as the CLI prints them', () => {
    const table = readme.split('## The CLI')[1]!.split('\n## ')[0]!;
    const documented = [...table.matchAll(/^\| `(addon-kit [^`]+)` \|/gm)].map((m) => m[1]!.replaceAll('\\|', '|'));
    expect(documented).toEqual(COMMAND_SPECS.flatMap((spec) => spec.forms.map((form) => usageLine(spec.name, form))));
  });

  // As a person runs it: `npm start` holds the data directory (the embedded database) while the README's `pat create`
  // runs beside it (the running host runs it), then curl asks that running host.
  it('runs the "Try the API" example beside a running start: pat create, then curl with those credentials', async () => {
    const [patLine, curlLine] = shellLines('Try the API');
    expect(patLine).toMatch(/^npx addon-kit pat create /);
    expect(curlLine).toMatch(/^curl /);
    const dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-readme-'));
    const host = await startCli(
      ['start', '--port', '0', '--no-demo', '--data-dir', dataDir],
      /^addon-kit host listening on (\S+) /m,
    );
    try {
      // The README line exactly, with the data directory of this test appended.
      const args = patLine!
        .replace(/^npx addon-kit /, '')
        .match(/"[^"]*"|\S+/g)!
        .map((a) => a.replace(/^"|"$/g, ''));
      const created = await runCli([...args, '--data-dir', dataDir]);
      expect([created.code, created.stderr.includes('in use by process')]).toEqual([0, false]);
      const clientId = /client ID: (\S+)/.exec(created.stdout)![1]!;
      const secret = /secret:\s+(\S+)/.exec(created.stdout)![1]!;
      const curl = curlLine!
        .replace('CLIENT_ID:SECRET', `${clientId}:${secret}`)
        .replace('http://localhost:4000', host.match[1]!);
      const curlArgs = curl
        .replace(/^curl /, '')
        .match(/"[^"]*"|\S+/g)!
        .map((a) => a.replace(/^"|"$/g, ''));
      const { stdout } = await promisify(execFile)('curl', ['-s', ...curlArgs]);
      const body = JSON.parse(stdout) as { data: { type: string; attributes: unknown }; included: { type: string }[] };
      expect(body.data.type).toBe('Person');
      expect(body.data.attributes).toEqual({ first_name: 'Alex', last_name: 'Admin' });
      expect(body.included.map((r) => r.type)).toEqual(['Organization']);
    } finally {
      expect(await stopCli(host.child)).toBe(0);
    }
  }, 120_000);
});
