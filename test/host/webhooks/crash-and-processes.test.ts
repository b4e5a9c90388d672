/**
 * The must-show delivery guarantees with real host processes: a host SIGKILLed while Notes are being created
 * delivers every committed Note's event after a restart and none for a write that never committed; two host
 * processes on one PostgreSQL database deliver each event once per attempt.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { openDatabase, type Database } from '#host/db/database.ts';
import { migrate } from '#host/db/migrate.ts';
import { createSubscription } from '#host/webhooks/subscription-store.ts';
import { TEST_ENCRYPTION_KEY, TEST_USER_AGENT } from '../../support/constants.ts';
import { createEmptyPostgresDatabase } from '../../support/database.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const CHILD = fileURLToPath(new URL('./webhook-host-child.ts', import.meta.url));
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Target {
  env: Record<string, string>;
  open(): Promise<Database>;
}

/** A fresh database for the run's kind: a PostgreSQL database, or an embedded one on disk. */
async function freshTarget(): Promise<Target> {
  const url = await createEmptyPostgresDatabase();
  if (url) return { env: { WEBHOOK_CHILD_DATABASE_URL: url }, open: () => openDatabase({ databaseUrl: url }) };
  const dir = await mkdtemp(join(tmpdir(), 'webhook-crash-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { env: { WEBHOOK_CHILD_DATA_DIR: dir }, open: () => openDatabase({ dataDir: dir }) };
}

/** Migrates, and adds an organization, an editor with a token, and a subscription to note.created. */
async function prepare(db: Database, receiverUrl: string): Promise<{ auth: string; personId: string }> {
  await migrate(db);
  const org = (
    await db.query<{ id: string }>(
      "INSERT INTO organizations (name, slug) VALUES ('Crash', 'crash') RETURNING id::text",
    )
  ).rows[0]!.id;
  const person = (
    await db.query<{ id: string }>(
      "INSERT INTO people (organization_id, first_name, last_name, email, status) VALUES ($1, 'Ed', 'Itor', 'ed@crash.test', 'active') RETURNING id::text",
      [org],
    )
  ).rows[0]!.id;
  await db.query("INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, 'people', 'editor')", [
    person,
  ]);
  const token = await createPersonalAccessToken(db, person, 'crash test');
  await createSubscription(db, createSecretBox([TEST_ENCRYPTION_KEY]), {
    organizationId: org,
    personId: person,
    applicationId: null,
    name: 'people.v2.events.note.created',
    url: receiverUrl,
    active: true,
  });
  return { auth: `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`, personId: person };
}

/** Starts a host process; resolves with its base URL once it listens. */
function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', CHILD], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      const port = /port (\d+)/.exec(stdout)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.on('exit', (code) => reject(new Error(`host exited (${code}): ${stderr}`)));
  });
}

function createNote(url: string, auth: string, personId: string, text: string): Promise<Response> {
  return fetch(`${url}/people/v2/people/${personId}/notes`, {
    method: 'POST',
    headers: { authorization: auth, 'user-agent': TEST_USER_AGENT, 'content-type': 'application/json' },
    body: JSON.stringify({ data: { type: 'Note', attributes: { note: text } } }),
  });
}

