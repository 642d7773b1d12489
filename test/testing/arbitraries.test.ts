import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  BusinessUserSchema,
  ConsumerUserSchema,
  LIBRARY_RULES,
  RuleInstanceRequestSchema,
  TransactionEventSchema,
  TransactionSchema,
  createValidator,
  foldTransactionEvents,
  initialTransaction,
  validateAgainstSchema,
  type Transaction,
  type TransitionTable,
} from '../../src/internals.js';
import {
  TESTING_CURRENCIES,
  TESTING_EPOCH_MS,
  TESTING_RULE_IDS,
  TESTING_SPAN_MS,
  TESTING_USER_IDS,
  amountArbitrary,
  businessUserArbitrary,
  consumerUserArbitrary,
  eventSequenceArbitrary,
  paymentDetailsArbitrary,
  ruleInstanceRequestArbitrary,
  ruleParametersArbitrary,
  transactionArbitrary,
  transactionEventSequenceArbitrary,
  transactionsArbitrary,
} from '../arbitraries/index.js';
import { testEngine } from '../helpers.js';

const validateTransaction = createValidator(TransactionSchema);
const validateEvent = createValidator(TransactionEventSchema);
const validateConsumer = createValidator(ConsumerUserSchema);
const validateBusiness = createValidator(BusinessUserSchema);
const validateRuleInstanceRequest = createValidator(RuleInstanceRequestSchema);

/** Digits after the decimal point in the number's shortest form (what txmon's money parses). */
function decimalsOf(n: number): number {
  const text = String(n);
  return text.includes('.') ? (text.split('.')[1] ?? '').length : 0;
}

describe('amountArbitrary', () => {
  describe('properties', () => {
    test.prop([amountArbitrary()])('is positive, at most 1,000,000 and has at most 2 decimals', (amount) => {
      expect(amount).toBeGreaterThan(0);
      expect(amount).toBeLessThanOrEqual(1_000_000);
      expect(decimalsOf(amount)).toBeLessThanOrEqual(2);
    });
  });
});

describe('paymentDetailsArbitrary', () => {
  describe('properties', () => {
    test.prop([paymentDetailsArbitrary()])('passes the payment-details schema of the transaction', (details) => {
      validateTransaction({ type: 'TRANSFER', transactionId: 't', timestamp: TESTING_EPOCH_MS, originPaymentDetails: details });
    });
  });

  it('generates several payment methods', () => {
    const methods = new Set(fc.sample(paymentDetailsArbitrary(), { numRuns: 300, seed: 1 }).map((d) => d.method));
    expect([...methods].sort()).toEqual(['ACH', 'CARD', 'CASH', 'GENERIC_BANK_ACCOUNT', 'IBAN', 'MPESA', 'SWIFT', 'UPI', 'WALLET']);
  });
});

describe('transactionArbitrary', () => {
  describe('properties', () => {
    test.prop([transactionArbitrary()])('passes TransactionSchema with realistic values from the default pools', (t) => {
      validateTransaction(t);
      expect(t.timestamp).toBeGreaterThanOrEqual(TESTING_EPOCH_MS);
      expect(t.timestamp).toBeLessThanOrEqual(TESTING_EPOCH_MS + TESTING_SPAN_MS);
      expect(t.originUserId ?? t.destinationUserId).toBeDefined();
      for (const id of [t.originUserId, t.destinationUserId]) if (id !== undefined) expect(TESTING_USER_IDS).toContain(id);
      if (t.originUserId !== undefined && t.destinationUserId !== undefined) expect(t.originUserId).not.toBe(t.destinationUserId);
      for (const d of [t.originAmountDetails, t.destinationAmountDetails]) {
        if (d === undefined) continue;
        expect(TESTING_CURRENCIES).toContain(d.transactionCurrency);
        expect(decimalsOf(d.transactionAmount)).toBeLessThanOrEqual(2);
      }
    });

    test.prop([transactionArbitrary({ from: 1_000_000_000_000, to: 1_000_000_000_010, userIds: ['solo'], currencies: ['JPY'], initialStates: false })])(
      'honours from, to, a one-user pool, currencies and initialStates: false',
      (t) => {
        validateTransaction(t);
        expect(t.timestamp).toBeGreaterThanOrEqual(1_000_000_000_000);
        expect(t.timestamp).toBeLessThanOrEqual(1_000_000_000_010);
        expect([t.originUserId ?? 'solo', t.destinationUserId ?? 'solo']).toEqual(['solo', 'solo']);
        expect(t.transactionState).toBeUndefined();
        if (t.originAmountDetails) expect(t.originAmountDetails.transactionCurrency).toBe('JPY');
      },
    );
  });

  const rows = [
    { name: 'an empty user pool', input: { userIds: [] } },
    { name: 'an empty currency pool', input: { currencies: [] } },
    { name: 'from after to', input: { from: 2, to: 1 } },
    { name: 'a fractional from', input: { from: 1.5 } },
  ];
  for (const row of rows) {
    it(`throws a RangeError for ${row.name}`, () => {
      expect(() => transactionArbitrary(row.input)).toThrow(RangeError);
    });
  }
});

