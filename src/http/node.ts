import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { TxmonError } from '../errors.js';
import { HANDLER_CORE, problemOf, type CoreRequest, type CoreResponse, type HttpHandler, type TxmonHttpHandler } from './handler.js';

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Called right after each batch of responses is written (D-142), e.g. to write the request-log
   * lines of those requests: a log write then never delays a response. Only the native path of a
   * `createHttpHandler` handler batches; errors thrown here are ignored.
   */
  readonly afterResponses?: () => void;
}

/**
 * Adapts a fetch-style {@link HttpHandler} to a `node:http` request listener (and so to Express,
 * Fastify or Koa through their raw Node hooks). A handler made by `createHttpHandler` is served
 * natively — no `Request`/`Response` objects or web streams per request; any other fetch handler
 * goes through `Request`/`Response`. The handler enforces the size limits while the body streams in.
 * Responses of a `createHttpHandler` handler finished during one event-loop turn are sent together
 * at its end (D-142).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(toNodeListener(createHttpHandler({ engine, apiKeys: [key] }))).listen(8080);
 * ```
 */
export function toNodeListener(handler: HttpHandler, options: NodeListenerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const core = (handler as Partial<TxmonHttpHandler>)[HANDLER_CORE];
  if (core) {
    const send = createResponseBatcher(options.afterResponses);
    return (req, res) => {
      core(nodeRequest(req)).then(
        (response) => send(res, response),
        () => send(res, problemOf(new Error('internal'))),
      );
    };
  }
  return (req, res) => {
    let request: Request;
    try {
      const method = (req.method ?? 'GET').toUpperCase();
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const hasBody = method !== 'GET' && method !== 'HEAD';
      request = new Request(url, {
        method,
        headers,
        ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
      } as RequestInit);
    } catch {
      writeCore(res, problemOf(new TxmonError('VALIDATION_FAILED', 'The request line or headers are invalid')));
      return;
    }
    handler(request).then(
      (response) => sendResponse(res, response),
      () => writeCore(res, problemOf(new Error('internal'))),
    );
  };
}

function nodeRequest(req: IncomingMessage): CoreRequest {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    header(name) {
      // Every occurrence, joined like the fetch API does (Node's `headers` keeps only the first
      // content-type), so both transports read the same value. (Not from `rawHeaders`: it holds
      // headers past the server's `maxHeadersCount`, which Node drops from `headersDistinct`.)
      const values = req.headersDistinct[name];
      return values === undefined ? null : values.join(', ');
    },
    readBody: (limit) => readNodeBody(req, limit),
    connection: req.socket ?? undefined,
  };
}

/** Reads a Node request body up to `limit` bytes; `PAYLOAD_TOO_LARGE` past it (the rest is drained, not kept). */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new TxmonError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    req.on('error', () => {
      if (!failed) {
        failed = true;
        reject(new TxmonError('VALIDATION_FAILED', 'The request body was cut off'));
      }
    });
  });
}

/**
 * Sends responses at the end of the event-loop turn that produced them (D-142): the responses
 * finished while one turn's requests are served are written back to back from a `setImmediate`
 * callback, in the order they finished, instead of one by one between the requests. The client
 * (or proxy) then wakes once per burst rather than once per response, and the server serves its
 * ready requests without the socket writes in between. With one request per turn the cost is one
 * `setImmediate` hop.
 */
function createResponseBatcher(afterResponses: (() => void) | undefined): (res: ServerResponse, response: CoreResponse) => void {
  let queue: [ServerResponse, CoreResponse][] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    for (let i = 0; i < batch.length; i++) {
      const [res, response] = batch[i] as [ServerResponse, CoreResponse];
      writeCore(res, response);
    }
    if (afterResponses !== undefined) {
      try {
        afterResponses();
      } catch {
        // A host's hook failing changes no response (they are written).
      }
    }
  };
  return (res, response) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push([res, response]);
  };
}

function writeCore(res: ServerResponse, response: CoreResponse): void {
  try {
    const body = response.body;
    if (body === null || body === undefined) {
      res.writeHead(response.status, response.headers as Record<string, string>);
      res.end();
      return;
    }
    // The length in the head: no chunked framing (writeHead fixes the head, so Node could not add
    // it itself). A string body is handed over as a string: Node sends the head and the body in
    // one write, encoding straight into the socket's buffer (no Buffer per response).
    res.setHeader('content-length', typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength);
    res.writeHead(response.status, response.headers as Record<string, string>);
    res.end(body);
  } catch {
    res.destroy();
  }
}

async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
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
