import { describe, expect, it } from 'vitest';
import type { ExecutedRuleResult, HitRuleDetails, MonitoringResult, ResultAlert, Transaction } from '../../../src/domain/index.js';
import { createResultPacker, PackedResult, requestDerivable, requestOf, unpackResult } from '../../../src/repositories/memory/packed.js';

const META = Object.freeze({ hitDirections: Object.freeze(['ORIGIN']) }) as unknown as NonNullable<HitRuleDetails['ruleHitMeta']>;

function notHit(id: string): ExecutedRuleResult {
  return Object.freeze({
    ruleInstanceId: id,
    ruleInstanceVersion: 1,
    ruleId: 'R-2',
    ruleName: 'Amount',
    ruleDescription: 'Amount at or above a threshold.',
    ruleAction: 'FLAG',
    ruleHit: false,
    nature: 'AML',
    labels: [],
    isShadow: false,
  }) as unknown as ExecutedRuleResult;
}

function hit(id: string, description: string): { executed: ExecutedRuleResult; hit: HitRuleDetails } {
  const executed = Object.freeze({
    ruleInstanceId: id,
    ruleInstanceVersion: 1,
    ruleId: 'R-2',
    ruleName: 'Amount',
    ruleDescription: description,
    ruleAction: 'FLAG',
    ruleHit: true,
    ruleHitMeta: META,
    nature: 'AML',
    labels: [],
    isShadow: false,
  });
  const details = Object.freeze({
    ruleInstanceId: id,
    ruleInstanceVersion: 1,
    ruleId: 'R-2',
    ruleName: 'Amount',
    ruleDescription: description,
    ruleAction: 'FLAG',
    ruleHitMeta: META,
    nature: 'AML',
    labels: [],
    isShadow: false,
  });
  return { executed: executed as unknown as ExecutedRuleResult, hit: details as unknown as HitRuleDetails };
}

const NO_HITS = Object.freeze([]) as unknown as HitRuleDetails[];
const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
const misses = Object.freeze(ids.map(notHit)) as ExecutedRuleResult[];

function missResult(): MonitoringResult {
  return { executedRules: misses, hitRules: NO_HITS, status: 'ALLOW' };
}

function hitResult(positions: number[], description = 'Amount 120.00 EUR'): MonitoringResult {
  const executedRules = [...misses];
  const hitRules: HitRuleDetails[] = [];
  for (const p of positions) {
    const h = hit(ids[p] as string, `${description} #${p}`);
    executedRules[p] = h.executed;
    hitRules.push(h.hit);
  }
  return { executedRules: Object.freeze(executedRules) as ExecutedRuleResult[], hitRules: Object.freeze(hitRules) as HitRuleDetails[], status: 'FLAG' };
}

