import { closeSync, openSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { pino } from 'pino';
import { createBatchedWriter, createFdSink, formatLogLine, formatRequestLine, requestLevelOf, type LogValue } from '../../src/cli/request-log.js';
import { createHttpHandler, toNodeListener, type RequestLogEntry } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { pipelined, rawRequestOf, type RawRequest } from '../http/raw-http.js';

/** What pino itself writes for the entry, with the options `txmon serve` uses. */
function pinoLine(entry: RequestLogEntry, time: string): string {
  const lines: string[] = [];
  const level = ({ 30: 'info', 40: 'warn', 50: 'error' } as const)[requestLevelOf(entry) as 30 | 40 | 50];
  pino({ base: null, timestamp: () => time }, { write: (line: string) => void lines.push(line) })[level](entry, 'request');
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

const anyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, 5e-324));
// Strings that need escaping in JSON: quotes, backslashes, control characters; any well-formed
// Unicode (lone surrogates have their own test below: there the line differs from pino's).
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '/rule-instances/{ruleInstanceId}'),
);
const entryArb = fc.record(
  {
    method: anyText,
    route: anyText,
    status: anyNumber,
    tenant: fc.option(anyText, { nil: null }),
    durationMs: anyNumber,
    requestId: anyText,
    code: fc.oneof(anyText, fc.constantFrom('STORE_UNAVAILABLE', 'STORE_TIMEOUT', 'OVERLOADED', 'INTERNAL')),
    fault: fc.record({ code: anyText, cause: anyText, causeCode: anyText, message: anyText, at: anyText }, { requiredKeys: ['code', 'cause'] }),
  },
  { requiredKeys: ['method', 'route', 'status', 'tenant', 'durationMs'] },
);

describe('formatRequestLine', () => {
  test.prop([entryArb, fc.constantFrom(',"time":"2026-11-22T09:00:00.000Z"', ',"time":1700000000000')])(
    'writes exactly the line pino writes for the same entry',
    (entry, time) => {
      expect(formatRequestLine(entry, time)).toBe(pinoLine(entry, time));
    },
  );

  it('an entry with the code unset has no code field; one with a code has it before msg, after the request id', () => {
    const time = ',"time":"2026-11-22T09:00:00.000Z"';
    expect(formatRequestLine({ method: 'GET', route: '/rules', status: 200, tenant: 'default', durationMs: 3 }, time)).toBe(
      '{"level":30,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":200,"tenant":"default","durationMs":3,"msg":"request"}\n',
    );
    expect(formatRequestLine({ method: 'GET', route: '/rules', status: 401, tenant: null, durationMs: 0, code: 'UNAUTHORIZED' }, time)).toBe(
      '{"level":30,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":401,"tenant":null,"durationMs":0,"code":"UNAUTHORIZED","msg":"request"}\n',
    );
    expect(
      formatRequestLine({ method: 'GET', route: '/rules', status: 500, tenant: null, durationMs: 0.25, requestId: '3f9a1c2e-1', code: 'INTERNAL' }, time),
    ).toBe(
      '{"level":50,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":500,"tenant":null,"durationMs":0.25,"requestId":"3f9a1c2e-1","code":"INTERNAL","msg":"request"}\n',
    );
  });
});

describe('formatLogLine', () => {
  /** What pino itself writes for the lifecycle line, with the options `txmon serve` used to give it. */
  function pinoLifecycleLine(fields: Record<string, LogValue | undefined>, msg: string, time: string): string {
    const lines: string[] = [];
    pino({ base: null, timestamp: () => time }, { write: (line: string) => void lines.push(line) }).info(fields, msg);
    return lines[0] as string;
  }
  const value: fc.Arbitrary<LogValue | undefined> = fc.oneof(
    anyText,
    anyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(anyText, { maxLength: 3 }),
  );
  const key = fc.oneof(fc.constantFrom('url', 'tenants', 'store', 'signal', 'forced', 'tenant', 'removed', 'error'), anyText);

  test.prop([fc.dictionary(key, value, { maxKeys: 5 }), anyText, fc.constantFrom(',"time":"2026-11-22T09:00:00.000Z"', '')])(
    'writes exactly the line pino writes for the same fields and message',
    (fields, msg, time) => {
      expect(formatLogLine(fields, msg, time)).toBe(pinoLifecycleLine(fields, msg, time));
    },
  );

  it('writes the serving line with the fields in their order, then msg', () => {
    const line = formatLogLine(
      { url: 'http://127.0.0.1:8080', tenants: ['default'], store: 'pglite:./txmon-data' },
      'txmon serving',
      ',"time":"2026-11-22T09:00:00.000Z"',
    );
    expect(line).toBe(
      '{"level":30,"time":"2026-11-22T09:00:00.000Z","url":"http://127.0.0.1:8080","tenants":["default"],"store":"pglite:./txmon-data","msg":"txmon serving"}\n',
    );
  });
});

