import { describe, expect, it } from 'vitest';
import { decideAlertHit, type Alert, type AlertHit, type Case } from '../../src/domain/index.js';

const T = 1_700_000_000_000;
const hit = (overrides: Partial<AlertHit> = {}): AlertHit => ({
  instanceId: 'ri-1',
  userId: 'alice',
  direction: 'ORIGIN',
  transactionId: 't-2',
  priority: 'P2',
  ruleDetails: { id: 'R-2', name: 'n', description: 'd', instanceId: 'ri-1', action: 'FLAG', nature: 'AML' },
  newAlertId: 'A-new',
  newCaseId: 'C-new',
  ...overrides,
});
const alert = (alertStatus: Alert['alertStatus']): Alert => ({
  alertId: 'A-1',
  caseId: 'C-1',
  createdTimestamp: T - 10,
  updatedAt: T - 10,
  alertStatus,
  priority: 'P2',
  userId: 'alice',
  direction: 'ORIGIN',
  entityDetails: { type: 'TRANSACTION', transactionIds: ['t-1'] },
  ruleDetails: hit().ruleDetails,
});
const userCase = (caseStatus: Case['caseStatus'], priority: Case['priority'] = 'P3'): Case => ({
  caseId: 'C-1',
  createdTimestamp: T - 10,
  updatedAt: T - 10,
  caseStatus,
  priority,
  alertIds: ['A-1'],
  entityDetails: { type: 'USER', userId: 'alice' },
});

describe('decideAlertHit', () => {
  it('appends to the open alert of (instance, user), whatever its case', () => {
    expect(decideAlertHit(hit(), alert('OPEN'), userCase('OPEN'), T)).toEqual({ kind: 'append', alertId: 'A-1', caseId: 'C-1', transactionId: 't-2', at: T });
    expect(decideAlertHit(hit(), alert('IN_REVIEW'), null, T)).toMatchObject({ kind: 'append', alertId: 'A-1' });
  });

  it('opens a new alert and a new case when the user has neither open', () => {
    const change = decideAlertHit(hit(), null, null, T);
    expect(change).toMatchObject({
      kind: 'open',
      caseIsNew: true,
      alert: { alertId: 'A-new', caseId: 'C-new', alertStatus: 'OPEN', entityDetails: { transactionIds: ['t-2'] } },
    });
    expect(change.kind === 'open' && change.caseIsNew && change.case).toEqual({
      caseId: 'C-new',
      createdTimestamp: T,
      updatedAt: T,
      caseStatus: 'OPEN',
      priority: 'P2',
      alertIds: ['A-new'],
      entityDetails: { type: 'USER', userId: 'alice' },
    });
  });

  const rows: { name: string; alert: Alert | null; case: Case; expected: Record<string, unknown> }[] = [
    {
      name: 'a closed alert, an open case: a new alert joins the case',
      alert: alert('CLOSED'),
      case: userCase('OPEN'),
      expected: { kind: 'open', caseIsNew: false, caseId: 'C-1', casePriority: 'P2', at: T },
    },
    {
      name: 'a more urgent alert raises the case priority (P2 over P3)',
      alert: null,
      case: userCase('ESCALATED', 'P3'),
      expected: { caseIsNew: false, casePriority: 'P2' },
    },
    { name: 'a less urgent alert leaves it (P1 stays)', alert: null, case: userCase('OPEN', 'P1'), expected: { caseIsNew: false, casePriority: 'P1' } },
    { name: 'a closed case: a new case', alert: alert('CLOSED'), case: userCase('CLOSED'), expected: { caseIsNew: true } },
  ];
  it.each(rows)('$name', ({ alert: open, case: c, expected }) => {
    expect(decideAlertHit(hit(), open, c, T)).toMatchObject(expected);
  });

  it('copies the rule details (the hit is not shared with the stored alert)', () => {
    const h = hit();
    const change = decideAlertHit(h, null, null, T);
    expect(change.kind === 'open' && change.alert.ruleDetails).not.toBe(h.ruleDetails);
  });
});
