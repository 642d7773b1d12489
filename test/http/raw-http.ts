/**
 * Raw HTTP/1.1 clients for tests that must send what `fetch` will not (bad targets, repeated
 * headers, pipelined requests, bodies past a limit) and read the bytes the server writes back.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { toNodeListener, type HttpHandler } from '../../src/http/index.js';

/** A `node:http` server serving `handler` through `toNodeListener`, listening on a free port. */
export async function listenOn(handler: HttpHandler): Promise<{ server: Server; port: number }> {
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends raw bytes over a socket (with `Connection: close` in them); resolves with the raw response text once the server ends. */
export function sendRaw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

/** Sends raw bytes (latin1) on a fresh socket, half-closes it, and resolves with everything the server wrote back. */
export function exchangeRaw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(Buffer.from(text, 'latin1')));
    let out = '';
    socket.on('data', (chunk: Buffer) => (out += chunk.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

/** The status of a raw response. */
export function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

/** A header of a raw response, or `null`. */
export function headerOf(raw: string, name: string): string | null {
  const head = raw.split('\r\n\r\n')[0] ?? '';
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line === undefined ? null : line.slice(name.length + 1).trim();
}

/** A raw client connection: what it received, and whether and how it ended. */
export function rawClient(port: number) {
  const socket = connect(port, '127.0.0.1');
  const state = { data: '', error: null as string | null, closed: false };
  socket.on('data', (d: Buffer) => {
    state.data += d.toString('latin1');
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    state.error = e.code ?? 'error';
  });
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      state.closed = true;
      resolve();
    }),
  );
  const connected = new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  return { socket, state, closed, connected };
}

/** Resolves once `condition` holds (polled every 10 ms); rejects after `ms`. */
export function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (condition()) resolve();
      else if (Date.now() - started > ms) reject(new Error('condition not met in time'));
      else setTimeout(tick, 10);
    };
    tick();
  });
}

/** Writes `size` bytes of body without reading any response until all is written (as a client busy sending does), then reads. */
export async function sendWithoutReading(socket: Socket, head: string, size: number): Promise<void> {
  socket.pause();
  socket.write(head);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  while (sent < size) {
    const n = Math.min(chunk.length, size - sent);
    sent += n;
    if (!socket.write(chunk.subarray(0, n))) {
      await new Promise<void>((resolve, reject) => {
        socket.once('drain', resolve);
        socket.once('error', reject);
      }).catch(() => undefined);
      if (socket.destroyed) break;
    }
  }
  socket.resume();
}

/** One response parsed from a raw connection. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What came back on a raw connection. */
export interface Exchange {
  responses: RawResponse[];
  /** Bytes after the last complete response (must be empty: nothing torn, nothing extra). */
  rest: Buffer;
  /** The server ended or closed the connection before the timeout. */
  closed: boolean;
  /** ms from the first byte sent to the end of the connection. */
  ms: number;
}

/** Parses consecutive responses; `methods[i]` is the method of the i-th request (HEAD has no body). */
export function parseResponses(data: Buffer, methods: readonly string[]): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) break;
    const lines = data.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0] ?? '')?.[1] ?? Number.NaN);
    if (!Number.isInteger(status)) throw new Error(`not a status line: ${JSON.stringify(lines[0])}`);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      headers[name] = headers[name] === undefined ? line.slice(colon + 1).trim() : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
    }
    if (headers['transfer-encoding'] !== undefined) throw new Error('unexpected transfer-encoding');
    const noBody = methods[responses.length] === 'HEAD' || status === 204 || status === 304;
    const length = noBody ? 0 : Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error(`a ${status} response without content-length`);
    if (data.length < end + 4 + length) break;
    responses.push({ status, headers, body: data.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return { responses, rest: data.subarray(at) };
}

/**
 * Opens a connection, writes `parts` (an array element is written after `gapMs`), and reads until
 * the server closes the connection (or `timeoutMs`).
 */
export function exchange(port: number, parts: (string | Buffer)[], methods: readonly string[], { gapMs = 0, timeoutMs = 5000 } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const started = Date.now();
    let done = false;
    const socket = connect(port, '127.0.0.1');
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve({ ...parseResponses(Buffer.concat(chunks), methods), closed, ms: Date.now() - started });
      } catch (error) {
        reject(error as Error);
      }
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('connect', async () => {
      for (let i = 0; i < parts.length; i++) {
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (!socket.destroyed) socket.write(parts[i] as string | Buffer);
      }
    });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

/** A request in raw form, and its method (for parsing the responses). */
export interface RawRequest {
  method: string;
  text: string;
}

/** A raw request with `key` as its `x-api-key` (`null`: none), an optional body and `Connection: close`. */
export function rawRequestOf(
  key: string | null,
  method: string,
  path: string,
  options: { type?: string; body?: string | Buffer; close?: boolean; extra?: string } = {},
): RawRequest {
  let head = `${method} ${path} HTTP/1.1\r\nHost: x\r\n`;
  if (key !== null) head += `x-api-key: ${key}\r\n`;
  if (options.type !== undefined) head += `content-type: ${options.type}\r\n`;
  if (options.body !== undefined) head += `content-length: ${Buffer.byteLength(options.body)}\r\n`;
  if (options.extra !== undefined) head += options.extra;
  if (options.close) head += 'Connection: close\r\n';
  head += '\r\n';
  return { method, text: options.body === undefined ? head : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(options.body)]).toString('latin1') };
}

/** All requests in one write (pipelined), the last one with `Connection: close`. */
export function pipelined(port: number, requests: RawRequest[]): Promise<Exchange> {
  return exchange(
    port,
    [Buffer.from(requests.map((r) => r.text).join(''), 'latin1')],
    requests.map((r) => r.method),
  );
}

let txSeq = 0;

/** A valid transaction body with a fresh id (or `id`). */
export function txBody(id = `rb-${++txSeq}`): { id: string; body: string } {
  return {
    id,
    body: JSON.stringify({
      type: 'TRANSFER',
      transactionId: id,
      timestamp: Date.UTC(2025, 0, 15, 12),
      originUserId: 'alice',
      destinationUserId: 'bob',
      originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    }),
  };
}
