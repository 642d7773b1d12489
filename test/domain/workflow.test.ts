import { describe, expect, it } from 'vitest';
import {
  CASE_STATUSES,
  DEFAULT_SLA_HOURS,
  openAlertsPatchOnCaseChange,
  decideStatusChange,
  isAllowedMove,
  slaDueTimestampOf,
  type CaseStatus,
} from '../../src/domain/index.js';
import { isTxmonError } from '../../src/errors.js';

const T = 1_700_000_000_000;
const OPEN_LIKE: CaseStatus[] = ['OPEN', 'REOPENED', 'IN_PROGRESS', 'IN_REVIEW', 'ON_HOLD', 'ESCALATED'];

/** The documented table (docs/alerts-and-cases.md), written out pair by pair. */
function expected(from: CaseStatus, to: CaseStatus): boolean {
  if (from === to) return false;
  if (to === 'OPEN') return false;
  if (from === 'CLOSED') return to === 'REOPENED';
  if (to === 'REOPENED') return false;
  return OPEN_LIKE.includes(from);
}

function attempt(from: CaseStatus, to: CaseStatus): 'allowed' | string {
  try {
    decideStatusChange(from, to === 'CLOSED' ? { status: to, reason: ['FALSE_POSITIVE'] } : { status: to }, T, undefined);
    return 'allowed';
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    return `${error.code} ${error.details[0]?.path} ${error.details[0]?.message}`;
  }
}

describe('status moves', () => {
  const pairs = CASE_STATUSES.flatMap((from) => CASE_STATUSES.map((to) => [from, to] as const));
  it.each(pairs)('%s → %s is allowed exactly as the table says, and a refusal is a 400 naming the move', (from, to) => {
    expect(isAllowedMove(from, to)).toBe(expected(from, to));
    expect(attempt(from, to)).toBe(expected(from, to) ? 'allowed' : `INVALID_STATUS_MOVE /status ${from} → ${to} is not allowed`);
  });
});

describe('closing reasons', () => {
  const fail = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      if (isTxmonError(error)) return `${error.status} ${error.details[0]?.path} ${error.details[0]?.code}`;
      throw error;
    }
    return 'ok';
  };
  it('a close needs a reason', () => {
    expect(fail(() => decideStatusChange('OPEN', { status: 'CLOSED' }, T, undefined))).toBe('400 /reason required');
    expect(fail(() => decideStatusChange('OPEN', { status: 'CLOSED', reason: [] }, T, undefined))).toBe('400 /reason required');
  });
  it('reason OTHER needs otherReason text, and otherReason needs OTHER', () => {
    expect(fail(() => decideStatusChange('OPEN', { status: 'CLOSED', reason: ['OTHER'] }, T, undefined))).toBe('400 /otherReason required');
    expect(fail(() => decideStatusChange('OPEN', { status: 'CLOSED', reason: ['OTHER'], otherReason: '  ' }, T, undefined))).toBe('400 /otherReason required');
    expect(fail(() => decideStatusChange('OPEN', { status: 'CLOSED', reason: ['DUPLICATE'], otherReason: 'x' }, T, undefined))).toBe(
      '400 /otherReason not-allowed',
    );
  });
  it('a reason is refused on a move that does not close', () => {
    expect(fail(() => decideStatusChange('OPEN', { status: 'ESCALATED', reason: ['DUPLICATE'] }, T, undefined))).toBe('400 /reason not-allowed');
  });
  it('a close keeps its reasons, text, comment, actor and time', () => {
    expect(decideStatusChange('ESCALATED', { status: 'CLOSED', reason: ['OTHER', 'DUPLICATE'], otherReason: 'merged', comment: 'c' }, T, 'ana')).toEqual({
      status: 'CLOSED',
      reason: ['OTHER', 'DUPLICATE'],
      otherReason: 'merged',
      comment: 'c',
      actor: 'ana',
      timestamp: T,
    });
  });
});

describe('closing a case closes its open alerts', () => {
  const close = decideStatusChange('OPEN', { status: 'CLOSED', reason: ['FALSE_POSITIVE'] }, T, 'ana');
  it('the alerts still open close with the case reason', () => {
    expect(openAlertsPatchOnCaseChange(close)).toEqual({ alertStatus: 'CLOSED', lastStatusChange: close, closingReason: close, updatedAt: T });
  });
  it('a move other than a close leaves the alerts alone', () => {
    expect(openAlertsPatchOnCaseChange(decideStatusChange('OPEN', { status: 'ESCALATED' }, T, undefined))).toBeNull();
    expect(openAlertsPatchOnCaseChange(decideStatusChange('CLOSED', { status: 'REOPENED' }, T, undefined))).toBeNull();
  });
});

describe('SLA due date', () => {
  it('is creation plus the hours of the current priority', () => {
    expect(slaDueTimestampOf({ createdTimestamp: T, priority: 'P1' }, DEFAULT_SLA_HOURS)).toBe(T + 24 * 3_600_000);
    expect(slaDueTimestampOf({ createdTimestamp: T, priority: 'P4' }, { P1: 1, P2: 2, P3: 3, P4: 5 })).toBe(T + 5 * 3_600_000);
  });
});
