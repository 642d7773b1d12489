// A transaction's lifecycle through events: state moves, attribute updates (JSON Merge Patch),
// idempotent replays by eventId, and a 409 for a move the lifecycle forbids.
import assert from 'node:assert/strict';
import { createEngine, isTxmonError } from 'txmon';

const engine = createEngine();
const t0 = Date.UTC(2025, 5, 1, 12, 0, 0);
await engine.createTransaction({
  type: 'DEPOSIT',
  transactionId: 'dep-1',
  timestamp: t0,
  destinationUserId: 'carol',
  destinationAmountDetails: { transactionAmount: 200, transactionCurrency: 'GBP' },
  reference: 'first deposit',
});
const processing = { transactionId: 'dep-1', eventId: 'ev-1', timestamp: t0 + 1000, transactionState: 'PROCESSING' };
await engine.createTransactionEvent(processing);
const replay = await engine.createTransactionEvent(processing); // same eventId, same payload: stored result again
assert.equal(replay.eventId, 'ev-1');

const done = await engine.createTransactionEvent({
  transactionId: 'dep-1',
  eventId: 'ev-2',
  timestamp: t0 + 5000,
  transactionState: 'SUCCESSFUL',
  updatedTransactionAttributes: { reference: null, destinationAmountDetails: { transactionAmount: 199.5, transactionCurrency: 'GBP' } },
});
console.log(done.transaction.transactionState, done.transaction.destinationAmountDetails);
assert.equal(done.transaction.transactionState, 'SUCCESSFUL');
assert.equal(done.transaction.reference, undefined);

try {
  await engine.createTransactionEvent({ transactionId: 'dep-1', timestamp: t0 + 9000, transactionState: 'PROCESSING' });
  assert.fail('SUCCESSFUL → PROCESSING must be refused');
} catch (e) {
  assert.ok(isTxmonError(e));
  console.log(e.status, e.code); // 409 INVALID_STATE_TRANSITION
  assert.equal(e.code, 'INVALID_STATE_TRANSITION');
}