describe('transactionsArbitrary', () => {
  describe('properties', () => {
    test.prop([transactionsArbitrary({ minLength: 1, maxLength: 30 })])('yields 1..30 transactions with distinct ids', (list) => {
      expect(list.length).toBeGreaterThanOrEqual(1);
      expect(list.length).toBeLessThanOrEqual(30);
      expect(new Set(list.map((t) => t.transactionId)).size).toBe(list.length);
    });
  });
});

describe('transactionEventSequenceArbitrary', () => {
  const withEvents = (table?: TransitionTable) =>
    transactionArbitrary().chain((transaction) =>
      transactionEventSequenceArbitrary(transaction, table ? { transitions: table, maxEvents: 8 } : { maxEvents: 8 }).map((events) => ({
        transaction,
        events,
      })),
    );

  describe('properties', () => {
    test.prop([withEvents()])('events pass the schema and fold without a lifecycle error in timestamp order', ({ transaction, events }) => {
      for (const e of events) validateEvent(e);
      const final = foldTransactionEvents(
        initialTransaction(transaction),
        events.map((event, arrival) => ({ event, arrival })),
      );
      expect(final.transactionState).toBe(events.at(-1)?.transactionState ?? transaction.transactionState ?? 'CREATED');
    });

    test.prop([withEvents()])('timestamps are distinct, increasing and after the transaction; ids are distinct', ({ transaction, events }) => {
      let previous = transaction.timestamp;
      for (const e of events) {
        expect(e.timestamp).toBeGreaterThan(previous);
        expect(e.transactionId).toBe(transaction.transactionId);
        previous = e.timestamp;
      }
      expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    });

    const strict: TransitionTable = {
      CREATED: ['PROCESSING'],
      PROCESSING: ['SUCCESSFUL'],
      SENT: [],
      EXPIRED: [],
      DECLINED: [],
      SUSPENDED: [],
      REFUNDED: [],
      SUCCESSFUL: [],
      REVERSED: [],
    };
    test.prop([withEvents(strict)])('respects a custom transitions table', ({ transaction, events }) => {
      foldTransactionEvents(
        initialTransaction(transaction),
        events.map((event, arrival) => ({ event, arrival })),
        { transitions: strict },
      );
    });

    test.prop([transactionArbitrary().chain((t) => transactionEventSequenceArbitrary(t, { minEvents: 3, maxEvents: 3 }))])(
      'honours minEvents and maxEvents',
      (events) => {
        expect(events).toHaveLength(3);
      },
    );

    test.prop([transactionArbitrary().chain((t) => transactionEventSequenceArbitrary(t, { minEvents: 5 }))])(
      'patches only remove optional, updatable fields',
      (events) => {
        for (const e of events) {
          for (const [key, value] of Object.entries(e.updatedTransactionAttributes ?? {})) {
            if (value === null) expect(['reference', 'tags', 'originDeviceData', 'destinationPaymentDetails', 'productType']).toContain(key);
          }
        }
      },
    );
  });

  it('generates amount changes, reference changes and attribute-only (same-state) updates', () => {
    const samples = fc.sample(withEvents(), { numRuns: 200, seed: 7 }).flatMap((s) => {
      let state = s.transaction.transactionState ?? 'CREATED';
      return s.events.map((e) => {
        const same = e.transactionState === state;
        state = e.transactionState;
        return { patch: e.updatedTransactionAttributes ?? {}, same };
      });
    });
    expect(samples.some((s) => 'originAmountDetails' in s.patch)).toBe(true);
    expect(samples.some((s) => 'reference' in s.patch)).toBe(true);
    expect(samples.some((s) => s.same)).toBe(true);
    expect(samples.some((s) => !s.same)).toBe(true);
  });

  it('generates null removals unless nullRemovals is false', () => {
    const hasNull = (nullRemovals: boolean) =>
      fc
        .sample(
          transactionArbitrary().chain((t) => transactionEventSequenceArbitrary(t, { minEvents: 3, nullRemovals })),
          { numRuns: 100, seed: 3 },
        )
        .some((events) => events.some((e) => Object.values(e.updatedTransactionAttributes ?? {}).includes(null)));
    expect([hasNull(false), hasNull(true)]).toEqual([false, true]);
  });

  describe('properties through the engine', () => {
    test.prop([transactionArbitrary().chain((t) => transactionEventSequenceArbitrary(t, { minEvents: 3 }).map((events) => ({ t, events })))])(
      'with null removals (the default), events pass the schema and the engine',
      async ({ t, events }) => {
        const { engine } = testEngine();
        await engine.createTransaction(t);
        for (const e of events) {
          validateEvent(e);
          const r = await engine.createTransactionEvent(e);
          for (const [key, value] of Object.entries(e.updatedTransactionAttributes ?? {})) {
            if (value === null) expect(key in r.transaction).toBe(false);
          }
        }
      },
    );
  });
});

