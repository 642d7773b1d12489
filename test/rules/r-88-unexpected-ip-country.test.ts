import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider } from '../../src/index.js';
import { DAY, T0, errorOf, testEngine, tx, type TransactionInput } from '../helpers.js';

/** 0.8 EUR per USD; no other currency has a rate. */
const RATES = createFixedRateProvider({ USD: '1', EUR: '0.8' });

const engineFor = () => testEngine({ rates: RATES }).engine;
type Engine = ReturnType<typeof engineFor>;

/**
 * R-88 boundary table, through the engine. Users: alice (consumer, resident in DE, French
 * national), dual (consumer DE / FR, second nationality IT), bare (consumer without any country),
 * nodetails (consumer without userDetails), acme (business), ghost (never created: no profile).
 */
const USERS: Record<string, Record<string, unknown>> = {
  alice: { userDetails: { countryOfResidence: 'DE', countryOfNationality: 'FR' } },
  dual: { userDetails: { countryOfResidence: 'DE', countryOfNationality: 'FR', secondaryCountryOfNationality: ['IT'] } },
  bare: { userDetails: { name: { firstName: 'Ann', lastName: 'Bare' } } },
  nodetails: {},
  acme: { legalEntity: { companyGeneralDetails: { legalName: 'Acme Ltd' } } },
};

async function engineWith(parameters?: Record<string, unknown>): Promise<Engine> {
  const engine = engineFor();
  for (const [userId, profile] of Object.entries(USERS)) await engine.createUser({ userId, createdTimestamp: T0 - 400 * DAY, ...profile });
  await engine.createRuleInstance({ ruleId: 'R-88', ...(parameters === undefined ? {} : { parameters }) });
  return engine;
}

interface Step {
  /** Offset from T0. */
  at?: number;
  /** The sender's IP country; `null` = device data without an IP country; absent = no device data. */
  ip?: string | null;
  sender?: string | null;
  receiver?: string;
  /** The receiver's IP country. */
  receiverIp?: string;
  amount?: number;
  currency?: string;
}

