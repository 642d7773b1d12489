/** The decision log's verification (domain/decision-log.ts), read through the repositories page by page. */
import { createChainVerifier, type DecisionLogHead } from '../../domain/decision-log.js';
import { invalidField } from '../../errors.js';
import type { EngineSettings } from '../options.js';
import type { Engine } from '../types.js';

/** Rows read per page: memory stays bounded whatever the log's length. */
const PAGE = 1_000;

/** Checks an anchor's shape: a position and a SHA-256 hex hash. */
function assertAnchor(anchor: DecisionLogHead): void {
  if (typeof anchor !== 'object' || anchor === null) throw invalidField('/anchor', 'type', 'must be an object { seq, hash }');
  if (!Number.isSafeInteger(anchor.seq) || anchor.seq < 1) throw invalidField('/anchor/seq', 'minimum', 'must be a positive integer');
  if (typeof anchor.hash !== 'string' || !/^[0-9a-f]{64}$/.test(anchor.hash)) {
    throw invalidField('/anchor/hash', 'pattern', 'must be a SHA-256 hash: 64 lowercase hexadecimal digits');
  }
}

/** The decision log methods of one engine. */
export function createDecisionLogService(settings: EngineSettings): Pick<Engine, 'verifyDecisionLog'> {
  const { decisions } = settings.repositories;
  return {
    async verifyDecisionLog(options) {
      const anchor = options?.anchor;
      if (anchor !== undefined) assertAnchor(anchor);
      // The head first: entries appended while the log is read lie past it and are left out.
      const stored = await decisions.decisionHead();
      const bound = stored?.seq ?? Number.MAX_SAFE_INTEGER;
      const verifier = createChainVerifier(anchor);
      let after = 0;
      while (after < bound) {
        const rows = (await decisions.readDecisions(after, PAGE)).filter((r) => r.seq <= bound);
        const last = rows.at(-1);
        if (last === undefined) break;
        verifier.push(rows);
        after = last.seq;
      }
      return verifier.end(stored);
    },
  };
}
