import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { toScaled } from '../../src/domain/money.js';
import { DAY, T0, errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;

const ROLLING_30_DAYS = { units: 30, granularity: 'day', rollingBasis: true };

let n = 0;
/**
 * A `type` transaction from `sender` to `receiver` (either may be absent: an external party).
 * `amount` is both sides' amount, or [origin, destination] when they differ.
 */
function flow(
  at: number,
  type: string,
  sender: string | undefined,
  receiver: string | undefined,
  amount: number | [number, number],
  currency = 'USD',
  extra: Record<string, unknown> = {},
) {
  n += 1;
  const [origin, destination] = typeof amount === 'number' ? [amount, amount] : amount;
  return {
    type,
    transactionId: `r41-${n}`,
    timestamp: at,
    ...(sender === undefined ? {} : { originUserId: sender }),
    ...(receiver === undefined ? {} : { destinationUserId: receiver }),
    originAmountDetails: { transactionAmount: origin, transactionCurrency: currency },
    destinationAmountDetails: { transactionAmount: destination, transactionCurrency: currency },
    ...extra,
  };
}

/** Payment details of one side: a card with 3DS done, a card without (`3dsDone: false`), a card without the flag, an IBAN. */
type Pay = '3ds' | 'no3ds' | 'card' | 'iban';
function payment(pay: Pay): Record<string, unknown> {
  if (pay === 'iban') return { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' };
  return { method: 'CARD', cardFingerprint: 'fp-1', ...(pay === 'card' ? {} : { '3dsDone': pay === '3ds' }) };
}
/** The payment details of a transaction: `origin` / `destination` side. */
function paid(origin?: Pay, destination?: Pay): Record<string, unknown> {
  return {
    ...(origin === undefined ? {} : { originPaymentDetails: payment(origin) }),
    ...(destination === undefined ? {} : { destinationPaymentDetails: payment(destination) }),
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId: 'R-41',
    parameters: {
      timeWindow: ROLLING_30_DAYS,
      outflowTransactionTypes: ['WITHDRAWAL'],
      inflowTransactionTypes: ['DEPOSIT'],
      outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO',
      ...parameters,
    },
  });
  return engine;
}

/** {@link flow} of a {@link Step}, with extra transaction fields. */
const flowOf = (at: number, [type, sender, receiver, amount, currency]: Step, extra: Record<string, unknown> = {}) =>
  flow(at, type, sender, receiver, amount, currency, extra);

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-41').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [type: string, sender: string | undefined, receiver: string | undefined, amount: number | [number, number], currency?: string];
const D = (amount: number | [number, number], receiver = 'alice', sender?: string): Step => ['DEPOSIT', sender, receiver, amount];
const W = (amount: number | [number, number], sender = 'alice', receiver?: string): Step => ['WITHDRAWAL', sender, receiver, amount];

describe("R-41 Transaction's sending volume compared to receiving volume", () => {
  const LTE = { outflowInflowComparator: 'LESS_THAN_OR_EQUAL_TO' };
  const rows: { name: string; parameters?: Record<string, unknown>; steps: Step[]; expected: string[] }[] = [
    { name: 'a first withdrawal (no inflow) never hits', steps: [W(100)], expected: [] },
    { name: 'a deposit without any withdrawal never hits', steps: [D(100)], expected: [] },
    { name: 'withdrawals equal to deposits hit the sender (≥ is inclusive)', steps: [D(100), W(100)], expected: ['ORIGIN'] },
    { name: 'withdrawals one cent below deposits do not hit', steps: [D(100), W(99.99)], expected: [] },
    { name: 'withdrawals reaching deposits in steps hit (the current one included)', steps: [D(100), W(99.99), W(0.01)], expected: ['ORIGIN'] },
    { name: 'exact decimals: 0.1 + 0.2 withdrawn reaches 0.3 deposited', steps: [D(0.3), W(0.1), W(0.2)], expected: ['ORIGIN'] },
    { name: 'a deposit checks the receiver: outflow still at or above the new inflow', steps: [W(100), D(100)], expected: ['DESTINATION'] },
    { name: 'a deposit pushing inflow one cent above outflow does not hit', steps: [W(100), D(100.01)], expected: [] },
    { name: 'received transactions of an unlisted type are no inflow', steps: [['TRANSFER', 'bob', 'alice', 100], W(100)], expected: [] },
    { name: "a deposit the user SENT is not the user's inflow", steps: [D(100, 'bob', 'alice'), W(100)], expected: [] },
    { name: "a withdrawal the user RECEIVED is not the user's outflow", steps: [W(100, 'bob', 'alice'), D(100)], expected: [] },
    { name: 'a transaction of a type in neither list is not checked', steps: [D(100), W(100), ['TRANSFER', 'alice', 'bob', 5]], expected: [] },
    { name: "other users' flows do not count", steps: [D(100, 'bob'), W(100)], expected: [] },
    { name: 'each side reads its own amount: origin for outflow, destination for inflow', steps: [D([50, 100]), W([100, 40])], expected: ['ORIGIN'] },
    {
      name: 'the same currency converts the same way: 100 EUR out equals 100 EUR in',
      steps: [
        ['DEPOSIT', undefined, 'alice', 100, 'EUR'],
        ['WITHDRAWAL', 'alice', undefined, 100, 'EUR'],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'volumes are compared in the base currency: 100 USD out is below 100 EUR in',
      steps: [['DEPOSIT', undefined, 'alice', 100, 'EUR'], W(100)],
      expected: [],
    },
    { name: '≤: outflow below inflow hits the receiver of the deposit', parameters: LTE, steps: [W(50), D(100)], expected: ['DESTINATION'] },
    { name: '≤: equal volumes hit (inclusive)', parameters: LTE, steps: [D(100), W(100)], expected: ['ORIGIN'] },
    { name: '≤: outflow one cent above inflow does not hit', parameters: LTE, steps: [D(100), W(100.01)], expected: [] },
    {
      name: 'a self-transfer of a type in both lists is outflow and inflow of its user: both sides hit',
      parameters: { outflowTransactionTypes: ['TRANSFER'], inflowTransactionTypes: ['TRANSFER'] },
      steps: [['TRANSFER', 'alice', 'alice', 100]],
      expected: ['ORIGIN', 'DESTINATION'],
    },
    {
      name: 'several types per list add up',
      parameters: { outflowTransactionTypes: ['WITHDRAWAL', 'EXTERNAL_PAYMENT'], inflowTransactionTypes: ['DEPOSIT', 'REFUND'] },
      steps: [D(60), ['REFUND', 'shop', 'alice', 40], ['EXTERNAL_PAYMENT', 'alice', 'shop', 50], W(49.99)],
      expected: [],
    },
    {
      name: 'minOutflowVolume exactly at the outflow volume hits',
      parameters: { minOutflowVolume: { USD: 100 } },
      steps: [D(100), W(100)],
      expected: ['ORIGIN'],
    },
    {
      name: 'minOutflowVolume one cent above the outflow volume does not hit',
      parameters: { minOutflowVolume: { USD: 100.01 } },
      steps: [D(100), W(100)],
      expected: [],
    },
    {
      name: 'minOutflowVolume counts the whole window: 60 + 40 reaches 100',
      parameters: { minOutflowVolume: { USD: 100 } },
      steps: [D(50), W(60), W(40)],
      expected: ['ORIGIN'],
    },
    { name: 'minInflowVolume exactly at the inflow volume hits', parameters: { minInflowVolume: { USD: 100 } }, steps: [D(100), W(100)], expected: ['ORIGIN'] },
    {
      name: 'minInflowVolume one cent above the inflow volume does not hit',
      parameters: { minInflowVolume: { USD: 100.01 } },
      steps: [D(100), W(100)],
      expected: [],
    },
    {
      name: 'minInflowVolume also guards the receiver side',
      parameters: { minInflowVolume: { USD: 100.01 } },
      steps: [W(200), D(100)],
      expected: [],
    },
    {
      name: 'minOutflowTransactions equal to the outflow count hits',
      parameters: { minOutflowTransactions: 2 },
      steps: [D(100), W(50), W(50)],
      expected: ['ORIGIN'],
    },
    {
      name: 'minOutflowTransactions one above the outflow count does not hit',
      parameters: { minOutflowTransactions: 3 },
      steps: [D(100), W(50), W(50)],
      expected: [],
    },
    {
      name: 'minInflowTransactions equal to the inflow count hits',
      parameters: { minInflowTransactions: 2 },
      steps: [D(50), D(50), W(100)],
      expected: ['ORIGIN'],
    },
    {
      name: 'minInflowTransactions one above the inflow count does not hit',
      parameters: { minInflowTransactions: 3 },
      steps: [D(50), D(50), W(100)],
      expected: [],
    },
    {
      name: 'minimum counts of 0 change nothing',
      parameters: { minOutflowTransactions: 0, minInflowTransactions: 0 },
      steps: [D(100), W(100)],
      expected: ['ORIGIN'],
    },
    {
      name: 'several types per list add up to the boundary',
      parameters: { outflowTransactionTypes: ['WITHDRAWAL', 'EXTERNAL_PAYMENT'], inflowTransactionTypes: ['DEPOSIT', 'REFUND'] },
      steps: [D(60), ['REFUND', 'shop', 'alice', 40], ['EXTERNAL_PAYMENT', 'alice', 'shop', 50], W(50)],
      expected: ['ORIGIN'],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters);
      let last: string[] = [];
      for (const [i, [type, s, r, amount, currency]] of row.steps.entries()) {
        last = hitsOf(await engine.createTransaction(flow(T0 + i, type, s, r, amount, currency)));
      }
      expect(last).toEqual(row.expected);
    });
  }

  const AT_OR_ABOVE = 'GREATER_THAN_OR_EQUAL_TO';
  const AT_OR_BELOW = 'LESS_THAN_OR_EQUAL_TO';
  const out = (value: number, comparator = AT_OR_ABOVE) => ({ outflow3dsDonePercentageThreshold: { value, comparator } });
  const inn = (value: number, comparator = AT_OR_ABOVE) => ({ inflow3dsDonePercentageThreshold: { value, comparator } });
  /** A step with payment details: [type, sender, receiver, amount, origin payment, destination payment]. */
  type PaidStep = readonly [
    type: string,
    sender: string | undefined,
    receiver: string | undefined,
    amount: number,
    origin?: Pay | undefined,
    destination?: Pay | undefined,
  ];
  const PD = (amount: number, origin?: Pay, destination?: Pay): PaidStep => ['DEPOSIT', undefined, 'alice', amount, origin, destination];
  const PW = (amount: number, origin?: Pay, destination?: Pay): PaidStep => ['WITHDRAWAL', 'alice', undefined, amount, origin, destination];
  const guardRows: { name: string; parameters: Record<string, unknown>; steps: PaidStep[]; expected: string[] }[] = [
    { name: 'outflow ≥ 50 %: a single 3DS-done withdrawal (100 %) hits', parameters: out(50), steps: [PD(100), PW(100, '3ds')], expected: ['ORIGIN'] },
    {
      name: 'outflow ≥ 50 %: 1 of 2 withdrawals 3DS-done (exactly 50 %) hits',
      parameters: out(50),
      steps: [PD(100), PW(50, 'no3ds'), PW(50, '3ds')],
      expected: ['ORIGIN'],
    },
    {
      name: 'outflow ≥ 50 %: 1 of 3 withdrawals 3DS-done (33.3 %) does not hit',
      parameters: out(50),
      steps: [PD(100), PW(40, 'card'), PW(30, 'no3ds'), PW(30, '3ds')],
      expected: [],
    },
    {
      name: 'outflow ≥ 33.33333333 %: 1 of 3 (33.333… %) hits (exact)',
      parameters: out(33.33333333),
      steps: [PD(100), PW(40, 'iban'), PW(30), PW(30, '3ds')],
      expected: ['ORIGIN'],
    },
    {
      name: 'outflow ≥ 33.33333334 %: 1 of 3 (33.333… %) does not hit (exact)',
      parameters: out(33.33333334),
      steps: [PD(100), PW(40, 'iban'), PW(30), PW(30, '3ds')],
      expected: [],
    },
    { name: 'outflow ≤ 0 %: a 3DS-done withdrawal does not hit', parameters: out(0, AT_OR_BELOW), steps: [PD(100), PW(100, '3ds')], expected: [] },
    {
      name: 'outflow ≤ 0 %: a card withdrawal without the 3dsDone flag hits',
      parameters: out(0, AT_OR_BELOW),
      steps: [PD(100), PW(100, 'card')],
      expected: ['ORIGIN'],
    },
    {
      name: 'outflow: 3DS on the DESTINATION details of a withdrawal is not the user paying with 3DS',
      parameters: out(1),
      steps: [PD(100), PW(100, 'iban', '3ds')],
      expected: [],
    },
    { name: 'outflow: 3DS-done deposits are not outflow', parameters: out(50), steps: [PD(100, '3ds', '3ds'), PW(100, 'no3ds')], expected: [] },
    {
      name: 'inflow ≤ 0 %: a deposit to a 3DS-done card (destination) stops the withdrawal hit',
      parameters: inn(0, AT_OR_BELOW),
      steps: [PD(100, 'iban', '3ds'), PW(100)],
      expected: [],
    },
    {
      name: 'inflow ≤ 0 %: the PAYER card of a deposit (origin) is not read for inflow',
      parameters: inn(0, AT_OR_BELOW),
      steps: [PD(100, '3ds', 'iban'), PW(100)],
      expected: ['ORIGIN'],
    },
    {
      name: 'inflow ≥ 100 %: the current 3DS-done deposit counts on the receiver side',
      parameters: inn(100),
      steps: [PW(100), PD(100, 'card', '3ds')],
      expected: ['DESTINATION'],
    },
    {
      name: 'inflow ≥ 100 %: a current deposit without 3DS (0 of 1) does not hit',
      parameters: inn(100),
      steps: [PW(100), PD(100, 'card', 'no3ds')],
      expected: [],
    },
    {
      name: 'inflow ≥ 50 %: 1 of 2 deposits 3DS-done hits the receiver',
      parameters: inn(50),
      steps: [PW(200), PD(100, 'iban', '3ds'), PD(100)],
      expected: ['DESTINATION'],
    },
    { name: 'both guards met hit', parameters: { ...out(100), ...inn(0, AT_OR_BELOW) }, steps: [PD(100, '3ds'), PW(100, '3ds')], expected: ['ORIGIN'] },
    {
      name: 'both guards set, the inflow one unmet: no hit',
      parameters: { ...out(100), ...inn(0, AT_OR_BELOW) },
      steps: [PD(100, '3ds', '3ds'), PW(100, '3ds')],
      expected: [],
    },
    { name: 'a met guard does not make up for the volume comparison', parameters: out(0), steps: [PD(100), PW(99.99, '3ds')], expected: [] },
    {
      name: 'a self-transfer is outflow and inflow: each side reads its own payment details',
      parameters: { outflowTransactionTypes: ['TRANSFER'], inflowTransactionTypes: ['TRANSFER'], ...out(100), ...inn(0, AT_OR_BELOW) },
      steps: [['TRANSFER', 'alice', 'alice', 100, '3ds', 'card']],
      expected: ['ORIGIN', 'DESTINATION'],
    },
  ];
  for (const row of guardRows) {
    it(`3DS guard: ${row.name}`, async () => {
      const engine = await engineWith(row.parameters);
      let last: string[] = [];
      for (const [i, [type, s, r, amount, o, d]] of row.steps.entries()) {
        last = hitsOf(await engine.createTransaction(flow(T0 + i, type, s, r, amount, 'USD', paid(o, d))));
      }
      expect(last).toEqual(row.expected);
    });
  }

  const guardWindowRows = [
    { name: 'a 3DS-done withdrawal exactly at the window start counts (1 of 2 = 50 %)', offset: 0, expected: ['ORIGIN'] },
    { name: 'a 3DS-done withdrawal 1 ms before the window start does not (0 of 1)', offset: -1, expected: [] },
  ];
  for (const row of guardWindowRows) {
    it(`3DS guard: ${row.name}`, async () => {
      const engine = await engineWith(out(50));
      await engine.createTransaction(flowOf(T0 - 30 * DAY + row.offset, W(1), paid('3ds')));
      await engine.createTransaction(flow(T0 - 1, ...D(100)));
      expect(hitsOf(await engine.createTransaction(flowOf(T0, W(100), paid('no3ds'))))).toEqual(row.expected);
    });
  }

  const filteredRows = [
    { name: 'a current 3DS-done withdrawal failing the historical filters is not counted (0 of 1 ≤ 0 %)', state: 'CREATED', expected: ['ORIGIN'] },
    { name: 'a current 3DS-done withdrawal passing them is counted (1 of 2 > 0 %)', state: 'SUCCESSFUL', expected: [] },
  ];
  for (const row of filteredRows) {
    it(`3DS guard: ${row.name}`, async () => {
      const engine = engineFor();
      await engine.createRuleInstance({
        ruleId: 'R-41',
        parameters: {
          timeWindow: ROLLING_30_DAYS,
          outflowTransactionTypes: ['WITHDRAWAL'],
          inflowTransactionTypes: ['DEPOSIT'],
          outflowInflowComparator: AT_OR_ABOVE,
          ...out(0, AT_OR_BELOW),
        },
        filters: { transactionStatesHistorical: ['SUCCESSFUL'] },
      });
      await engine.createTransaction(flowOf(T0 - 2, D(100), { transactionState: 'SUCCESSFUL' }));
      await engine.createTransaction(flowOf(T0 - 1, W(100), { transactionState: 'SUCCESSFUL', ...paid('no3ds') }));
      const r = await engine.createTransaction(flowOf(T0, W(1), { transactionState: row.state, ...paid('3ds') }));
      expect(hitsOf(r)).toEqual(row.expected);
    });
  }

  it('3DS guard: an event adding 3DS to a past withdrawal changes its share', async () => {
    const engine = await engineWith(out(100));
    await engine.createTransaction(flow(T0, ...D(100)));
    const w = flowOf(T0 + 1, W(50), paid('no3ds'));
    await engine.createTransaction(w);
    expect(hitsOf(await engine.createTransaction(flowOf(T0 + 2, W(50), paid('3ds'))))).toEqual([]);
    await engine.createTransactionEvent({
      transactionId: w.transactionId,
      timestamp: T0 + 3,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originPaymentDetails: payment('3ds') },
    });
    expect(hitsOf(await engine.createTransaction(flowOf(T0 + 4, W(0.01), paid('3ds'))))).toEqual(['ORIGIN']);
  });

  const windowRows = [
    { name: 'a deposit exactly at the window start (30 days) counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a deposit 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(flow(T0 - 30 * DAY + row.offset, ...D(100)));
      expect(hitsOf(await engine.createTransaction(flow(T0, ...W(100))))).toEqual(row.expected);
    });
  }

  it('a later-timestamped deposit (arrived earlier) is outside the window', async () => {
    const engine = await engineWith();
    await engine.createTransaction(flow(T0 + 1, ...D(100)));
    expect(hitsOf(await engine.createTransaction(flow(T0, ...W(100))))).toEqual([]);
  });

  it('an event raising a past deposit replaces its amount in the inflow', async () => {
    const engine = await engineWith();
    const deposit = flow(T0, ...D(100));
    await engine.createTransaction(deposit);
    await engine.createTransactionEvent({
      transactionId: deposit.transactionId,
      timestamp: T0 + 1,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { destinationAmountDetails: { transactionAmount: 100.01, transactionCurrency: 'USD' } },
    });
    expect(hitsOf(await engine.createTransaction(flow(T0 + 2, ...W(100))))).toEqual([]);
    expect(hitsOf(await engine.createTransaction(flow(T0 + 3, ...W(0.01))))).toEqual(['ORIGIN']);
  });

  it('an event on the current withdrawal does not count it twice', async () => {
    const engine = await engineWith();
    await engine.createTransaction(flow(T0, ...D(100)));
    const withdrawal = flow(T0 + 1, ...W(50));
    expect(hitsOf(await engine.createTransaction(withdrawal))).toEqual([]);
    // Counted twice, 50 + 50 would reach 100.
    const ev = await engine.createTransactionEvent({ transactionId: withdrawal.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('renders side, volumes, relation and window into the description', async () => {
    const engine = await engineWith();
    await engine.createTransaction(flow(T0, ...D(100)));
    const r = await engine.createTransaction(flow(T0 + 1, ...W(100.5)));
    expect(r.hitRules.find((h) => h.ruleId === 'R-41')?.ruleDescription).toBe(
      'Sender outflow of 100.50 USD is at or above the inflow of 100.00 USD in 30 days.',
    );
  });

  it('uses the defaults (withdrawals ≥ deposits in 30 days) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-41' });
    await engine.createTransaction(flow(T0 - 29 * DAY, ...D(100)));
    expect(hitsOf(await engine.createTransaction(flow(T0, ...W(100))))).toEqual(['ORIGIN']);
  });

  const badRows = [
    { name: 'an empty outflow type list', parameters: { outflowTransactionTypes: [] }, path: '/parameters/outflowTransactionTypes' },
    { name: 'an empty inflow type', parameters: { inflowTransactionTypes: [''] }, path: '/parameters/inflowTransactionTypes/0' },
    { name: 'a repeated type', parameters: { inflowTransactionTypes: ['DEPOSIT', 'DEPOSIT'] }, path: '/parameters/inflowTransactionTypes' },
    { name: 'an unknown comparator', parameters: { outflowInflowComparator: 'GREATER_THAN' }, path: '/parameters/outflowInflowComparator' },
    { name: 'a zero-unit window', parameters: { timeWindow: { units: 0, granularity: 'day' } }, path: '/parameters/timeWindow/units' },
    {
      name: 'a 3DS percentage above 100',
      parameters: { outflow3dsDonePercentageThreshold: { value: 100.01, comparator: 'GREATER_THAN_OR_EQUAL_TO' } },
      path: '/parameters/outflow3dsDonePercentageThreshold/value',
    },
    {
      name: 'a negative 3DS percentage',
      parameters: { inflow3dsDonePercentageThreshold: { value: -1, comparator: 'LESS_THAN_OR_EQUAL_TO' } },
      path: '/parameters/inflow3dsDonePercentageThreshold/value',
    },
    {
      name: 'an unknown 3DS comparator',
      parameters: { inflow3dsDonePercentageThreshold: { value: 50, comparator: 'EQUAL_TO' } },
      path: '/parameters/inflow3dsDonePercentageThreshold/comparator',
    },
    { name: 'an empty minimum volume map', parameters: { minOutflowVolume: {} }, path: '/parameters/minOutflowVolume' },
    { name: 'a negative minimum volume', parameters: { minInflowVolume: { USD: -1 } }, path: '/parameters/minInflowVolume/USD' },
    { name: 'a fractional minimum count', parameters: { minOutflowTransactions: 1.5 }, path: '/parameters/minOutflowTransactions' },
    { name: 'a negative minimum count', parameters: { minInflowTransactions: -1 }, path: '/parameters/minInflowTransactions' },
    {
      name: 'a 3DS guard without comparator',
      parameters: { outflow3dsDonePercentageThreshold: { value: 50 } },
      path: '/parameters/outflow3dsDonePercentageThreshold/comparator',
    },
    {
      name: 'an unknown property in a 3DS guard',
      parameters: { outflow3dsDonePercentageThreshold: { value: 50, comparator: 'GREATER_THAN_OR_EQUAL_TO', unit: '%' } },
      path: '/parameters/outflow3dsDonePercentageThreshold/unit',
    },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() =>
        engineFor().createRuleInstance({
          ruleId: 'R-41',
          parameters: {
            timeWindow: ROLLING_30_DAYS,
            outflowTransactionTypes: ['WITHDRAWAL'],
            inflowTransactionTypes: ['DEPOSIT'],
            outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO',
            ...row.parameters,
          },
        }),
      );
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const GUARD_VALUES = [0, 25, 33.33333333, 33.33333334, 50, 66.66666667, 100];
  const guard = fc.option(
    fc.record({ value: fc.constantFrom(...GUARD_VALUES), comparator: fc.constantFrom('GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN_OR_EQUAL_TO') }),
    { nil: undefined },
  );
  const paidStep = fc.record({
    type: fc.constantFrom('DEPOSIT', 'WITHDRAWAL'),
    sender: fc.constantFrom('alice', 'bob', undefined),
    receiver: fc.constantFrom('alice', 'bob', undefined),
    amount: fc.constantFrom(0.01, 50, 100),
    origin: fc.constantFrom<Pay | undefined>('3ds', 'no3ds', 'card', 'iban', undefined),
    destination: fc.constantFrom<Pay | undefined>('3ds', 'no3ds', 'iban', undefined),
    gapDays: fc.integer({ min: 0, max: 12 }),
  });
  test.prop([fc.array(paidStep, { minLength: 1, maxLength: 20 }), guard, guard], { numRuns: 50 })(
    'with 3DS guards, hits each side exactly as a brute-force recomputation of volumes and 3DS-done shares',
    async (steps, outGuard, inGuard) => {
      const engine = await engineWith({
        ...(outGuard === undefined ? {} : { outflow3dsDonePercentageThreshold: outGuard }),
        ...(inGuard === undefined ? {} : { inflow3dsDonePercentageThreshold: inGuard }),
      });
      const history: {
        at: number;
        type: string;
        sender: string | undefined;
        receiver: string | undefined;
        amount: bigint;
        origin3ds: boolean;
        destination3ds: boolean;
      }[] = [];
      // value / 100 compared with done / total as exact fractions: done × 100 × 10^8 vs value × 10^8 × total.
      const meets = (g: typeof outGuard, done: number, total: number) => {
        if (g === undefined) return true;
        const lhs = BigInt(done) * 100n * 100_000_000n;
        const rhs = BigInt(Math.round(g.value * 1e8)) * BigInt(total);
        return g.comparator === 'GREATER_THAN_OR_EQUAL_TO' ? lhs >= rhs : lhs <= rhs;
      };
      let at = T0;
      for (const s of steps) {
        at += s.gapDays * DAY;
        history.push({
          at,
          type: s.type,
          sender: s.sender,
          receiver: s.receiver,
          amount: toScaled(s.amount),
          origin3ds: s.origin === '3ds',
          destination3ds: s.destination === '3ds',
        });
        const r = await engine.createTransaction(flow(at, s.type, s.sender, s.receiver, s.amount, 'USD', paid(s.origin, s.destination)));
        const verdict = (user: string) => {
          const inWindow = history.filter((h) => h.at >= at - 30 * DAY);
          const outs = inWindow.filter((h) => h.sender === user && h.type === 'WITHDRAWAL');
          const ins = inWindow.filter((h) => h.receiver === user && h.type === 'DEPOSIT');
          if (outs.length === 0 || ins.length === 0) return false;
          const outflow = outs.reduce((a, h) => a + h.amount, 0n);
          const inflow = ins.reduce((a, h) => a + h.amount, 0n);
          if (outflow < inflow) return false;
          return meets(outGuard, outs.filter((h) => h.origin3ds).length, outs.length) && meets(inGuard, ins.filter((h) => h.destination3ds).length, ins.length);
        };
        const expected: string[] = [];
        if (s.sender !== undefined && s.type === 'WITHDRAWAL' && verdict(s.sender)) expected.push('ORIGIN');
        if (s.receiver !== undefined && s.type === 'DEPOSIT' && verdict(s.receiver)) expected.push('DESTINATION');
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );

  const PARTIES = ['alice', 'bob', undefined] as const;
  const AMOUNTS = [0, 0.01, 0.1, 0.2, 0.3, 99.99, 100, 100.01];
  const step = fc.record({
    type: fc.constantFrom('DEPOSIT', 'WITHDRAWAL', 'TRANSFER'),
    sender: fc.constantFrom(...PARTIES),
    receiver: fc.constantFrom(...PARTIES),
    origin: fc.constantFrom(...AMOUNTS),
    destination: fc.constantFrom(...AMOUNTS),
    gapDays: fc.integer({ min: 0, max: 12 }),
  });
  const lists = fc.subarray(['DEPOSIT', 'WITHDRAWAL', 'TRANSFER'], { minLength: 1 });
  // Optional minimums: volumes on the amounts' grid (so sums meet them exactly) and small counts.
  const minimums = fc.record(
    {
      minOutflowVolume: fc.constantFrom(0, 0.01, 0.3, 100, 100.01, 200),
      minInflowVolume: fc.constantFrom(0, 0.01, 0.3, 100, 100.01, 200),
      minOutflowTransactions: fc.integer({ min: 0, max: 3 }),
      minInflowTransactions: fc.integer({ min: 0, max: 3 }),
    },
    { requiredKeys: [] },
  );
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), lists, lists, fc.constantFrom('GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN_OR_EQUAL_TO'), minimums], {
    numRuns: 50,
  })(
    "hits each side exactly as a brute-force recomputation of the user's outflow and inflow in 30 days, minimums included",
    async (steps, outTypes, inTypes, comparator, mins) => {
      const engine = await engineWith({
        outflowTransactionTypes: outTypes,
        inflowTransactionTypes: inTypes,
        outflowInflowComparator: comparator,
        ...(mins.minOutflowVolume === undefined ? {} : { minOutflowVolume: { USD: mins.minOutflowVolume } }),
        ...(mins.minInflowVolume === undefined ? {} : { minInflowVolume: { USD: mins.minInflowVolume } }),
        ...(mins.minOutflowTransactions === undefined ? {} : { minOutflowTransactions: mins.minOutflowTransactions }),
        ...(mins.minInflowTransactions === undefined ? {} : { minInflowTransactions: mins.minInflowTransactions }),
      });
      const atLeast = (value: bigint, min: number | undefined) => min === undefined || value >= toScaled(min);
      const history: { at: number; type: string; sender: string | undefined; receiver: string | undefined; origin: bigint; destination: bigint }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapDays * DAY;
        history.push({ at, type: s.type, sender: s.sender, receiver: s.receiver, origin: toScaled(s.origin), destination: toScaled(s.destination) });
        const r = await engine.createTransaction(flow(at, s.type, s.sender, s.receiver, [s.origin, s.destination]));
        const verdict = (user: string) => {
          const inWindow = history.filter((h) => h.at >= at - 30 * DAY);
          const outs = inWindow.filter((h) => h.sender === user && outTypes.includes(h.type));
          const ins = inWindow.filter((h) => h.receiver === user && inTypes.includes(h.type));
          if (outs.length === 0 || ins.length === 0) return false;
          const outflow = outs.reduce((a, h) => a + h.origin, 0n);
          const inflow = ins.reduce((a, h) => a + h.destination, 0n);
          if (mins.minOutflowTransactions !== undefined && outs.length < mins.minOutflowTransactions) return false;
          if (mins.minInflowTransactions !== undefined && ins.length < mins.minInflowTransactions) return false;
          if (!atLeast(outflow, mins.minOutflowVolume) || !atLeast(inflow, mins.minInflowVolume)) return false;
          return comparator === 'GREATER_THAN_OR_EQUAL_TO' ? outflow >= inflow : outflow <= inflow;
        };
        const expected: string[] = [];
        if (s.sender !== undefined && outTypes.includes(s.type) && verdict(s.sender)) expected.push('ORIGIN');
        if (s.receiver !== undefined && inTypes.includes(s.type) && verdict(s.receiver)) expected.push('DESTINATION');
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );
});