describe('consumerUserArbitrary', () => {
  describe('properties', () => {
    test.prop([consumerUserArbitrary()])('passes ConsumerUserSchema with an id from the transaction user pool', (u) => {
      validateConsumer(u);
      expect(TESTING_USER_IDS).toContain(u.userId);
    });
  });
});

describe('businessUserArbitrary', () => {
  describe('properties', () => {
    test.prop([businessUserArbitrary({ userIds: ['b-1'] })])('passes BusinessUserSchema', (u) => {
      validateBusiness(u);
      expect(u.userId).toBe('b-1');
    });
  });
});

describe('ruleParametersArbitrary', () => {
  describe('properties', () => {
    for (const ruleId of TESTING_RULE_IDS) {
      const rule = LIBRARY_RULES.find((r) => r.id === ruleId)!;
      test.prop([ruleParametersArbitrary(ruleId)])(`${ruleId} parameters pass the rule's parametersSchema`, (parameters) => {
        validateAgainstSchema(rule.parametersSchema, parameters, { basePath: '/parameters', code: 'INVALID_PARAMETERS', what: 'parameters' });
      });
    }
  });
});

describe('ruleInstanceRequestArbitrary', () => {
  describe('properties', () => {
    test.prop([ruleInstanceRequestArbitrary({ includeInactive: true })])('passes RuleInstanceRequestSchema and the engine', async (request) => {
      validateRuleInstanceRequest(request);
      const { engine } = testEngine();
      const created = await engine.createRuleInstance(request);
      expect(created.ruleId).toBe(request.ruleId);
      if (request.mode !== undefined) expect(created.mode).toBe(request.mode);
    });

    test.prop([ruleInstanceRequestArbitrary({ ruleIds: ['R-30'], triggersOnHit: false })])('honours ruleIds and triggersOnHit: false', (request) => {
      expect(request.ruleId).toBe('R-30');
      expect(request.triggersOnHit).toBeUndefined();
      expect(request.status ?? 'ACTIVE').toBe('ACTIVE');
    });
  });

  it('covers every shipped rule, both modes and per-risk-level settings with all five levels', () => {
    const samples = fc.sample(ruleInstanceRequestArbitrary(), { numRuns: 300, seed: 5 });
    expect(new Set(samples.map((r) => r.ruleId))).toEqual(new Set(TESTING_RULE_IDS));
    expect(new Set(samples.map((r) => r.mode).filter((m) => m !== undefined))).toEqual(new Set(['LIVE', 'SHADOW']));
    const levels = samples.flatMap((r) => [r.riskLevelParameters, r.riskLevelActions]).filter((x) => x !== undefined);
    expect(levels.length).toBeGreaterThan(0);
    for (const l of levels) expect(Object.keys(l!).sort()).toEqual(['HIGH', 'LOW', 'MEDIUM', 'VERY_HIGH', 'VERY_LOW']);
  });
});

describe('eventSequenceArbitrary', () => {
  describe('properties', () => {
    test.prop(
      [
        fc.array(ruleInstanceRequestArbitrary(), { maxLength: 6 }),
        fc.array(fc.oneof(consumerUserArbitrary(), businessUserArbitrary()), { maxLength: 4 }),
        fc.uniqueArray(eventSequenceArbitrary(), { maxLength: 8, selector: (s) => s.transaction.transactionId }),
      ],
      { numRuns: 40 },
    )('an engine accepts the instances, users, transactions and events it generates, with no error', async (requests, users, sequences) => {
      const { engine } = testEngine();
      for (const r of requests) await engine.createRuleInstance(r);
      for (const u of users) await engine.createUser(u);
      for (const { transaction, events } of sequences) {
        const created = await engine.createTransaction(transaction);
        const executed = new Set(created.executedRules.map((r) => r.ruleInstanceId));
        for (const hit of created.hitRules) expect(executed.has(hit.ruleInstanceId)).toBe(true);
        for (const e of events) await engine.createTransactionEvent(e);
        const stored = await engine.getTransaction(transaction.transactionId);
        expect(stored.transactionState).toBe(events.at(-1)?.transactionState ?? transaction.transactionState ?? 'CREATED');
      }
    });

    test.prop([eventSequenceArbitrary({ userIds: ['x', 'y'], maxEvents: 2 })])('passes its options to both parts', ({ transaction, events }) => {
      const t: Transaction = transaction;
      expect(['x', 'y']).toContain(t.originUserId ?? t.destinationUserId);
      expect(events.length).toBeLessThanOrEqual(2);
    });
  });
});