describe('formatRequestLine on a lone surrogate', () => {
  it('escapes it (well-formed JSON, as JSON.stringify does), where pino writes it raw', () => {
    const entry = { method: 'GET', route: '/rules', status: 200, tenant: 'bad\ud800', durationMs: 1 };
    const line = formatRequestLine(entry, '');
    expect(line).toContain('"tenant":"bad\\ud800"');
    expect((JSON.parse(line) as { tenant: string }).tenant).toBe('bad\ud800');
    expect(pinoLine(entry, '')).not.toBe(line);
  });
});

describe('createBatchedWriter', () => {
  function harness() {
    const writes: string[] = [];
    const errors: unknown[] = [];
    const scheduled: (() => void)[] = [];
    let failNext = false;
    const sink = {
      write(text: string) {
        if (failNext) {
          failNext = false;
          throw Object.assign(new Error('broken pipe'), { code: 'EPIPE' });
        }
        writes.push(text);
      },
    };
    const writer = createBatchedWriter(sink, (e) => errors.push(e), { schedule: (fn) => scheduled.push(fn), largeBytes: 8 });
    const runScheduled = () => {
      for (const fn of scheduled.splice(0)) fn();
    };
    return { writer, writes, errors, scheduled, runScheduled, fail: () => (failNext = true) };
  }

  it('writes the lines of one turn together, in order, once the turn ends', () => {
    const h = harness();
    h.writer.write('a\n');
    h.writer.write('b\n');
    h.writer.write('c\n');
    expect(h.writes).toEqual([]);
    expect(h.scheduled).toHaveLength(1);
    h.runScheduled();
    expect(h.writes).toEqual(['a\nb\nc\n']);
    h.writer.write('d\n');
    expect(h.scheduled).toHaveLength(1);
    h.runScheduled();
    expect(h.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('flush writes the pending lines at once; the scheduled callback then writes nothing more', () => {
    const h = harness();
    h.writer.write('a\n');
    h.writer.flush();
    expect(h.writes).toEqual(['a\n']);
    h.runScheduled();
    expect(h.writes).toEqual(['a\n']);
    h.writer.flush();
    expect(h.writes).toEqual(['a\n']);
    // A line after a flush is scheduled again and not lost.
    h.writer.write('b\n');
    h.runScheduled();
    expect(h.writes).toEqual(['a\n', 'b\n']);
  });

  it('a failing write loses only its own lines, reports the error and keeps writing', () => {
    const h = harness();
    h.writer.write('a\n');
    h.fail();
    h.runScheduled();
    expect(h.errors).toHaveLength(1);
    expect((h.errors[0] as { code: string }).code).toBe('EPIPE');
    h.writer.write('b\n');
    h.runScheduled();
    expect(h.writes).toEqual(['b\n']);
  });

  it('by default, writes a batch from a timer: after the setImmediate callbacks (the responses) of its turn', async () => {
    const order: string[] = [];
    const writer = createBatchedWriter({ write: (text: string) => void order.push(`log:${text}`) }, () => undefined);
    writer.write('a\n');
    setImmediate(() => order.push('responses'));
    writer.write('b\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['responses']);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(order).toEqual(['responses', 'log:a\nb\n']);
  });

  it('flushIfLarge writes only once the pending text reaches largeBytes (8 in this harness)', () => {
    const h = harness();
    h.writer.write('abc\n');
    h.writer.flushIfLarge();
    expect(h.writes).toEqual([]);
    h.writer.write('defg\n');
    h.writer.flushIfLarge();
    expect(h.writes).toEqual(['abc\ndefg\n']);
    h.writer.flushIfLarge();
    expect(h.writes).toEqual(['abc\ndefg\n']);
    // The batch's timer then finds nothing to write.
    h.runScheduled();
    expect(h.writes).toEqual(['abc\ndefg\n']);
  });

  test.prop([fc.array(fc.array(fc.string(), { maxLength: 5 }), { maxLength: 10 })])('every line is written once, in order, whatever the turns', (turns) => {
    const h = harness();
    for (const turn of turns) {
      for (const line of turn) h.writer.write(`${line}\n`);
      h.runScheduled();
    }
    expect(h.writes.join('')).toBe(
      turns
        .flat()
        .map((l) => `${l}\n`)
        .join(''),
    );
    expect(h.writes.every((w) => w !== '')).toBe(true);
  });
});

const KEY = 'request-log-key-0123456789';

/** A raw request with {@link KEY} unless `options.key` says otherwise (`null`: none). */
function request(method: string, path: string, options: { key?: string | null; close?: boolean } = {}): RawRequest {
  return rawRequestOf(options.key === undefined ? KEY : options.key, method, path, options);
}

function close(server: ReturnType<typeof createServer>): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** No lone surrogate (String#isWellFormed, ES2024). */
const wellFormed = (s: string) => !/\p{Cs}/u.test(s);

describe('formatRequestLine on long strings and any entry', () => {
  // The existing property draws short strings; pino switches to JSON.stringify past 100 characters.
  const longText = fc.oneof(
    fc.string({ minLength: 95, maxLength: 260 }),
    fc.string({ unit: 'binary', minLength: 95, maxLength: 260 }),
    fc.string({ unit: 'grapheme-composite', minLength: 30, maxLength: 120 }),
  );
  const noLoneSurrogate = wellFormed;

  test.prop(
    [
      longText.filter(noLoneSurrogate),
      longText.filter(noLoneSurrogate),
      fc.option(longText.filter(noLoneSurrogate), { nil: null }),
      fc.option(longText.filter(noLoneSurrogate), { nil: undefined }),
    ],
    { numRuns: 200 },
  )('long strings with escapes: the same line as pino', (method, route, tenant, code) => {
    const entry: RequestLogEntry = { method, route, status: 200, tenant, durationMs: 1.5, ...(code === undefined ? {} : { code }) };
    const time = ',"time":"2026-11-22T09:00:00.000Z"';
    expect(formatRequestLine(entry, time)).toBe(pinoLine(entry, time));
  });

  test.prop(
    [
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: null }),
      fc.oneof(fc.double(), fc.integer()),
      fc.oneof(fc.double(), fc.integer()),
      fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
    ],
    { numRuns: 300 },
  )('any entry (lone surrogates included) makes one well-formed JSON line that reads back as the entry', (route, tenant, status, durationMs, code) => {
    const entry: RequestLogEntry = { method: 'GET', route, status, tenant, durationMs, ...(code === undefined ? {} : { code }) };
    const line = formatRequestLine(entry, ',"time":"2026-11-22T09:00:00.000Z"');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(wellFormed(line)).toBe(true);
    const num = (n: number) => (Number.isFinite(n) ? (Object.is(n, -0) ? 0 : n) : null);
    expect(JSON.parse(line)).toEqual({
      level: requestLevelOf(entry),
      time: '2026-11-22T09:00:00.000Z',
      method: 'GET',
      route,
      status: num(status),
      tenant,
      durationMs: num(durationMs),
      ...(code === undefined ? {} : { code }),
      msg: 'request',
    });
    // Where pino's line is well-formed, it is the same line.
    const p = pinoLine(entry, ',"time":"2026-11-22T09:00:00.000Z"');
    if (wellFormed(p)) expect(line).toBe(p);
  });
});

type Op = { kind: 'write'; n: number } | { kind: 'flush' } | { kind: 'micro' } | { kind: 'immediate' } | { kind: 'timeout' };

describe('createBatchedWriter with its real schedule', () => {
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => ({ kind: 'write' as const, n })) },
    fc.constant({ kind: 'flush' as const }),
    fc.constant({ kind: 'micro' as const }),
    fc.constant({ kind: 'immediate' as const }),
    fc.constant({ kind: 'timeout' as const }),
  );

  test.prop([fc.array(opArb, { maxLength: 25 }), fc.array(fc.boolean(), { maxLength: 8 })], { numRuns: 60 })(
    'across turns, flushes and failing writes: every line attempted once, in order; only failed writes lost; nothing pending once the fallback timer ran',
    async (ops, failures) => {
      const attempts: { text: string; failed: boolean }[] = [];
      const errors: unknown[] = [];
      const sink = {
        write(text: string) {
          const failed = failures[attempts.length] === true;
          attempts.push({ text, failed });
          if (failed) throw new Error('EIO');
        },
      };
      const writer = createBatchedWriter(sink, (e) => errors.push(e));
      let seq = 0;
      const lines: string[] = [];
      for (const op of ops) {
        if (op.kind === 'write') {
          for (let i = 0; i < op.n; i++) {
            const line = `line-${seq++}\n`;
            lines.push(line);
            writer.write(line);
          }
        } else if (op.kind === 'flush') writer.flush();
        else if (op.kind === 'micro') await Promise.resolve();
        else if (op.kind === 'immediate') await new Promise((r) => setImmediate(r));
        else await new Promise((r) => setTimeout(r, 0));
      }
      // After the batch timer (25 ms), nothing is pending.
      await new Promise((r) => setTimeout(r, 40));
      expect(attempts.every((a) => a.text !== '')).toBe(true);
      expect(attempts.map((a) => a.text).join('')).toBe(lines.join(''));
      expect(errors).toHaveLength(attempts.filter((a) => a.failed).length);
      // Nothing more is written later.
      const before = attempts.length;
      await new Promise((r) => setTimeout(r, 2));
      expect(attempts).toHaveLength(before);
    },
  );

  it('a line written by the sink itself (re-entrantly) or by onError is not lost', async () => {
    const out: string[] = [];
    let writer!: ReturnType<typeof createBatchedWriter>;
    let first = true;
    writer = createBatchedWriter(
      {
        write(text: string) {
          if (first) {
            first = false;
            writer.write('from-sink\n');
            throw new Error('boom');
          }
          out.push(text);
        },
      },
      () => writer.write('from-onError\n'),
    );
    writer.write('a\n');
    await new Promise((r) => setTimeout(r, 80));
    expect(out.join('')).toBe('from-sink\nfrom-onError\n');
    writer.write('b\n');
    await new Promise((r) => setTimeout(r, 40));
    expect(out.join('')).toBe('from-sink\nfrom-onError\nb\n');
  });

  it('on a real server, every request is logged once, and the log lines come in the order the responses were written', async () => {
    const events: string[] = [];
    const writer = createBatchedWriter(
      {
        write: (text: string) =>
          void events.push(
            ...text
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => `log:${l}`),
          ),
      },
      () => undefined,
    );
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY], onRequest: (e) => writer.write(`${e.route}|${e.status}\n`) }));
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
      res.end = ((...a: unknown[]) => {
        events.push(`res:${res.statusCode}`);
        return end(...a);
      }) as typeof res.end;
      listener(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    try {
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          pipelined(port, [request('GET', i % 2 ? '/healthz' : '/nope', { key: null }), request('GET', '/rules', { close: true })]),
        ),
      );
      for (const r of results) expect(r.responses).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 40));
    } finally {
      await close(server);
    }
    const logs = events.filter((e) => e.startsWith('log:'));
    const responses = events.filter((e) => e.startsWith('res:'));
    expect(logs).toHaveLength(60);
    expect(responses).toHaveLength(60);
    expect(logs.map((l) => Number(l.split('|')[1]))).toEqual(responses.map((r) => Number(r.slice(4))));
  });

  it("when requests finish in two consecutive turns, each turn's log lines are written after its responses (the writer flushed by afterResponses, as txmon serve wires it)", async () => {
    // With the log flushed by two setImmediate hops of its own, lines of turn 2 would join the
    // batch queued in turn 1 and be written before turn 2's responses. The writer is flushed from a
    // timer, or by toNodeListener's afterResponses hook right after a batch of responses (here on
    // every batch: largeBytes 1).
    const events: string[] = [];
    const writer = createBatchedWriter({ write: (text: string) => void events.push(`log:${text.trim().split('\n').join(',')}`) }, () => undefined, {
      largeBytes: 1,
    });
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY], onRequest: (e) => writer.write(`${e.route}\n`) }), {
      afterResponses: writer.flushIfLarge,
    });
    const fakeReq = (url: string) =>
      Object.assign(Readable.from([]), { method: 'GET', url, headers: {}, rawHeaders: [], headersDistinct: {} }) as unknown as IncomingMessage;
    const fakeRes = (name: string, onEnd = () => {}) =>
      ({
        setHeader() {},
        writeHead() {},
        end() {
          events.push(`res:${name}`);
          onEnd();
        },
        destroy() {
          events.push(`destroyed:${name}`);
        },
      }) as unknown as ServerResponse;
    // Turn 1: a request finishes; its response is written in turn 1's check phase. Turn 2: another
    // request finishes in the timers phase (a 1 ms timer set while the first response is written,
    // already due when turn 2 starts), before turn 2's check phase.
    const second = () => listener(fakeReq('/openapi.json'), fakeRes('/openapi.json'));
    listener(
      fakeReq('/healthz'),
      fakeRes('/healthz', () => {
        setTimeout(second, 1);
        const t = Date.now();
        while (Date.now() - t < 3);
      }),
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(events.filter((e) => e.startsWith('res:'))).toEqual(['res:/healthz', 'res:/openapi.json']);
    // Every line after the response of its request.
    for (const route of ['/healthz', '/openapi.json']) {
      const logAt = events.findIndex((e) => e.startsWith('log:') && e.includes(route));
      expect(logAt).toBeGreaterThan(events.indexOf(`res:${route}`));
    }
  });
});