let n = 0;
function build(s: Step): TransactionInput {
  n += 1;
  const amount = { transactionAmount: s.amount ?? 100, transactionCurrency: s.currency ?? 'EUR' };
  const sender = s.sender === undefined ? 'alice' : s.sender;
  return {
    type: 'TRANSFER',
    transactionId: `r88-${n}`,
    timestamp: T0 + (s.at ?? 0),
    ...(sender === null ? {} : { originUserId: sender }),
    destinationUserId: s.receiver ?? 'shop',
    originAmountDetails: amount,
    destinationAmountDetails: amount,
    ...(s.ip === undefined ? {} : { originDeviceData: { ipAddress: '203.0.113.7', ...(s.ip === null ? {} : { ipCountry: s.ip }) } }),
    ...(s.receiverIp === undefined ? {} : { destinationDeviceData: { ipAddress: '198.51.100.9', ipCountry: s.receiverIp } }),
  };
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-88').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

async function run(engine: Engine, steps: readonly Step[]): Promise<boolean[]> {
  const out: boolean[] = [];
  for (const s of steps) {
    const hits = hitsOf(await engine.createTransaction(build(s)));
    expect(hits.every((d) => d === 'ORIGIN')).toBe(true);
    out.push(hits.length > 0);
  }
  return out;
}

describe('R-88 Unexpected IP address for user', () => {
  const TH = { transactionAmountThreshold: { EUR: 1000 } };
  const rows: { name: string; parameters?: Record<string, unknown>; steps: Step[]; hits: boolean[] }[] = [
    { name: 'an IP country equal to the residence country does not hit', steps: [{ ip: 'DE' }], hits: [false] },
    { name: 'an IP country equal to the nationality country does not hit', steps: [{ ip: 'FR' }], hits: [false] },
    { name: 'a secondary nationality is an expected country too', steps: [{ sender: 'dual', ip: 'IT' }], hits: [false] },
    { name: 'a first transaction ever from another country hits', steps: [{ ip: 'US' }], hits: [true] },
    { name: 'a second transaction from the same country does not hit (sent from before)', steps: [{ ip: 'US' }, { at: DAY, ip: 'US' }], hits: [true, false] },
    {
      name: 'each new country hits once',
      steps: [{ ip: 'US' }, { at: 1, ip: 'RU' }, { at: 2, ip: 'US' }, { at: 3, ip: 'RU' }],
      hits: [true, true, false, false],
    },
    {
      name: 'expected countries in the history do not make another country expected',
      steps: [{ ip: 'DE' }, { at: 1, ip: 'FR' }, { at: 2, ip: 'US' }],
      hits: [false, false, true],
    },
    {
      name: 'an earlier transaction WITHOUT an IP country does not make a country expected',
      steps: [{ ip: null }, { at: 1 }, { at: 2, ip: 'US' }],
      hits: [false, false, true],
    },
    { name: 'device data without an IP country does not hit (no geo-IP lookup)', steps: [{ ip: null }], hits: [false] },
    { name: 'no device data does not hit', steps: [{}], hits: [false] },
    {
      name: 'a RECEIVED transaction from that IP country is not a sending one: the send still hits',
      steps: [
        { sender: 'bob', receiver: 'alice', receiverIp: 'US' },
        { at: 1, ip: 'US' },
      ],
      hits: [false, true],
    },
    {
      name: "another user's sending from that country does not count",
      steps: [
        { sender: 'dual', ip: 'US' },
        { at: 1, ip: 'US' },
      ],
      hits: [true, true],
    },
    { name: 'the receiver device is not read: a foreign receiver IP does not hit', steps: [{ ip: 'DE', receiverIp: 'US' }], hits: [false] },
    { name: 'a transaction at the SAME timestamp is not earlier, whichever arrived first', steps: [{ ip: 'US' }, { ip: 'US' }], hits: [true, true] },
    { name: 'one millisecond earlier is earlier', steps: [{ ip: 'US' }, { at: 1, ip: 'US' }], hits: [true, false] },
    {
      name: 'a later-timestamped transaction (arrived first) is not earlier: a late older one still hits, a newer one does not',
      steps: [
        { at: DAY, ip: 'US' },
        { at: 0, ip: 'US' },
        { at: 2 * DAY, ip: 'US' },
      ],
      hits: [true, true, false],
    },
    { name: 'a business sender is not checked', steps: [{ sender: 'acme', ip: 'US' }], hits: [false] },
    { name: 'a sender without a stored profile is not checked', steps: [{ sender: 'ghost', ip: 'US' }], hits: [false] },
    { name: 'a transaction without a sender is not checked', steps: [{ sender: null, ip: 'US' }], hits: [false] },
    {
      name: 'a consumer without residence or nationality: its first IP country hits, then it is expected',
      steps: [
        { sender: 'bare', ip: 'DE' },
        { sender: 'bare', at: 1, ip: 'DE' },
        { sender: 'bare', at: 2, ip: 'FR' },
      ],
      hits: [true, false, true],
    },
    {
      name: 'a consumer without userDetails is checked on its history alone',
      steps: [
        { sender: 'nodetails', ip: 'DE' },
        { sender: 'nodetails', at: 1, ip: 'DE' },
      ],
      hits: [true, false],
    },
    { name: 'amount threshold: exactly at the threshold hits (≥)', parameters: TH, steps: [{ ip: 'US', amount: 1000 }], hits: [true] },
    { name: 'amount threshold: 0.01 below does not hit', parameters: TH, steps: [{ ip: 'US', amount: 999.99 }], hits: [false] },
    {
      name: 'amount threshold: a small earlier send from the country still makes it known (history ignores the threshold)',
      parameters: TH,
      steps: [
        { ip: 'US', amount: 10 },
        { at: 1, ip: 'US', amount: 5000 },
      ],
      hits: [false, false],
    },
    { name: 'amount threshold: an expected country never hits, whatever the amount', parameters: TH, steps: [{ ip: 'DE', amount: 5000 }], hits: [false] },
    {
      name: 'amount threshold: another currency is converted (1000 USD = 800 EUR ≥ 800 EUR)',
      parameters: { transactionAmountThreshold: { EUR: 800 } },
      steps: [{ ip: 'US', amount: 1000, currency: 'USD' }],
      hits: [true],
    },
    {
      name: 'amount threshold: a converted amount one cent below does not hit (999.99 USD = 799.99 EUR)',
      parameters: { transactionAmountThreshold: { EUR: 800 } },
      steps: [{ ip: 'US', amount: 999.99, currency: 'USD' }],
      hits: [false],
    },
    { name: 'amount threshold: a currency without a rate does not hit', parameters: TH, steps: [{ ip: 'US', amount: 1e6, currency: 'GBP' }], hits: [false] },
    { name: 'an empty threshold map is no threshold', parameters: { transactionAmountThreshold: {} }, steps: [{ ip: 'US', amount: 0.01 }], hits: [true] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters);
      expect(await run(engine, row.steps)).toEqual(row.hits);
    });
  }

  it('follows a residence change of the profile (read at check time)', async () => {
    const engine = await engineWith();
    await engine.createUser({ userId: 'mover', createdTimestamp: T0 - DAY, userDetails: { countryOfResidence: 'DE' } });
    await engine.createUser({ userId: 'mover', createdTimestamp: T0 - DAY, userDetails: { countryOfResidence: 'US' } });
    expect(
      await run(engine, [
        { sender: 'mover', ip: 'US' },
        { sender: 'mover', at: 1, ip: 'DE' },
      ]),
    ).toEqual([false, true]);
  });

  it('respects historical filters: an earlier send that fails them does not make the country known', async () => {
    const engine = engineFor();
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, ...USERS.alice });
    await engine.createRuleInstance({ ruleId: 'R-88', filters: { transactionTypesHistorical: ['TRANSFER'] } });
    await engine.createTransaction({ ...build({ ip: 'US' }), type: 'WITHDRAWAL' });
    expect(hitsOf(await engine.createTransaction(build({ at: 1, ip: 'US' })))).toEqual(['ORIGIN']);
    expect(hitsOf(await engine.createTransaction(build({ at: 2, ip: 'US' })))).toEqual([]);
  });

  it('names the IP country, and no profile country, in the description', async () => {
    const engine = await engineWith();
    const r = await engine.createTransaction(build({ ip: 'US' }));
    const description = r.hitRules.find((h) => h.ruleId === 'R-88')?.ruleDescription;
    expect(description).toBe(
      'Sender sent from IP address country US, which is neither a country of residence or nationality of the sender nor a country of its earlier sending transactions.',
    );
    expect(description).not.toContain('DE');
  });

  it('flags with an AML nature when no parameters are given', async () => {
    const engine = await engineWith();
    const r = await engine.createTransaction(build({ ip: 'US' }));
    expect(r.status).toBe('FLAG');
    expect(r.hitRules[0]).toMatchObject({ ruleId: 'R-88', ruleAction: 'FLAG', nature: 'AML' });
  });

  const badRows = [
    { name: 'a negative threshold', parameters: { transactionAmountThreshold: { EUR: -1 } }, path: '/parameters/transactionAmountThreshold/EUR' },
    { name: 'an unknown currency', parameters: { transactionAmountThreshold: { XXY: 10 } }, path: '/parameters/transactionAmountThreshold' },
    { name: 'an unknown parameter', parameters: { initialTransactions: 3 }, path: '/parameters/initialTransactions' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-88', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const step = fc.record({
    at: fc.integer({ min: 0, max: 5 }),
    ip: fc.constantFrom('DE', 'FR', 'US', 'RU', null),
    sending: fc.boolean(),
  });
  test.prop([fc.array(step, { minLength: 1, maxLength: 20 })], { numRuns: 50 })(
    "hits exactly when the IP country is neither DE/FR nor that of a send of alice's strictly before its timestamp (any arrival order)",
    async (steps) => {
      const engine = await engineWith();
      const sent: { at: number; ip: string | null }[] = [];
      for (const s of steps) {
        if (!s.sending) {
          // alice receives from that IP country: never hits, never makes it known.
          expect(
            hitsOf(await engine.createTransaction(build({ at: s.at, sender: 'bob', receiver: 'alice', ...(s.ip === null ? {} : { receiverIp: s.ip }) }))),
          ).toEqual([]);
          continue;
        }
        const expected = s.ip !== null && s.ip !== 'DE' && s.ip !== 'FR' && !sent.some((p) => p.at < s.at && p.ip === s.ip);
        expect(hitsOf(await engine.createTransaction(build({ at: s.at, ip: s.ip })))).toEqual(expected ? ['ORIGIN'] : []);
        sent.push({ at: s.at, ip: s.ip });
      }
    },
  );
});

