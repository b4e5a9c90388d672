/**
 * P3's static baseline: Express sending the bytes of a file (the host's answer, captured by the harness) for
 * `GET /people/v2/notes`, with the host's Content-Type. Args: --body-file F. Reports `{url}`; stops on SIGTERM.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import express from 'express';
import { listenOn } from '#host/http/listen.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { reportReady, stopOn } from '../runner/processes.ts';

const { values } = parseArgs({ options: { 'body-file': { type: 'string' } } });
const body = await readFile(values['body-file']!);
const app = express();
app.get('/people/v2/notes', (_req, res) => {
  res.type('application/json; charset=utf-8').send(body);
});
const listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
listener.attach(app);
stopOn(() => listener.close());
reportReady({ url: `http://127.0.0.1:${listener.port}` });