describe('createFdSink', () => {
  // The destination `txmon serve` writes through. Unlike pino's sonic-boom destination, which keeps a
  // buffer whose write failed with anything but EPIPE and retries it with every later write
  // (unbounded memory on a full disk), it drops on errors and holds back only on EAGAIN.
  const line = (i: number) =>
    formatRequestLine({ method: 'GET', route: '/healthz', status: 200, tenant: null, durationMs: i }, ',"time":"2026-11-22T09:00:00.000Z"');

  it('a write that fails with ENOSPC loses its own lines only: nothing is kept, later lines are written once the disk recovers', () => {
    const written: string[] = [];
    const errors: string[] = [];
    let failing = true;
    const sink = createFdSink(99, (e) => errors.push((e as NodeJS.ErrnoException).code ?? ''), {
      write: (_fd, bytes, offset, length) => {
        if (failing) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
        written.push(Buffer.from(bytes.subarray(offset, offset + length)).toString('utf8'));
        return length;
      },
    });
    for (let i = 0; i < 200; i++) sink.write(line(i));
    expect(errors).toHaveLength(200);
    expect(sink.flush()).toBe(true);
    failing = false;
    sink.write(line(-1));
    expect(written).toEqual([line(-1)]);
  });

  it('on a real descriptor (/dev/full) every write fails with ENOSPC and nothing piles up', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const errors: string[] = [];
      const sink = createFdSink(fd, (e) => errors.push((e as NodeJS.ErrnoException).code ?? ''));
      for (let i = 0; i < 50; i++) sink.write(line(i));
      expect(errors.every((c) => c === 'ENOSPC')).toBe(true);
      expect(errors).toHaveLength(50);
      expect(sink.flush()).toBe(true);
    } finally {
      closeSync(fd);
    }
  });

  it('partial writes and EAGAIN keep the rest, in order, up to the bound; past it new text is dropped and reported', async () => {
    let out = '';
    let mode: 'partial' | 'again' | 'ok' = 'partial';
    const errors: string[] = [];
    const sink = createFdSink(99, (e) => errors.push((e as NodeJS.ErrnoException).code ?? ''), {
      maxHeldBytes: 1000,
      write: (_fd, bytes, offset, length) => {
        if (mode === 'again') throw Object.assign(new Error('again'), { code: 'EAGAIN' });
        const n = mode === 'partial' ? Math.min(7, length) : length;
        out += Buffer.from(bytes.subarray(offset, offset + n)).toString('latin1');
        return n;
      },
    });
    sink.write('abcdefghijklmnopqrstuvwxyz\n');
    expect(out).toBe('abcdefghijklmnopqrstuvwxyz\n');
    mode = 'again';
    sink.write('first\n');
    sink.write('second\n');
    expect(sink.flush()).toBe(false);
    expect(errors).toEqual([]);
    sink.write('x'.repeat(2000));
    expect(errors).toEqual(['EBACKLOG']);
    mode = 'ok';
    // The 10 ms retry timer writes what was held back, without another write.
    await new Promise((r) => setTimeout(r, 40));
    expect(out).toBe('abcdefghijklmnopqrstuvwxyz\nfirst\nsecond\n');
    expect(sink.flush()).toBe(true);
  });
});
