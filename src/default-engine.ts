/**
 * `createEngine` as the root entry offers it: the engine with the memory repositories unless the
 * host gives its own. Here, outside `engine/`, because the engine never imports an adapter.
 */
import { assembleEngine } from './engine/create-engine.js';
import type { EngineOptions } from './engine/options.js';
import type { Engine } from './engine/types.js';
import { createMemoryRepositories } from './repositories/memory/index.js';

/**
 * Creates a txmon engine. Everything is optional: with no options it runs on in-memory
 * repositories with the system clock and random ids.
 *
 * @throws TxmonError `INVALID_CONFIGURATION` for clashing rule ids, a short signing secret, an
 *   unknown maintained series, bad risk factors or bands, a bad limit, or bad money options (an
 *   unknown `baseCurrency` or one without a rate, a bad rate table), naming the option's path.
 * @example
 * ```ts
 * import { createEngine } from 'txmon';
 * const engine = createEngine();
 * await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
 * const result = await engine.createTransaction({ type: 'TRANSFER', transactionId: 't-1', timestamp: Date.now(),
 *   originUserId: 'u-1', originAmountDetails: { transactionAmount: 12000, transactionCurrency: 'EUR' } });
 * result.status; // 'SUSPEND'
 * ```
 */
export function createEngine(options: EngineOptions = {}): Engine {
  return assembleEngine(options.repositories ?? createMemoryRepositories(), options);
}
