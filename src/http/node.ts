/**
 * The `node:http` transport: a request listener for a handler ({@link toNodeListener}) and a server
 * with the limits a server facing untrusted clients needs ({@link createNodeServer}).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import proxyAddr from 'proxy-addr';
import { configurationError, invalidRequest, TxmonError } from '../errors.js';
import { payloadTooLarge } from './body.js';
import { problemOf } from './problem.js';
import { HANDLER_CORE, type CoreRequest, type CoreResponse, type HttpHandler, type TxmonHttpHandler } from './types.js';

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * The addresses of proxies in front of the server (load balancers, API gateways), as IP
   * addresses, CIDR ranges or `loopback` / `linklocal` / `uniquelocal` (proxy-addr's names). A
   * request from one of them is taken to come from the address its `X-Forwarded-For` names — the
   * nearest one that is not itself a trusted proxy — for the per-address limits; its connections
   * are not capped per address (a proxy carries many clients). Default: none (the header is
   * ignored, as any client can send it).
   */
  readonly trustedProxies?: readonly string[];
  /**
   * Called right after each batch of responses is written, e.g. to write the request-log lines of
   * those requests: a log write then never delays a response. Only the native path of a
   * `createHttpHandler` handler batches; errors thrown here are ignored.
   */
  readonly afterResponses?: () => void;
}

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Adapts a fetch-style {@link HttpHandler} to a `node:http` request listener (and so to Express,
 * Fastify or Koa through their raw Node hooks). A handler made by `createHttpHandler` is served
 * natively — no `Request`/`Response` objects or web streams per request; any other fetch handler
 * goes through `Request`/`Response`. The handler enforces the size limits while the body streams in.
 * Responses of a `createHttpHandler` handler finished during one event-loop turn are sent together
 * at its end, so that a client pipelining requests wakes once per burst, not once per response.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(toNodeListener(createHttpHandler({ engine, apiKeys: [key] }))).listen(8080);
 * ```
 */
export function toNodeListener(handler: HttpHandler, options: NodeListenerOptions = {}): NodeListener {
  const core = (handler as Partial<TxmonHttpHandler>)[HANDLER_CORE];
  return core ? coreListener(core, options.afterResponses, trustOf(options.trustedProxies)) : fetchListener(handler);
}

/** Whether a peer address is a trusted proxy, or `null` when none is. */
type Trust = ((address: string, hop: number) => boolean) | null;

/**
 * The trust function of `trustedProxies` (`null` for none).
 * @throws TxmonError `INVALID_CONFIGURATION` for an entry that is no address, range or name.
 */
function trustOf(trustedProxies: readonly string[] | undefined): Trust {
  if (trustedProxies === undefined || trustedProxies.length === 0) return null;
  try {
    return proxyAddr.compile([...trustedProxies]);
  } catch (error) {
    throw configurationError('createNodeServer', `trustedProxies: ${(error as Error).message}`);
  }
}

/** The client's address: the peer's, or behind trusted proxies the nearest untrusted one of `X-Forwarded-For`. */
function clientAddressOf(req: IncomingMessage, trust: Trust): string | undefined {
  if (trust === null || req.socket?.remoteAddress === undefined) return req.socket?.remoteAddress;
  return proxyAddr(req, trust);
}

/** Serves a handler's core straight from Node's request and response objects. */
function coreListener(core: (request: CoreRequest) => Promise<CoreResponse>, afterResponses: (() => void) | undefined, trust: Trust): NodeListener {
  const send = createResponseBatcher(afterResponses);
  return (req, res) => {
    core(nodeRequest(req, trust)).then(
      (response) => send(res, response),
      () => send(res, problemOf(new Error('internal'))),
    );
  };
}

/** Serves any fetch handler through a `Request` and its `Response`. */
function fetchListener(handler: HttpHandler): NodeListener {
  return (req, res) => {
    let request: Request;
    try {
      request = fetchRequest(req);
    } catch {
      writeCore(res, problemOf(invalidRequest([], 'request line or headers')));
      return;
    }
    handler(request).then(
      (response) => sendResponse(res, response),
      () => writeCore(res, problemOf(new Error('internal'))),
    );
  };
}

/** A fetch `Request` of a Node request; throws when its line or headers make none. */
function fetchRequest(req: IncomingMessage): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  const url = new URL(req.url ?? '/', 'http://localhost');
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Requests that came through the server's `checkContinue` event: their client waits for
 * `100 Continue` before sending the body, which is sent only when the handler starts reading it —
 * never for a request refused before (unauthenticated, too large, unknown route).
 */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/** The core's view of a Node request. */
function nodeRequest(req: IncomingMessage, trust: Trust): CoreRequest {
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
    streamBody: (limit) => streamNodeBody(req, limit),
    connection: req.socket ?? undefined,
    remoteAddress: clientAddressOf(req, trust),
    isGone: () => req.socket?.destroyed === true,
  };
}

/** The refusal of a body whose client stopped sending before its end. */
function bodyCutOff(): TxmonError {
  return invalidRequest([], 'request body: it was cut off');
}

/** Refuses a body whose announced length passes `limit` before a byte is read (or `100 Continue` sent); else sends the `100 Continue` a client may wait for. */
function startBody(req: IncomingMessage, limit: number): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
  const res = awaitingContinue.get(req);
  if (res !== undefined) {
    awaitingContinue.delete(req);
    res.writeContinue();
  }
}

/**
 * The body of a Node request as it arrives, at most `limit` bytes; `PAYLOAD_TOO_LARGE` past it.
 * Read in paused mode, so a slow consumer holds the client back instead of buffering; whatever is
 * left when the consumer stops is dropped as it arrives (the response then closes the connection).
 */
async function* streamNodeBody(req: IncomingMessage, limit: number): AsyncIterable<Uint8Array> {
  startBody(req, limit);
  let size = 0;
  try {
    for (;;) {
      const chunk = await nextChunk(req);
      if (chunk === null) return;
      size += chunk.length;
      if (size > limit) throw payloadTooLarge(limit);
      yield chunk;
    }
  } finally {
    if (!req.readableEnded) req.resume();
  }
}

/** The next chunk of a paused request body, or `null` at its end; rejects when it is cut off. */
function nextChunk(req: IncomingMessage): Promise<Buffer | null> {
  const ready = req.read() as Buffer | null;
  if (ready !== null) return Promise.resolve(ready);
  if (req.readableEnded) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const settle = () => {
      req.off('readable', settle);
      req.off('end', settle);
      req.off('error', settle);
      req.off('close', settle);
      const chunk = req.read() as Buffer | null;
      if (chunk !== null) resolve(chunk);
      else if (req.complete) resolve(null);
      else if (req.destroyed || req.readableEnded) reject(bodyCutOff());
      else nextChunk(req).then(resolve, reject);
    };
    req.on('readable', settle);
    req.on('end', settle);
    req.on('error', settle);
    req.on('close', settle);
  });
}

/** Reads a Node request body up to `limit` bytes; `PAYLOAD_TOO_LARGE` past it (reading stops; the connection is closed after the response). */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    try {
      startBody(req, limit);
    } catch (error) {
      reject(error);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        // The rest keeps flowing into this (now ignoring) listener: dropped as it arrives.
        failed = true;
        chunks.length = 0;
        reject(payloadTooLarge(limit));
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
        reject(bodyCutOff());
      }
    });
    req.on('close', () => {
      if (!failed && !req.complete) {
        failed = true;
        reject(bodyCutOff());
      }
    });
  });
}

/**
 * Sends responses at the end of the event-loop turn that produced them: the responses
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

/** Writes a core response, its length in the head. */
function writeCore(res: ServerResponse, response: CoreResponse): void {
  try {
    // A body the handler did not read (refused before reading, or past its limit) is not read to
    // its end: the connection is closed after the response, with a lingering close so the client
    // still reads the response.
    const req = res.req as IncomingMessage | undefined;
    if (req !== undefined && req.complete === false && hasBody(req)) closeLingering(res);
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

/** Whether a request announces a body (a length other than 0, or a transfer coding). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** How long at most a closing connection keeps reading (and dropping) the body the client still sends. */
const LINGER_MS = 5_000;
/** How long a closing connection waits, once half-closed, for the client to close its side. */
const CLOSE_WAIT_MS = 1_000;

/**
 * Ends the connection after this response with a lingering close (RFC 9112 §9.6): the rest of the
 * request body is read and dropped (as Node does for a body nobody reads) until it ends or
 * {@link LINGER_MS} have passed; only then is the connection half-closed, and closed once the
 * client closes its side (or after {@link CLOSE_WAIT_MS}). Closing while the client is still
 * sending makes its TCP stack receive a reset, which discards the response before a client that
 * reads only after sending ever sees it.
 */
function closeLingering(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  const socket = res.socket as (Socket & { destroySoon?: () => void }) | null;
  const req = res.req as IncomingMessage;
  if (socket === null) return;
  // Node ends a `connection: close` response's socket through `destroySoon` (end, then destroy
  // once written), right after the response; this socket first lets the body drain.
  socket.destroySoon = function lingeringDestroy(this: Socket) {
    const deadline = setTimeout(() => this.destroy(), LINGER_MS);
    deadline.unref();
    const halfClose = () => {
      clearTimeout(deadline);
      this.end();
      setTimeout(() => this.destroy(), CLOSE_WAIT_MS).unref();
    };
    if (req.complete) halfClose();
    else req.once('end', halfClose);
    this.once('close', () => clearTimeout(deadline));
  };
}

/** Writes a fetch `Response`. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  try {
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    if (response.body === null) {
      res.end();
      return;
    }
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch {
    res.destroy();
  }
}

/** Options of {@link createNodeServer}: the transport's limits, each with a safe default. */
export interface NodeServerOptions extends NodeListenerOptions {
  /** Longest time for a client to send the request head. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** Longest time for a client to send a whole request, head and body. Default 120 s. */
  readonly requestTimeoutMs?: number;
  /** Longest time a connection may stay silent while a request or response is under way (a stalled upload). Default 30 s. */
  readonly idleTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept between requests. Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Most open connections; past it a new connection's first request is answered 503
   * (`TOO_MANY_CONNECTIONS`, `Retry-After`, `Connection: close`), and past twice it a new
   * connection is closed at once. Default 1,024.
   */
  readonly maxConnections?: number;
  /**
   * Most open connections from one client address (a trusted proxy's are not counted per address),
   * with the same 503 past it and the same close past twice it. Default 256.
   */
  readonly maxConnectionsPerAddress?: number;
}

/** The defaults of {@link NodeServerOptions}. */
export const DEFAULT_NODE_SERVER_OPTIONS = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  idleTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 256,
});

/**
 * A `node:http` server for a handler, with the limits a server facing untrusted clients needs:
 * header, request and idle timeouts, a cap on connections in all and per client address, no
 * `100 Continue` for a body the handler refuses before reading it, and a `405` for `CONNECT`
 * (which `node:http` otherwise answers by dropping the connection). Call `listen` on it.
 *
 * @example
 * ```ts
 * import { createHttpHandler, createNodeServer } from 'txmon/http';
 * createNodeServer(createHttpHandler({ engine, apiKeys: [key] })).listen(8080);
 * ```
 */
export function createNodeServer(handler: HttpHandler, options: NodeServerOptions = {}): Server {
  const settings = serverSettings(options);
  const listener = toNodeListener(handler, {
    ...(options.afterResponses === undefined ? {} : { afterResponses: options.afterResponses }),
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
  });
  const server = createServer({
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // Node checks the header and request timeouts on this interval (default 30 s, which lets a
    // stalled head live up to 30 s past its timeout).
    connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
  });
  server.setTimeout(settings.idleTimeoutMs);
  capConnections(server, settings.maxConnections, settings.maxConnectionsPerAddress, trustOf(options.trustedProxies));
  const serveRequest = trackInFlight(server, listener);
  server.on('request', serveRequest);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.set(req, res);
    serveRequest(req, res);
  });
  server.on('connect', (_req: IncomingMessage, socket: Socket) => refuseConnect(socket));
  return server;
}

/**
 * The options with their defaults.
 * @throws TxmonError `INVALID_CONFIGURATION` for a value that is not a positive integer.
 */
function serverSettings(options: NodeServerOptions): Record<keyof typeof DEFAULT_NODE_SERVER_OPTIONS, number> {
  const settings = { ...DEFAULT_NODE_SERVER_OPTIONS, ...definedOnly(options) };
  for (const [name, value] of Object.entries(settings)) {
    if (name in DEFAULT_NODE_SERVER_OPTIONS && !(Number.isSafeInteger(value) && (value as number) > 0)) {
      throw configurationError('createNodeServer', `${name} must be a positive integer`);
    }
  }
  return settings;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Connections past a cap: their first request is answered 503 `TOO_MANY_CONNECTIONS`, then they close. */
const surplus = new WeakSet<Socket>();

/**
 * Counts open connections, in all and per client address (a trusted proxy's are counted in all
 * only), and marks those past a cap as surplus: rather than a bare reset, which a client cannot
 * tell from a crash, each gets a 503 with `Retry-After` and `Connection: close` to its first
 * request. Past twice a cap a connection is closed at once (Node's `maxConnections` does it for the
 * total), so that a flood of connections cannot hold a socket each while waiting for a request.
 */
function capConnections(server: Server, maxConnections: number, maxPerAddress: number, trust: Trust): void {
  const perAddress = new Map<string, number>();
  let open = 0;
  server.maxConnections = 2 * maxConnections;
  server.on('connection', (socket: Socket) => {
    open++;
    const address = socket.remoteAddress ?? '';
    const proxied = trust?.(address, 0) === true;
    const fromAddress = proxied ? 0 : (perAddress.get(address) ?? 0) + 1;
    if (!proxied) perAddress.set(address, fromAddress);
    socket.once('close', () => {
      open--;
      if (proxied) return;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
    if (fromAddress > 2 * maxPerAddress) socket.destroy();
    else if (open > maxConnections || fromAddress > maxPerAddress) surplus.add(socket);
  });
}

/** Answers a request on a surplus connection (see {@link capConnections}); the connection closes after it. */
function refuseSurplus(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  writeCore(res, problemOf(new TxmonError('TOO_MANY_CONNECTIONS', 'Too many connections are open; try again'), { connection: 'close' }));
}

/**
 * Keeps count of the responses not finished yet, in all and per open connection, so that
 * {@link drainAndClose} can tell them to close their connection and close the connections with
 * none (fresh or idle) at once. Returns the request listener that counts.
 */
function trackInFlight(server: Server, listener: NodeListener): NodeListener {
  const unfinished = new Set<ServerResponse>();
  const inFlight = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  drains.set(server, () => {
    for (const res of unfinished) if (!res.headersSent) res.shouldKeepAlive = false;
    for (const [socket, count] of inFlight) if (count === 0) socket.destroy();
  });
  return (req, res) => {
    if (surplus.has(req.socket)) {
      refuseSurplus(res);
      return;
    }
    if (closing.has(server)) res.shouldKeepAlive = false;
    const socket = req.socket;
    unfinished.add(res);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      unfinished.delete(res);
      if (inFlight.has(socket)) inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1);
    });
    listener(req, res);
  };
}

/** Answers `CONNECT` with a 405 problem and closes (`node:http` would drop the connection without a status). */
function refuseConnect(socket: Socket): void {
  const problem = problemOf(new TxmonError('METHOD_NOT_ALLOWED', 'CONNECT is not allowed'));
  const body = problem.body as string;
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: ${problem.headers['content-type']}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `allow: GET, HEAD, POST, PUT, PATCH, DELETE\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Servers made by {@link createNodeServer} that are shutting down. */
const closing = new WeakSet<Server>();
/** Per server made by {@link createNodeServer}: marks its unfinished responses to close their connection. */
const drains = new WeakMap<Server, () => void>();

/**
 * Shuts a server down gracefully: it stops accepting connections and closes its idle keep-alive
 * connections now; requests in flight finish, and their responses (of a {@link createNodeServer}
 * server) carry `connection: close`, so each connection closes after its last response instead of
 * being cut while the client sends its next request. `done` is called once every connection is
 * closed.
 */
export function drainAndClose(server: Server, done: () => void): void {
  closing.add(server);
  drains.get(server)?.();
  server.close(() => done());
  server.closeIdleConnections();
}
