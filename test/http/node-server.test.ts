/**
 * createNodeServer and drainAndClose against real sockets: what a client facing the server can do
 * to it — stall, flood with connections, announce bodies it must not send, send bodies past the
 * limit, use CONNECT — and that a shutdown finishes what is in flight.
 */
import { connect, type Socket } from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpHandler, createNodeServer, drainAndClose, type NodeServerOptions } from '../../src/http/index.js';
import { T0, testEngine } from '../helpers.js';

const KEY = 'node-server-key-0123456789';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Started {
  server: Server;
  port: number;
  /** Requests the handler has started on. */
  seen(): number;
}

/** A server on a free port; with `slowMs`, each request takes that long (a plain fetch handler, to hold requests in flight). */
async function start(options: NodeServerOptions = {}, slowMs?: number): Promise<Started> {
  const { engine } = testEngine();
  const handler = createHttpHandler({ engine, apiKeys: [KEY], unauthenticatedRateLimit: null });
  let seen = 0;
  const slow = async (request: Request) => {
    seen += 1;
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    return handler(request);
  };
  const server = createNodeServer(slowMs === undefined ? handler : slow, options);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen: () => seen };
}

/** A raw client connection: what it received, and whether and how it ended. */
function rawClient(port: number) {
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

function until(condition: () => boolean, ms = 5_000): Promise<void> {
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
async function sendWithoutReading(socket: Socket, head: string, size: number): Promise<void> {
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

describe('createNodeServer', () => {
  it('closes a connection that stalls in its request head after headersTimeoutMs', async () => {
    const { port } = await start({ headersTimeoutMs: 300 });
    const client = rawClient(port);
    await client.connected;
    client.socket.write('POST /transactions HTTP/1.1\r\nhost: x\r\n'); // never finishes the head
    await client.closed;
    expect(client.state.data).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection that stalls in the middle of a body after idleTimeoutMs', async () => {
    const { port } = await start({ idleTimeoutMs: 300 });
    const client = rawClient(port);
    await client.connected;
    client.socket.write(`POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"type":`);
    await client.closed;
    expect(client.state.closed).toBe(true);
  });

  it('closes connections from one address past maxConnectionsPerAddress, and serves again when they are gone', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 3 });
    const clients = Array.from({ length: 4 }, () => rawClient(port));
    await Promise.all(clients.slice(0, 3).map((c) => c.connected));
    await (clients[3] as ReturnType<typeof rawClient>).closed;
    await until(() => clients.slice(0, 3).every((c) => !c.state.closed));
    for (const c of clients.slice(0, 3)) c.socket.destroy();
    await Promise.all(clients.slice(0, 3).map((c) => c.closed));
    const again = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(again.status).toBe(200);
  });

  it('sets the timeouts and the connection cap it is given, with safe defaults', async () => {
    const { server } = await start();
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(120_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.timeout).toBe(30_000);
    expect(server.maxConnections).toBe(1_024);
  });

  it('answers CONNECT with 405 and closes', async () => {
    const { port } = await start();
    const client = rawClient(port);
    await client.connected;
    client.socket.write('CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n');
    await client.closed;
    expect(client.state.data).toMatch(/^HTTP\/1\.1 405 /);
    expect(client.state.data).toContain('"code":"METHOD_NOT_ALLOWED"');
  });

  it('sends no 100 Continue for a body it refuses (unauthenticated, or announced past the limit), and 100 Continue for one it reads', async () => {
    const { port } = await start();
    const ask = async (key: string, length: number) => {
      const client = rawClient(port);
      await client.connected;
      client.socket.write(
        `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nexpect: 100-continue\r\n\r\n`,
      );
      await until(() => client.state.data.includes('\r\n\r\n'));
      const first = client.state.data.slice(0, 12);
      client.socket.destroy();
      return first;
    };
    expect(await ask('wrong-key-0123456789', 10)).toBe('HTTP/1.1 401');
    expect(await ask(KEY, 50_000_000)).toBe('HTTP/1.1 413');
    expect(await ask(KEY, 10)).toBe('HTTP/1.1 100');
  });

  it('a client that reads only after sending a body past the limit still reads the 413 (lingering close), every time', async () => {
    const { port } = await start();
    for (let i = 0; i < 5; i++) {
      const client = rawClient(port);
      await client.connected;
      const size = 20_000_000;
      await sendWithoutReading(client.socket, `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`, size);
      await client.closed;
      expect(client.state.data.slice(0, 12)).toBe('HTTP/1.1 413');
      expect(client.state.data.toLowerCase()).toContain('connection: close');
    }
  });

  it('the same for a chunked body that passes the limit while it streams, and for an unauthenticated body', async () => {
    const { port } = await start();
    const chunked = rawClient(port);
    await chunked.connected;
    const chunk = `10000\r\n${' '.repeat(0x10000)}\r\n`;
    chunked.socket.pause();
    chunked.socket.write(`POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
    for (let i = 0; i < 300; i++) chunked.socket.write(chunk);
    chunked.socket.end('0\r\n\r\n');
    chunked.socket.resume();
    await chunked.closed;
    expect(chunked.state.data.slice(0, 12)).toBe('HTTP/1.1 413');

    const forged = rawClient(port);
    await forged.connected;
    await sendWithoutReading(forged.socket, `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: wrong-key-0123456789\r\ncontent-type: application/json\r\ncontent-length: 20000000\r\n\r\n`, 20_000_000);
    await forged.closed;
    expect(forged.state.data.slice(0, 12)).toBe('HTTP/1.1 401');
  });

  it('refuses a forged upload before reading its body, without holding it', async () => {
    const { port } = await start();
    const client = rawClient(port);
    await client.connected;
    // The head only: the 401 must come without the 100 MB announced.
    client.socket.write(`PUT /uploads/file-1?expires=${T0 + 60_000}&signature=00 HTTP/1.1\r\nhost: x\r\ncontent-length: 100000000\r\n\r\n`);
    await until(() => client.state.data.includes('\r\n\r\n'));
    expect(client.state.data.slice(0, 12)).toBe('HTTP/1.1 401');
    client.socket.destroy();
  });
});

describe('drainAndClose', () => {
  it('lets in-flight keep-alive requests finish with connection: close, closes idle connections, then calls back', async () => {
    const { server, port, seen } = await start({}, 200);
    const busy = Array.from({ length: 3 }, () => rawClient(port));
    const idle = rawClient(port);
    await Promise.all([...busy, idle].map((c) => c.connected));
    for (const c of busy) c.socket.write(`GET /rules HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\nconnection: keep-alive\r\n\r\n`);
    await until(() => seen() === 3);
    let done = false;
    drainAndClose(server, () => {
      done = true;
    });
    await idle.closed;
    expect(idle.state.data).toBe('');
    await Promise.all(busy.map((c) => c.closed));
    for (const c of busy) {
      expect(c.state.data.slice(0, 12)).toBe('HTTP/1.1 200');
      expect(c.state.data.toLowerCase()).toContain('connection: close');
      expect(c.state.error).toBeNull();
    }
    await until(() => done);
  });
});