/** The Note id each delivery carries. */
function deliveredNoteIds(receiver: WebhookReceiver): string[] {
  return receiver.received.map((r) => (JSON.parse(r.delivery.payload) as { data: { id: string } }).data.id);
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('webhook delivery across host processes', () => {
  it('delivers every committed Note after a SIGKILL and restart, none for an uncommitted one [crash]', async () => {
    const receiver = await startReceiver(() => 200, 400);
    cleanups.push(() => receiver.close());
    const target = await freshTarget();
    const setup = await target.open();
    const { auth, personId } = await prepare(setup, receiver.url);
    await setup.close();

    // The first host delivers two at a time to a receiver taking 400 ms: it is far behind when it is killed.
    const first = await startChild({ ...target.env, WEBHOOK_CHILD_CONCURRENCY: '2' });
    const acknowledged: string[] = [];
    let sent = 0;
    let killed = false;
    // 1,000 creates, ten at a time; the host is killed once 400 were answered and the receiver is still busy.
    const workers = Array.from({ length: 10 }, async () => {
      while (sent < 1000 && !killed) {
        const n = sent++;
        try {
          const res = await createNote(first.url, auth, personId, `crash note ${n}`);
          if (res.status === 201) acknowledged.push(((await res.json()) as { data: { id: string } }).data.id);
        } catch {
          // The host died under this request: it may or may not have committed.
        }
        if (acknowledged.length >= 400 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    });
    await Promise.all(workers);
    if (first.child.signalCode === null) await new Promise((r) => first.child.once('exit', r));
    const deliveredBeforeRestart = receiver.received.length;
    expect(deliveredBeforeRestart).toBeLessThan(acknowledged.length);

    await startChild(target.env);
    // Everything committed is in the database; the restarted worker delivers what the killed one had not.
    const committed = async () => {
      const db = target.env.WEBHOOK_CHILD_DATABASE_URL ? await target.open() : undefined;
      if (!db) return undefined;
      try {
        return (await db.query<{ id: string }>('SELECT id::text FROM notes')).rows.map((r) => r.id);
      } finally {
        await db.close();
      }
    };
    await until(() => new Set(deliveredNoteIds(receiver)).size >= acknowledged.length, 120_000, 'deliveries');
    await new Promise((r) => setTimeout(r, 1500));
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    const notes = (await committed()) ?? (await readNotesAfterExit(target));
    const delivered = new Set(deliveredNoteIds(receiver));
    // Every acknowledged Note is committed; every committed Note was delivered; nothing else was.
    for (const id of acknowledged) expect(notes).toContain(id);
    expect([...delivered].sort()).toEqual([...notes].sort());
    console.log(
      `crash: ${acknowledged.length} acknowledged, ${notes.length} committed, ${receiver.received.length} deliveries ` +
        `(${receiver.received.length - delivered.size} repeated), ${deliveredBeforeRestart} before the restart`,
    );
  }, 400_000);

  it.runIf(process.env.DATABASE_URL)(
    'delivers each event once per attempt with two host processes [two hosts]',
    async () => {
      const receiver = await startReceiver(() => 200, 10);
      cleanups.push(() => receiver.close());
      const target = await freshTarget();
      const setup = await target.open();
      const { auth, personId } = await prepare(setup, receiver.url);
      await setup.close();
      const a = await startChild({ ...target.env, WEBHOOK_CHILD_NAME: 'host-a' });
      const b = await startChild({ ...target.env, WEBHOOK_CHILD_NAME: 'host-b' });
      for (let i = 0; i < 300; i += 10)
        await Promise.all(
          Array.from({ length: 10 }, (_, j) =>
            createNote((i + j) % 2 ? a.url : b.url, auth, personId, `note ${i + j}`),
          ),
        );
      await receiver.waitFor(300, 200_000);
      await new Promise((r) => setTimeout(r, 1000));
      const keys = receiver.received.map((r) => `${r.delivery.id}#${r.delivery.attempt}`);
      expect(keys).toHaveLength(300);
      expect(new Set(keys).size).toBe(300);
      const senders = new Set(receiver.received.map((r) => r.headers['user-agent']));
      expect(senders).toEqual(new Set(['host-a Webhooks', 'host-b Webhooks']));
    },
    300_000,
  );
});

/** The embedded database can be opened again only once its process has let it go. */
async function readNotesAfterExit(target: Target): Promise<string[]> {
  await until(() => children.every((c) => c.exitCode !== null || c.signalCode !== null), 20_000, 'hosts to exit');
  const db = await target.open();
  try {
    return (await db.query<{ id: string }>('SELECT id::text FROM notes')).rows.map((r) => r.id);
  } finally {
    await db.close();
  }
}
