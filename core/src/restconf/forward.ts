/**
 * Forwarding a request to the instance that holds what it reaches (a device it owns, a uniconfig
 * transaction it opened), when several instances share one database (database/node-leases.ts,
 * database/transaction-owners.ts): the request goes on unchanged (method, path, headers, body:
 * the owner authenticates it again) and its answer comes back as the owner gave it. A request that was
 * already forwarded once is not forwarded again: ownership moved meanwhile, and the client is told to
 * retry (503) rather than sent round in circles.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { Elsewhere } from '../fault';
import { RestconfError } from './errors';

/** The header a forwarded request carries. */
const FORWARDED = 'x-rosetta-forwarded';

/** Forwards `req` to the owner `elsewhere` names and pipes its answer into `res`; rejects when it cannot. */
export async function forwardToOwner(elsewhere: Elsewhere, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const ownerUrl = await elsewhere.locate();
  if (ownerUrl === undefined) throw elsewhere.missing();
  if (req.headers[FORWARDED] !== undefined)
    throw new RestconfError(503, {
      type: 'application',
      tag: 'resource-denied',
      message: `${elsewhere.what} moved to another instance while this request was forwarded; try again`,
    });
  const target = new URL(req.url ?? '/', ownerUrl);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let ended = false;
    const out = client.request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host, [FORWARDED]: '1' } },
      (answer) => {
        // set one by one (not as writeHead's argument): the service tells a forwarded event stream by its
        // content-type when it stops, as it does its own
        for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) res.setHeader(name, value);
        res.writeHead(answer.statusCode ?? 502);
        answer.pipe(res);
        answer.on('end', () => {
          ended = true;
          resolve();
        });
        answer.on('error', (error) => {
          res.destroy(error);
          resolve();
        });
      },
    );
    out.on('error', (error) =>
      reject(
        new RestconfError(502, {
          type: 'application',
          tag: 'operation-failed',
          message: `${elsewhere.what} is held by the instance at ${ownerUrl}, which did not answer: ${error.message}`,
        }),
      ),
    );
    // a long answer (an event stream) ends at the owner when its client goes away here
    res.on('close', () => {
      if (!ended) out.destroy();
    });
    req.pipe(out);
  });
}
