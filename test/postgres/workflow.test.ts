/**
 * The alert and case workflow through engines on PGlite and PostgreSQL: a case closed by one engine
 * while another sends hits on its user — every hit lands wholly before the close (and is closed with
 * it) or after (in a new alert of a new case), never in an open alert of the closed case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { tx } from '../helpers.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

describe.each([
  ['PGlite', pgliteDatabase],
  ['PostgreSQL', postgresDatabase],
])('the workflow on %s', (_name, open) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db.close();
  });

  it('a case closed while another engine sends hits on its user: no open alert is left in the closed case, every hit is in one alert', async () => {
    const repositories = await db.fresh();
    const a = createEngine({ repositories });
    const b = createEngine({ repositories });
    await a.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    const first = tx({ destinationUserId: undefined });
    await a.createTransaction(first);
    const [alert] = await a.listAlerts();
    if (alert === undefined) throw new Error('no alert');
    const hits = Array.from({ length: 6 }, () => tx({ destinationUserId: undefined }));
    await Promise.all([
      a.changeCaseStatus(alert.caseId, { status: 'CLOSED', reason: ['FALSE_POSITIVE'], comment: 'closed under load' }, { actor: 'ana' }),
      ...hits.map((t) => b.createTransaction(t)),
    ]);
    const closed = await b.getCase(alert.caseId);
    expect([closed.caseStatus, closed.closingReason?.actor, closed.comments.map((c) => c.body)]).toEqual(['CLOSED', 'ana', ['closed under load']]);
    const alerts = await b.listAlerts();
    for (const x of alerts) {
      if (x.caseId === alert.caseId) expect(x.alertStatus).toBe('CLOSED');
      else expect(x.alertStatus).toBe('OPEN');
    }
    const listed = alerts.flatMap((x) => x.entityDetails.transactionIds).sort();
    expect(listed).toEqual([first, ...hits].map((t) => t.transactionId).sort());
    const page = await b.listAlerts({ filterAlertStatus: ['CLOSED'], filterUserId: 'alice', pageSize: 100 });
    expect(page.items.map((x) => x.alertId)).toEqual(
      alerts
        .filter((x) => x.alertStatus === 'CLOSED')
        .map((x) => x.alertId)
        .reverse(),
    );
  });
});
