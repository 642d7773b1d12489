import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { TxmonError } from '../errors.js';
import { renderProblem, type HttpHandler } from './handler.js';

/**
 * Adapts a fetch-style {@link HttpHandler} to a `node:http` request listener (and so to Express,
 * Fastify or Koa through their raw Node hooks). The request body is streamed into the `Request`;
 * the handler enforces the size limits.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(toNodeListener(createHttpHandler({ engine, apiKeys: [key] }))).listen(8080);
 * ```
 */
export function toNodeListener(handler: HttpHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let request: Request;
    try {
      const method = (req.method ?? 'GET').toUpperCase();
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
      const host = /^[A-Za-z0-9.:[\]-]+$/.test(req.headers.host ?? '') ? (req.headers.host as string) : 'localhost';
      const url = new URL(req.url ?? '/', `http://${host}`);
      const hasBody = method !== 'GET' && method !== 'HEAD';
      request = new Request(url, {
        method,
        headers,
        ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
      } as RequestInit);
    } catch {
      void send(res, renderProblem(new TxmonError('VALIDATION_FAILED', 'The request line or headers are invalid')));
      return;
    }
    handler(request).then(
      (response) => send(res, response),
      () => send(res, renderProblem(new Error('internal'))),
    );
  };
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  try {
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    if (response.body === null) {
      res.end();
      return;
    }
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch {
    res.destroy();
  }
}
