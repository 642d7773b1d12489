// Hits become alerts grouped in the user's case; an analyst comments with an attached file.
import assert from 'node:assert/strict';
import { createEngine } from 'txmon';

const engine = createEngine();
await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: ['IR', 'KP'] }, casePriority: 'P1' });
for (const id of ['x1', 'x2']) {
  await engine.createTransaction({
    type: 'TRANSFER',
    transactionId: id,
    timestamp: Date.now(),
    originUserId: 'dave',
    originAmountDetails: { transactionAmount: 90, transactionCurrency: 'USD', country: 'IR' },
  });
}
const [alert] = await engine.listAlerts();
console.log(alert.alertId, alert.entityDetails.transactionIds); // one alert, both transactions
assert.deepEqual(alert.entityDetails.transactionIds, ['x1', 'x2']);
const theCase = await engine.getCase(alert.caseId);
assert.deepEqual(theCase.alertIds, [alert.alertId]);

const slot = await engine.createUpload({ filename: 'screenshot.png', fileSize: 4 });
const url = new URL(slot.url, 'http://localhost');
await engine.putUploadContent(
  { key: slot.key, expiresAt: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature') },
  new Uint8Array([137, 80, 78, 71]),
);
const comment = await engine.createAlertComment(alert.alertId, {
  body: 'Customer confirmed travel; closing as expected behaviour.',
  files: [{ s3Key: slot.key, filename: 'screenshot.png', size: 4 }],
});
console.log(comment.commentId, comment.files[0].downloadLink.split('?')[0]);
assert.equal(comment.files.length, 1);

// The analyst closes the case with a reason: its open alerts close with it, in the same write.
const closed = await engine.changeCaseStatus(
  alert.caseId,
  { status: 'CLOSED', reason: ['FALSE_POSITIVE'], comment: 'Travel confirmed' },
  { actor: 'ana@bank.example' },
);
console.log(closed.caseStatus, closed.closingReason.reason); // CLOSED [ 'FALSE_POSITIVE' ]
assert.equal((await engine.getAlert(alert.alertId)).alertStatus, 'CLOSED');

// A later hit opens a new alert in a new case; open work is listed a page at a time.
await engine.createTransaction({
  type: 'TRANSFER',
  transactionId: 'x3',
  timestamp: Date.now(),
  originUserId: 'dave',
  originAmountDetails: { transactionAmount: 90, transactionCurrency: 'USD', country: 'IR' },
});
const open = await engine.listAlerts({ filterAlertStatus: ['OPEN'], pageSize: 10 });
console.log(open.count, open.items[0].entityDetails.transactionIds); // 1 [ 'x3' ]
assert.notEqual(open.items[0].caseId, alert.caseId);
