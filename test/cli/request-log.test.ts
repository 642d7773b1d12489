import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { pino } from 'pino';
import { createBatchedWriter, formatRequestLine } from '../../src/cli/request-log.js';
import type { RequestLogEntry } from '../../src/http/index.js';

if (process.env.FC_SEED !== undefined) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

/** What pino itself writes for the entry, with the options `txmon serve` uses. */
function pinoLine(entry: RequestLogEntry, time: string): string {
  const lines: string[] = [];
  pino({ base: null, timestamp: () => time }, { write: (line: string) => void lines.push(line) }).info(entry, 'request');
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

const anyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, 5e-324));
// Strings that need escaping in JSON: quotes, backslashes, control characters; any well-formed
// Unicode (lone surrogates have their own test below: there the line differs from pino's).
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '/rule-instances/{ruleInstanceId}'));
const entryArb = fc.record(
  {
    method: anyText,
    route: anyText,
    status: anyNumber,
    tenant: fc.option(anyText, { nil: null }),
    durationMs: anyNumber,
    code: anyText,
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

  it('an entry with the code unset has no code field; one with a code has it before msg', () => {
    const time = ',"time":"2026-11-22T09:00:00.000Z"';
    expect(formatRequestLine({ method: 'GET', route: '/rules', status: 200, tenant: 'default', durationMs: 3 }, time)).toBe(
      '{"level":30,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":200,"tenant":"default","durationMs":3,"msg":"request"}\n',
    );
    expect(formatRequestLine({ method: 'GET', route: '/rules', status: 401, tenant: null, durationMs: 0, code: 'UNAUTHORIZED' }, time)).toBe(
      '{"level":30,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":401,"tenant":null,"durationMs":0,"code":"UNAUTHORIZED","msg":"request"}\n',
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
    expect(h.writes.join('')).toBe(turns.flat().map((l) => `${l}\n`).join(''));
    expect(h.writes.every((w) => w !== '')).toBe(true);
  });
});
