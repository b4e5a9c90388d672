/**
 * P1's floor: the least this stack can do to relay a call — Express taking the broker's POST and passing it on
 * to the integrator over a keep-alive connection with the bearer token, streaming the answer back — with no
 * session, no CSRF check, no database, no policy, no logging. The host's proxy cannot beat it; it measures what
 * a proxy process in front of the integrator costs on this machine.
 * Args: --upstream URL (the integrator's `GET /api/messages`), --token T. Reports `{url}`; stops on SIGTERM.
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import express from 'express';
import { listenOn } from '#host/http/listen.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { reportReady, stopOn } from '../runner/processes.ts';

const { values } = parseArgs({ options: { upstream: { type: 'string' }, token: { type: 'string' } } });
const upstream = new URL(values.upstream!);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const app = express();
app.post('/relay', (req, res) => {
  req.resume();
  const call = request(
    upstream,
    { agent, method: 'GET', headers: { authorization: `Bearer ${values.token!}`, accept: 'application/json' } },
    (answer) => {
      res.status(200);
      res.set('Content-Type', 'application/octet-stream');
      const length = answer.headers['content-length'];
      if (length !== undefined) res.set('Content-Length', length);
      answer.pipe(res);
    },
  );
  call.on('error', () => res.destroy());
  call.end();
});
const listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
listener.attach(app);
stopOn(async () => {
  await listener.close();
  agent.destroy();
});
reportReady({ url: `http://127.0.0.1:${listener.port}` });