const hitIds = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.map((h) => h.ruleId);

describe('R-88 ordering', () => {
  async function r88Engine() {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - 400 * DAY, userDetails: { countryOfResidence: 'DE', countryOfNationality: 'DE' } });
    await engine.createRuleInstance({ ruleId: 'R-88' });
    return engine;
  }

  it('a late, earlier transaction sees only what came before it (hits); the later one still hit on creation, not on a later event', async () => {
    const engine = await r88Engine();
    const later = tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } });
    expect(hitIds(await engine.createTransaction(later))).toEqual(['R-88']);
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0 - DAY, originDeviceData: { ipCountry: 'FR' } })))).toEqual(['R-88']);
    const ev = await engine.createTransactionEvent({ transactionId: later.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitIds(ev)).toEqual([]);
  });

  it('same-timestamp tie: transactions at the same instant never make each other known, whichever arrived first', async () => {
    const engine = await r88Engine();
    const first = tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } });
    expect(hitIds(await engine.createTransaction(first))).toEqual(['R-88']);
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } })))).toEqual(['R-88']);
    const ev = await engine.createTransactionEvent({ transactionId: first.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitIds(ev)).toEqual(['R-88']);
    // One millisecond later the country is known.
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0 + 1, originDeviceData: { ipCountry: 'FR' } })))).toEqual([]);
  });
});
