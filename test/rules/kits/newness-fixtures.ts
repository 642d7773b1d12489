/**
 * Transactions and engines for the tests of the new-value rules (R-3 new country, R-4 new
 * currency). Not a test file.
 */
import { testEngine } from '../../helpers.js';

let n = 0;
/** alice (in DE) sends to bob in `country`, in `currency`. */
export function send(at: number, country: string, currency = 'EUR', overrides: Record<string, unknown> = {}) {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `nc-${n}`,
    timestamp: at,
    originUserId: 'alice',
    destinationUserId: 'bob',
    originAmountDetails: { transactionAmount: 10, transactionCurrency: currency, country: 'DE' },
    destinationAmountDetails: { transactionAmount: 10, transactionCurrency: currency, country },
    ...overrides,
  };
}

/** The sides rule `id` hit in a result. */
export const hits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** An engine with one instance of `ruleId`. */
export async function engineWith(ruleId: 'R-3' | 'R-4', initialTransactions: number) {
  const { engine } = testEngine();
  await engine.createRuleInstance({ ruleId, parameters: { initialTransactions } });
  return engine;
}
