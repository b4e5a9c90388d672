/**
 * P3's floor: the least this stack can do for `GET /people/v2/notes?per_page=100` — Express and one prepared SQL
 * statement (the page and its total in one query) on `pg` or PGlite, rendered to the very bytes the host
 * sends (the harness checks), with no authentication, no query validation, no logging.
 * Args: --data-dir D | --database-url U, --base-url (the host's, for links), --organization-id.
 * Reports `{url}` over IPC; stops on SIGTERM.
 */
import { parseArgs } from 'node:util';
import express from 'express';
import { listenOn } from '#host/http/listen.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { reportReady, stopOn } from '../runner/processes.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    'base-url': { type: 'string' },
    'organization-id': { type: 'string' },
  },
});
const base = values['base-url']!;
const organizationId = values['organization-id']!;

interface NoteRow {
  id: string;
  organization_id: string;
  person_id: string;
  created_by_id: string | null;
  note_category_id: string | null;
  note: string;
  display_date: Date | null;
  created_at: Date;
  updated_at: Date;
  total: string | number;
}

const SQL =
  'SELECT n.id::text AS id, n.organization_id::text AS organization_id, n.person_id::text AS person_id, ' +
  'n.created_by_id::text AS created_by_id, n.note_category_id::text AS note_category_id, n.note, n.display_date, ' +
  'n.created_at, n.updated_at, count(*) OVER () AS total ' +
  'FROM notes n WHERE n.organization_id = $1 ORDER BY n.id LIMIT $2 OFFSET $3';

type Query = (params: [string, number, number]) => Promise<NoteRow[]>;
let query: Query;
let close: () => Promise<void>;
// Prepared, as the host's own statements are (a floor that planned every call would flatter the host).
if (values['database-url']) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: values['database-url'], max: 10 });
  query = async (params) => (await pool.query<NoteRow>({ name: 'floor_notes', text: SQL, values: params })).rows;
  close = () => pool.end();
} else {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = new PGlite({ dataDir: values['data-dir']! });
  await pglite.waitReady;
  await pglite.query(`PREPARE floor_notes AS ${SQL}`);
  // EXECUTE takes no bind parameters: the values are numbers, checked, written in.
  query = async ([org, limit, offset]) => {
    if (![org, limit, offset].every((v) => /^\d+$/.test(String(v)))) throw new Error('bad page parameters');
    const [result] = await pglite.exec(`EXECUTE floor_notes(${org}, ${limit}, ${offset})`);
    return result!.rows as NoteRow[];
  };
  close = () => pglite.close();
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
const related = (id: string, path: string) => ({ related: `${base}/people/v2/notes/${id}/${path}` });

const app = express();
app.get('/people/v2/notes', async (req, res) => {
  const perPage = Number(req.query.per_page ?? 25);
  const offset = Number(req.query.offset ?? 0);
  const rows = await query([organizationId, perPage, offset]);
  const total = Number(rows[0]?.total ?? 0);
  const data = rows.map((r) => ({
    id: r.id,
    type: 'Note',
    attributes: {
      created_at: iso(r.created_at),
      created_by_id: r.created_by_id,
      display_date: iso(r.display_date),
      note: r.note,
      note_category_id: r.note_category_id,
      organization_id: r.organization_id,
      person_id: r.person_id,
      updated_at: iso(r.updated_at),
    },
    links: { self: `${base}/people/v2/notes/${r.id}` },
    relationships: {
      note_category: {
        data: r.note_category_id === null ? null : { type: 'NoteCategory', id: r.note_category_id },
        links: related(r.id, 'category'),
      },
      organization: { data: { type: 'Organization', id: r.organization_id } },
      person: { data: { type: 'Person', id: r.person_id }, links: related(r.id, 'person') },
      created_by: {
        data: r.created_by_id === null ? null : { type: 'Person', id: r.created_by_id },
        links: related(r.id, 'created_by'),
      },
    },
  }));
  const self = `${base}${req.originalUrl}`;
  const hasNext = offset + rows.length < total;
  const next = `${base}/people/v2/notes?per_page=${perPage}&offset=${offset + perPage}`;
  res.json({
    data,
    included: [],
    meta: {
      total_count: total,
      count: rows.length,
      ...(hasNext ? { next: { offset: offset + perPage } } : {}),
      parent: { id: organizationId, type: 'Organization' },
    },
    links: { self, ...(hasNext ? { next } : {}) },
  });
});

const listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
listener.attach(app);
stopOn(async () => {
  await listener.close();
  await close();
});
reportReady({ url: `http://127.0.0.1:${listener.port}` });
