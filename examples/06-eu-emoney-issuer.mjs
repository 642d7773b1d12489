// A realistic starting configuration for a small EU e-money issuer (EUR wallets, SEPA and cards).
// Thresholds follow common supervisory expectations (AMLD occasional-transaction threshold of
// EUR 15,000; linked transactions; EU high-risk third countries); every team tunes them to its own
// risk assessment. A new rule runs in SHADOW mode first to measure its hit rate without effect.
import assert from 'node:assert/strict';
import { createEngine } from 'txmon';

const LEVELS = ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'];
const perLevel = (f) => Object.fromEntries(LEVELS.map((l) => [l, f(l)]));
const EU_HIGH_RISK_THIRD_COUNTRIES = ['AF', 'BF', 'CM', 'CD', 'HT', 'IR', 'KP', 'ML', 'MM', 'MZ', 'NG', 'SS', 'SY', 'TZ', 'VE', 'VN', 'YE'];

let now = Date.UTC(2025, 2, 3, 10, 0, 0);
const engine = createEngine({
  baseCurrency: 'EUR',
  clock: { now: () => now },
  riskFactors: [
    {
      id: 'destination-country',
      parameter: 'destinationCountry',
      weight: 3,
      defaultRiskLevel: 'LOW',
      mapping: [
        { values: EU_HIGH_RISK_THIRD_COUNTRIES, riskLevel: 'VERY_HIGH' },
        { values: ['DE', 'FR', 'NL', 'BE', 'AT', 'IE', 'ES', 'IT'], riskLevel: 'VERY_LOW' },
      ],
    },
    {
      id: 'amount',
      parameter: 'originAmount',
      weight: 2,
      mapping: [
        { max: 1000, currency: 'EUR', riskLevel: 'VERY_LOW' },
        { min: 1000, max: 5000, currency: 'EUR', riskLevel: 'LOW' },
        { min: 5000, max: 15000, currency: 'EUR', riskLevel: 'MEDIUM' },
        { min: 15000, currency: 'EUR', riskLevel: 'VERY_HIGH' },
      ],
    },
    {
      id: 'payment-method',
      parameter: 'originPaymentMethod',
      weight: 1,
      defaultRiskLevel: 'MEDIUM',
      mapping: [
        { values: ['IBAN', 'CARD'], riskLevel: 'LOW' },
        { values: ['CASH', 'WALLET'], riskLevel: 'HIGH' },
      ],
    },
  ],
});

const instances = [
  // Single large transaction: the occasional-transaction threshold.
  { ruleId: 'R-2', ruleNameAlias: 'Single transaction ≥ EUR 15,000', parameters: { transactionAmountThreshold: { EUR: 15000 } }, action: 'SUSPEND' },
  // Linked transactions: EUR 15,000 within 30 rolling days, per sender and per receiver.
  {
    ruleId: 'R-69',
    ruleNameAlias: 'Linked transactions ≥ EUR 15,000 / 30 days',
    parameters: { transactionVolumeThreshold: { EUR: 15000 }, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } },
  },
  // Counterparties in EU high-risk third countries: FLAG, but SUSPEND for high-risk customers.
  {
    ruleId: 'R-14',
    parameters: { highRiskCountries: EU_HIGH_RISK_THIRD_COUNTRIES },
    riskLevelActions: perLevel((l) => (l === 'HIGH' || l === 'VERY_HIGH' ? 'SUSPEND' : 'FLAG')),
  },
  { ruleId: 'R-30', ruleNameAlias: 'More than 20 transfers a day', parameters: { transactionsLimit: 20 } },
  { ruleId: 'R-1', ruleNameAlias: 'First transfer of EUR 1,000 or more', parameters: { transactionAmountThreshold: { EUR: 1000 } } },
  { ruleId: 'R-5', parameters: { dormancyPeriodDays: 180 } },
  { ruleId: 'R-24' },
  { ruleId: 'R-123', parameters: { transactionsLimit: 3, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } },
  { ruleId: 'R-126', parameters: { transactionVolumeThreshold: { EUR: 10000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } },
  // Being tuned: shadow mode shows its hits and counts, never changes status, alerts or users.
  { ruleId: 'R-131', mode: 'SHADOW', parameters: { multiplierThreshold: 3 } },
];
for (const request of instances) await engine.createRuleInstance(request);

await engine.createUser({ userId: 'anna', createdTimestamp: Date.UTC(2024, 0, 10), userStateDetails: { state: 'ACTIVE' } });
const transfer = (id, amount, country = 'FR', extra = {}) => ({
  type: 'TRANSFER',
  transactionId: id,
  timestamp: now,
  originUserId: 'anna',
  destinationUserId: `payee-${id}`,
  originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'DE' },
  destinationAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country },
  originPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000' },
  ...extra,
});

const first = await engine.createTransaction(transfer('t1', 1200));
console.log(
  'first transfer:',
  first.status,
  first.hitRules.map((h) => h.ruleName),
  first.riskScoreDetails,
);
assert.deepEqual(
  first.hitRules.map((h) => h.ruleId),
  ['R-1'],
);

// Three transfers of EUR 5,000 within days: linked transactions reach EUR 15,000 on the third.
const linked = [];
for (const [i, id] of ['t2', 't3', 't4'].entries()) {
  now += 2 * 86_400_000;
  linked.push(await engine.createTransaction(transfer(id, i === 2 ? 3800 : 5000)));
}
console.log(
  'linked:',
  linked.map((r) => `${r.status} ${r.hitRules.map((h) => h.ruleId).join('+')}`),
);
assert.deepEqual(
  linked.map((r) => r.status),
  ['ALLOW', 'ALLOW', 'FLAG'],
);

now += 3_600_000;
const risky = await engine.createTransaction(transfer('t5', 700, 'IR'));
console.log(
  'high-risk third country:',
  risky.status,
  risky.hitRules.map((h) => h.ruleName),
);
assert.equal(risky.status, 'FLAG');

const alerts = await engine.listAlerts();
const cases = await engine.listCases();
console.log(
  `${alerts.length} alerts in ${cases.length} case(s); rule instances (hits/runs):`,
  (await engine.listRuleInstances()).map((i) => `${i.ruleId}${i.mode === 'SHADOW' ? ' (shadow)' : ''} ${i.hitCount}/${i.runCount}`).join(', '),
);
assert.ok(cases.some((c) => c.entityDetails.userId === 'anna'));
