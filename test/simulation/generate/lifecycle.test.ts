import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { DEFAULT_TRANSITIONS, isTransitionAllowed } from '../../../src/engine/pipeline/lifecycle.js';
import { drawLifecycle, type LifecycleKind } from '../../../src/simulation/generate/lifecycle.js';
import { createRandom } from '../../../src/simulation/generate/random.js';

const KINDS: LifecycleKind[] = ['settled', 'card', 'atm', 'domestic', 'international', 'scheme-domestic', 'scheme-international'];
const AT = Date.UTC(2026, 0, 10);
const amounts = {
  origin: { transactionAmount: 120, transactionCurrency: 'EUR', country: 'DE' },
  destination: { transactionAmount: 129.5, transactionCurrency: 'USD', country: 'US' },
};

describe('drawLifecycle', () => {
  test.prop([fc.nat(), fc.constantFrom(...KINDS)], { numRuns: 300 })(
    'follows the default lifecycle table, with each event after the one before',
    (seed, kind) => {
      const lifecycle = drawLifecycle(kind, createRandom(seed), AT, amounts);
      let state = lifecycle.initialState;
      let time = AT;
      for (const event of lifecycle.events) {
        expect(isTransitionAllowed(DEFAULT_TRANSITIONS, state, event.transactionState)).toBe(true);
        expect(event.timestamp).toBeGreaterThan(time);
        state = event.transactionState;
        time = event.timestamp;
      }
    },
  );

  test.prop([fc.nat(), fc.constantFrom<LifecycleKind>('scheme-domestic', 'scheme-international')])(
    'lets injected transactions always succeed',
    (seed, kind) => {
      const lifecycle = drawLifecycle(kind, createRandom(seed), AT, amounts);
      expect(lifecycle.events.at(-1)?.transactionState).toBe('SUCCESSFUL');
      for (const event of lifecycle.events) expect(event.updatedTransactionAttributes?.originAmountDetails).toBeUndefined();
    },
  );
});