/** The hit directions of rule `id` in a result. */
const ruleHits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);
const card = { method: 'CARD', cardFingerprint: 'fp-1' };
const iban = { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' };
const usdAmount = (amount: number) => ({ transactionAmount: amount, transactionCurrency: 'USD' });

describe('R-41 the current transaction and historical filters', () => {
  it('a current outflow that passes the historical filters counts', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-41', filters: { paymentMethodsHistorical: ['CARD'] } });
    await engine.createTransaction(
      tx({
        type: 'DEPOSIT',
        timestamp: T0 - DAY,
        originUserId: 'bank',
        destinationUserId: 'alice',
        originPaymentDetails: card,
        originAmountDetails: usdAmount(100),
        destinationAmountDetails: usdAmount(100),
      }),
    );
    const result = await engine.createTransaction(
      tx({
        type: 'WITHDRAWAL',
        timestamp: T0,
        originUserId: 'alice',
        destinationUserId: 'bank',
        originPaymentDetails: card,
        originAmountDetails: usdAmount(200),
        destinationAmountDetails: usdAmount(200),
      }),
    );
    expect(ruleHits(result, 'R-41')).toEqual(['ORIGIN']);
  });

  describe('edge cases', () => {
    it('a current outflow that fails the historical filters is not added to the outflow', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-41', filters: { paymentMethodsHistorical: ['CARD'] } });
      await engine.createTransaction(
        tx({
          type: 'DEPOSIT',
          timestamp: T0 - DAY,
          originUserId: 'bank',
          destinationUserId: 'alice',
          originPaymentDetails: card,
          originAmountDetails: usdAmount(100),
          destinationAmountDetails: usdAmount(100),
        }),
      );
      // No passing outflow: the side has no outflow transaction, so it cannot hit.
      const result = await engine.createTransaction(
        tx({
          type: 'WITHDRAWAL',
          timestamp: T0,
          originUserId: 'alice',
          destinationUserId: 'bank',
          originPaymentDetails: iban,
          originAmountDetails: usdAmount(200),
          destinationAmountDetails: usdAmount(200),
        }),
      );
      expect(ruleHits(result, 'R-41')).toEqual([]);
    });
  });
});
