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
      expected: { kind: 'open', caseIsNew: false, caseId: 'C-1', casePriority: 'P2', at: T, joinsUser: false },
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

  const bobCase = (caseStatus: Case['caseStatus'], priority: Case['priority'] = 'P3'): Case => ({
    ...userCase(caseStatus, priority),
    caseId: 'C-bob',
    alertIds: ['A-bob'],
    entityDetails: { type: 'USER', userId: 'bob' },
  });
  const grouped = hit({ groupWithUserId: 'bob' });
  const groupRows: { name: string; hit: AlertHit; own: Case | null; group: Case | null; expected: Record<string, unknown> }[] = [
    {
      name: "grouped, no case of its own: the alert joins the counterparty's open case, and the user joins it",
      hit: grouped,
      own: null,
      group: bobCase('OPEN'),
      expected: { kind: 'open', caseIsNew: false, caseId: 'C-bob', casePriority: 'P2', joinsUser: true, alert: { caseId: 'C-bob', userId: 'alice' } },
    },
    {
      name: "grouped, its own case closed: the counterparty's open case (P1 stays)",
      hit: grouped,
      own: userCase('CLOSED'),
      group: bobCase('IN_REVIEW', 'P1'),
      expected: { caseIsNew: false, caseId: 'C-bob', casePriority: 'P1', joinsUser: true },
    },
    {
      name: "grouped, its own case open: its own case wins over the counterparty's",
      hit: grouped,
      own: userCase('OPEN'),
      group: bobCase('OPEN'),
      expected: { caseIsNew: false, caseId: 'C-1', joinsUser: false },
    },
    { name: "grouped, the counterparty's case closed: a new case", hit: grouped, own: null, group: bobCase('CLOSED'), expected: { caseIsNew: true } },
    { name: 'grouped, the counterparty has no case: a new case', hit: grouped, own: null, group: null, expected: { caseIsNew: true } },
    { name: 'not grouped: a case given for a counterparty is ignored', hit: hit(), own: null, group: bobCase('OPEN'), expected: { caseIsNew: true } },
  ];
  it.each(groupRows)('$name', ({ hit: h, own, group, expected }) => {
    expect(decideAlertHit(h, null, own, T, group)).toMatchObject(expected);
  });

  it('copies the rule details (the hit is not shared with the stored alert)', () => {
    const h = hit();
    const change = decideAlertHit(h, null, null, T);
    expect(change.kind === 'open' && change.alert.ruleDetails).not.toBe(h.ruleDetails);
  });
});
