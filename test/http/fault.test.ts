import { describe, expect, it } from 'vitest';
import { faultOf } from '../../src/http/fault.js';
import { TxmonError } from '../../src/index.js';

/** An error as node-postgres raises it for a server error: a SQLSTATE in `code`. */
function databaseError(code: string, message: string): Error {
  class DatabaseError extends Error {
    readonly code = code;
  }
  return new DatabaseError(message);
}

const storeError = (cause: unknown) => new TxmonError('STORE_UNAVAILABLE', 'The database is unavailable; try again', [], { cause });

describe('faultOf', () => {
  const rows = [
    {
      name: 'a terminated backend: its SQLSTATE and message',
      error: storeError(databaseError('57P01', 'terminating connection due to administrator command')),
      expected: { code: 'STORE_UNAVAILABLE', cause: 'DatabaseError', causeCode: '57P01', message: 'terminating connection due to administrator command' },
    },
    {
      name: 'a refused connection: the socket error',
      error: storeError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
      expected: { code: 'STORE_UNAVAILABLE', cause: 'Error', causeCode: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
    },
    {
      name: "the driver's own message about a lost connection",
      error: storeError(new Error('Connection terminated unexpectedly')),
      expected: { code: 'STORE_UNAVAILABLE', cause: 'Error', message: 'Connection terminated unexpectedly' },
    },
  ];
  it.each(rows)('$name', ({ error, expected }) => {
    expect(faultOf(error)).toEqual(expected);
  });

  it('never carries the message of a statement error, which can quote the data (22P02 names the value)', () => {
    const fault = faultOf(storeError(databaseError('22P02', 'invalid input syntax for type integer: "alice@example.com"')));
    expect(fault).toEqual({ code: 'STORE_UNAVAILABLE', cause: 'DatabaseError', causeCode: '22P02' });
    expect(JSON.stringify(fault)).not.toContain('alice');
  });

  it('gives a bug its stack frames but not its message (a parser message quotes its input)', () => {
    let thrown: unknown;
    try {
      JSON.parse('{"iban":"DE89370400440532013000"');
    } catch (error) {
      thrown = error;
    }
    const fault = faultOf(thrown);
    expect(fault).toMatchObject({ code: 'INTERNAL', cause: 'SyntaxError' });
    expect(fault.at).toMatch(/^at /);
    expect(JSON.stringify(fault)).not.toContain('DE89');
  });

  it('follows causes to the innermost, and names a thrown value that is no error', () => {
    expect(faultOf(new Error('outer', { cause: new Error('middle', { cause: databaseError('08006', 'connection failure') }) }))).toMatchObject({
      code: 'INTERNAL',
      causeCode: '08006',
      message: 'connection failure',
    });
    expect(faultOf('boom')).toEqual({ code: 'INTERNAL', cause: 'string' });
  });
});