describe('createResultPacker', () => {
  it('keeps consecutive equal results without hits as one object', () => {
    const packer = createResultPacker();
    const first = packer.pack(missResult());
    expect(packer.pack(missResult())).toBe(first);
    expect(unpackResult(first)).toBe(first);
  });

  it('keeps a result with hits as differences from the shared rule list, read back with the same JSON', () => {
    const packer = createResultPacker();
    packer.pack(missResult());
    const result = hitResult([1, 4]);
    const kept = packer.pack(result);
    expect(kept).toBeInstanceOf(PackedResult);
    expect((kept as PackedResult).base).toBe(misses);
    const changes = (kept as PackedResult).changes;
    expect(changes).toHaveLength(6);
    expect(changes.filter((c) => typeof c === 'string')).toEqual(['Amount 120.00 EUR #1', 'Amount 120.00 EUR #4']);
    const back = unpackResult(kept);
    expect(JSON.stringify(back)).toBe(JSON.stringify(result));
    expect(back.executedRules[0]).toBe(misses[0]);
    expect(Object.isFrozen(back.executedRules) && Object.isFrozen(back.hitRules) && Object.isFrozen(back.hitRules[0])).toBe(true);
  });

  it('keeps hits whose ruleHitMeta carries evidence on one shared template per instance, each with its own meta, read back equal', () => {
    const packer = createResultPacker();
    packer.pack(missResult());
    const LABELS = Object.freeze([]) as unknown as ExecutedRuleResult['labels'];
    const evidenced = (n: number): MonitoringResult => {
      const meta = Object.freeze({
        hitDirections: META.hitDirections,
        evidence: Object.freeze([Object.freeze({ direction: 'ORIGIN', kind: 'count', value: n, comparison: '>', limit: 1 })]),
      });
      const result = hitResult([2]);
      // The labels too as the pipeline gives them: one frozen list per instance.
      const executed = { ...(result.executedRules[2] as ExecutedRuleResult), ruleHitMeta: meta, labels: LABELS };
      const { ruleHit: _ruleHit, ...details } = executed;
      const executedRules = [...result.executedRules];
      executedRules[2] = Object.freeze(executed) as ExecutedRuleResult;
      return {
        ...result,
        executedRules: Object.freeze(executedRules) as ExecutedRuleResult[],
        hitRules: Object.freeze([Object.freeze(details)]) as HitRuleDetails[],
      };
    };
    // More hits than an instance keeps templates: a per-hit meta must not use one up each.
    const results = Array.from({ length: 12 }, (_, n) => evidenced(n + 2));
    const kept = results.map((r) => packer.pack(r));
    const templates = new Set(kept.map((k) => (k as PackedResult).changes[1]));
    expect(templates.size).toBe(1);
    for (const [n, k] of kept.entries()) {
      expect(k).toBeInstanceOf(PackedResult);
      expect(JSON.stringify(unpackResult(k))).toBe(JSON.stringify(results[n]));
      expect(unpackResult(k).hitRules[0]?.ruleHitMeta).toBe(results[n]?.executedRules[2]?.ruleHitMeta);
    }
  });

  it("keeps a hit rule result whose keys are not the pipeline's as saved", () => {
    const packer = createResultPacker();
    packer.pack(missResult());
    const { labels: _labels, ...withoutLabels } = hit('c', 'no labels').executed as unknown as Record<string, unknown>;
    const executedRules = [...misses];
    executedRules[2] = Object.freeze(withoutLabels) as unknown as ExecutedRuleResult;
    const { ruleHit: _hit, ...details } = withoutLabels;
    const result: MonitoringResult = { executedRules, hitRules: [details as unknown as HitRuleDetails], status: 'FLAG' };
    const kept = packer.pack(result) as PackedResult;
    expect(kept.changes[1]).toBe(executedRules[2]);
    expect(JSON.stringify(unpackResult(kept))).toBe(JSON.stringify(result));
  });

  it('keeps the whole rule list when most rules differ from the shared one, or when none is known yet', () => {
    const packer = createResultPacker();
    const early = hitResult([0]);
    expect(JSON.stringify(unpackResult(packer.pack(early)))).toBe(JSON.stringify(early));
    packer.pack(missResult());
    const most = hitResult([0, 1, 2, 3, 4]);
    const kept = packer.pack(most);
    expect(JSON.stringify(unpackResult(kept))).toBe(JSON.stringify(most));
  });

  it('keeps a hit list that is not the hit rule results without ruleHit as saved', () => {
    const packer = createResultPacker();
    packer.pack(missResult());
    const result = hitResult([2]);
    const other = { ...(result.hitRules[0] as HitRuleDetails), ruleDescription: 'something else' };
    const mismatched: MonitoringResult = { ...result, hitRules: [other] };
    const back = unpackResult(packer.pack(mismatched));
    expect(back.hitRules[0]).toBe(other);
    expect(JSON.stringify(back)).toBe(JSON.stringify(mismatched));
    const reordered: MonitoringResult = { ...result, hitRules: [{ ruleHitMeta: META, ...(result.hitRules[0] as HitRuleDetails) }] };
    expect(JSON.stringify(unpackResult(packer.pack(reordered)))).toBe(JSON.stringify(reordered));
  });

  it('packs a result naming its alerts (last, with or without risk score details) and reads it back equal; one with `alerts` elsewhere is kept as saved', () => {
    const packer = createResultPacker();
    packer.pack(missResult());
    const alerts: ResultAlert[] = [{ alertId: 'A-1', caseId: 'C-1', ruleInstanceId: 'd', userId: 'alice', direction: 'ORIGIN', action: 'OPENED' }];
    const named: MonitoringResult = { ...hitResult([3]), alerts };
    const namedWithRisk: MonitoringResult = { ...hitResult([3]), riskScoreDetails: { trsScore: 40 }, alerts };
    for (const result of [named, namedWithRisk]) {
      const kept = packer.pack(result);
      expect(kept).toBeInstanceOf(PackedResult);
      expect(JSON.stringify(unpackResult(kept))).toBe(JSON.stringify(result));
    }
    const { status, ...rest } = hitResult([3]);
    const misplaced = { ...rest, alerts, status } as MonitoringResult;
    expect(packer.pack(misplaced)).toBe(misplaced);
  });

  it('keeps risk score details and returns results with unknown fields as saved', () => {
    const packer = createResultPacker();
    packer.pack(missResult());
    const withRisk: MonitoringResult = { ...hitResult([3]), riskScoreDetails: { trsScore: 40, trsRiskLevel: 'MEDIUM' } };
    expect(JSON.stringify(unpackResult(packer.pack(withRisk)))).toBe(JSON.stringify(withRisk));
    const extra = { ...hitResult([3]), note: 'kept' } as MonitoringResult;
    expect(packer.pack(extra)).toBe(extra);
  });
});

describe('requestDerivable and requestOf', () => {
  const request = {
    type: 'TRANSFER',
    transactionId: 't-1',
    timestamp: 1,
    originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR' },
  } as Transaction;

  it('rebuilds a request the transaction adds only transactionState CREATED to, with the same keys in order', () => {
    const transaction = { ...request, transactionState: 'CREATED' } as Transaction;
    expect(requestDerivable(transaction, request)).toBe(true);
    const back = requestOf(transaction);
    expect(JSON.stringify(back)).toBe(JSON.stringify(request));
    expect(back.originAmountDetails).toBe(request.originAmountDetails);
  });

  it('refuses a request with a state, another state, other values, other keys or another key order', () => {
    expect(requestDerivable({ ...request, transactionState: 'CREATED' } as Transaction, { ...request, transactionState: 'CREATED' } as Transaction)).toBe(
      false,
    );
    expect(requestDerivable({ ...request, transactionState: 'SUCCESSFUL' } as Transaction, request)).toBe(false);
    expect(requestDerivable({ ...request, originAmountDetails: { ...request.originAmountDetails }, transactionState: 'CREATED' } as Transaction, request)).toBe(
      false,
    );
    expect(requestDerivable({ ...request, reference: 'x', transactionState: 'CREATED' } as Transaction, request)).toBe(false);
    expect(requestDerivable({ ...request, transactionState: 'CREATED', reference: 'x' } as Transaction, request)).toBe(false);
    expect(requestDerivable({ transactionState: 'CREATED', ...request } as Transaction, request)).toBe(false);
    const { type, ...rest } = request;
    expect(requestDerivable({ ...rest, type, transactionState: 'CREATED' } as Transaction, request)).toBe(false);
  });
});
