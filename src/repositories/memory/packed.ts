/**
 * The compact forms the memory repositories keep of what a transaction stores, and their
 * expansion on read. Every read returns a value deeply equal to what was saved, with the same key
 * order; only the way it is held differs:
 *
 * - A result that hits nothing is usually made of shared parts (the frozen list of not-hit rule
 *   results, the shared empty hit list): consecutive equal ones are kept as one object.
 * - A result with hits keeps its rule list as the differences from a shared list of the same
 *   length, each hit rule result as its description (and its `ruleHitMeta` when that carries
 *   evidence, which is the hit's own) and the fields it shares with the instance's other hits, and
 *   no hit list when that list is exactly its hit rule results without `ruleHit`.
 * - A create payload is not kept when the transaction is that payload with `transactionState:
 *   'CREATED'` added last (what the engine stores before any event).
 */
import type { ExecutedRuleResult, HitRuleDetails, MonitoringResult, ResultAlert, RiskScoreDetails, RuleAction, Transaction } from '../../domain/index.js';

/**
 * What the hit rule results of one instance share: every field but the description. A hit is kept
 * as its template and its description; {@link HIT_KEYS} is the key order it is rebuilt in.
 */
class HitTemplate {
  constructor(
    readonly ruleInstanceId: unknown,
    readonly ruleInstanceVersion: unknown,
    readonly ruleId: unknown,
    readonly ruleName: unknown,
    readonly ruleAction: unknown,
    readonly ruleHitMeta: unknown,
    readonly nature: unknown,
    readonly labels: unknown,
    readonly isShadow: unknown,
  ) {}
}

/** The keys of a rule result with a hit, in the order the pipeline writes them. */
const HIT_KEYS = [
  'ruleInstanceId',
  'ruleInstanceVersion',
  'ruleId',
  'ruleName',
  'ruleDescription',
  'ruleAction',
  'ruleHit',
  'ruleHitMeta',
  'nature',
  'labels',
  'isShadow',
] as const;

/** Templates kept per instance id at most (a new one per risk level or changed setting). */
const MAX_TEMPLATES = 8;

/**
 * The description and `ruleHitMeta` of a hit whose meta is its own (it carries `evidence`, which
 * differs from hit to hit): its template holds {@link OWN_META} in place of the meta.
 */
class OwnMetaHit {
  constructor(
    readonly ruleDescription: string,
    readonly ruleHitMeta: unknown,
  ) {}
}

/** What a template holds as `ruleHitMeta` for hits whose meta is their own. */
const OWN_META = Object.freeze({});

/** The `ruleHitMeta` a template of `rule` holds: the shared meta, or {@link OWN_META} for a meta with evidence. */
function templateMetaOf(rule: ExecutedRuleResult): unknown {
  const meta = rule.ruleHitMeta;
  return meta !== undefined && meta !== null && Object.hasOwn(meta, 'evidence') ? OWN_META : meta;
}

/**
 * A change of a rule list: `index, rule result, undefined`, `index, template, description` or
 * `index, template, own-meta hit`.
 */
type Change = number | ExecutedRuleResult | HitTemplate | string | OwnMetaHit | undefined;

/** A result with hits, held as differences from a shared rule list. */
export class PackedResult {
  constructor(
    /** The shared rule list the differences apply to. */
    readonly base: readonly ExecutedRuleResult[],
    /** Triples (see {@link Change}): the positions where the result's rule list differs from `base`. */
    readonly changes: readonly Change[],
    /** The hit list when it is not derived from the rule list (`null`: derived). */
    readonly hitRules: readonly HitRuleDetails[] | null,
    readonly status: RuleAction,
    readonly riskScoreDetails: RiskScoreDetails | undefined,
    /** The alerts the result names (its last key), kept as saved. */
    readonly alerts: ResultAlert[] | undefined,
  ) {}
}

/** A result as kept: as saved, or packed. */
export type KeptResult = MonitoringResult | PackedResult;

const NO_CHANGES: readonly Change[] = Object.freeze([]);

/** Own enumerable keys of `value` counted without allocating. */
function keyCount(value: object): number {
  let n = 0;
  for (const key in value) if (Object.hasOwn(value, key)) n += 1;
  return n;
}

/** {@link HIT_KEYS} without `ruleHit`: the keys of an entry of the hit list, in order. */
const HIT_DETAIL_KEYS = HIT_KEYS.filter((key) => key !== 'ruleHit');

/** Whether `hit` is `executed` without its `ruleHit` key: same keys in the same order, same values. */
function isHitOf(hit: HitRuleDetails, executed: ExecutedRuleResult): boolean {
  const h = hit as unknown as Record<string, unknown>;
  const e = executed as unknown as Record<string, unknown>;
  if (hasHitShape(executed)) {
    // The usual shape: compared key by key without listing the keys.
    let i = 0;
    for (const key in h) {
      if (key !== HIT_DETAIL_KEYS[i] || h[key] !== e[key]) return false;
      i += 1;
    }
    return i === HIT_DETAIL_KEYS.length;
  }
  const hitKeys = Object.keys(h);
  let i = 0;
  for (const key of Object.keys(e)) {
    if (key === 'ruleHit') continue;
    if (hitKeys[i] !== key || h[key] !== e[key]) return false;
    i += 1;
  }
  return i === hitKeys.length;
}

/** Whether `hitRules` is exactly the hit results of `executedRules`, each without `ruleHit`, in order. */
function hitsDerivable(executedRules: readonly ExecutedRuleResult[], hitRules: readonly HitRuleDetails[]): boolean {
  let k = 0;
  for (const executed of executedRules) {
    if (executed.ruleHit !== true) continue;
    const hit = hitRules[k];
    if (hit === undefined || !isHitOf(hit, executed)) return false;
    k += 1;
  }
  return k === hitRules.length;
}

/** A hit rule result without `ruleHit`, frozen. */
function hitDetailsOf(executed: ExecutedRuleResult): HitRuleDetails {
  if (hasHitShape(executed)) {
    return Object.freeze({
      ruleInstanceId: executed.ruleInstanceId,
      ruleInstanceVersion: executed.ruleInstanceVersion,
      ruleId: executed.ruleId,
      ruleName: executed.ruleName,
      ruleDescription: executed.ruleDescription,
      ruleAction: executed.ruleAction,
      ruleHitMeta: executed.ruleHitMeta,
      nature: executed.nature,
      labels: executed.labels,
      isShadow: executed.isShadow,
    }) as HitRuleDetails;
  }
  const hit: Record<string, unknown> = {};
  for (const key of Object.keys(executed)) if (key !== 'ruleHit') hit[key] = (executed as unknown as Record<string, unknown>)[key];
  return Object.freeze(hit) as unknown as HitRuleDetails;
}

/** The hit list derived from a rule list: each hit result without `ruleHit`, frozen. */
function deriveHits(executedRules: readonly ExecutedRuleResult[]): HitRuleDetails[] {
  const out: HitRuleDetails[] = [];
  for (const executed of executedRules) if (executed.ruleHit === true) out.push(hitDetailsOf(executed));
  return Object.freeze(out) as HitRuleDetails[];
}

/** Whether `rule` has exactly the keys {@link HIT_KEYS}, in that order, `ruleHit: true` and a string description. */
function hasHitShape(rule: ExecutedRuleResult): boolean {
  if (rule.ruleHit !== true || typeof rule.ruleDescription !== 'string') return false;
  let i = 0;
  for (const key in rule) {
    if (key !== HIT_KEYS[i]) return false;
    i += 1;
  }
  return i === HIT_KEYS.length;
}

function sameTemplate(t: HitTemplate, rule: ExecutedRuleResult): boolean {
  return (
    t.ruleInstanceId === rule.ruleInstanceId &&
    t.ruleInstanceVersion === rule.ruleInstanceVersion &&
    t.ruleId === rule.ruleId &&
    t.ruleName === rule.ruleName &&
    t.ruleAction === rule.ruleAction &&
    t.ruleHitMeta === templateMetaOf(rule) &&
    t.nature === rule.nature &&
    t.labels === rule.labels &&
    t.isShadow === rule.isShadow
  );
}

/** A rule result with a hit, rebuilt from its template and description (frozen, as the pipeline's are). */
function hitFrom(t: HitTemplate, described: string | OwnMetaHit): ExecutedRuleResult {
  const own = described instanceof OwnMetaHit;
  return Object.freeze({
    ruleInstanceId: t.ruleInstanceId,
    ruleInstanceVersion: t.ruleInstanceVersion,
    ruleId: t.ruleId,
    ruleName: t.ruleName,
    ruleDescription: own ? described.ruleDescription : described,
    ruleAction: t.ruleAction,
    ruleHit: true,
    ruleHitMeta: own ? described.ruleHitMeta : t.ruleHitMeta,
    nature: t.nature,
    labels: t.labels,
    isShadow: t.isShadow,
  }) as unknown as ExecutedRuleResult;
}

/**
 * Packs results for one memory store. It remembers the latest result without hits: the next
 * equal one is kept as that same object, and its rule list is the shared list results with hits
 * are kept as differences from.
 */
export interface ResultPacker {
  pack(result: MonitoringResult): KeptResult;
}

export function createResultPacker(): ResultPacker {
  let lastMiss: MonitoringResult | null = null;
  const templates = new Map<unknown, HitTemplate[]>();

  /** The template of a hit rule result: one seen before, else a new one (`null` past {@link MAX_TEMPLATES}). */
  function templateOf(rule: ExecutedRuleResult): HitTemplate | null {
    let list = templates.get(rule.ruleInstanceId);
    if (list === undefined) {
      list = [];
      templates.set(rule.ruleInstanceId, list);
    }
    for (const t of list) if (sameTemplate(t, rule)) return t;
    if (list.length === MAX_TEMPLATES) return null;
    const t = new HitTemplate(
      rule.ruleInstanceId,
      rule.ruleInstanceVersion,
      rule.ruleId,
      rule.ruleName,
      rule.ruleAction,
      templateMetaOf(rule),
      rule.nature,
      rule.labels,
      rule.isShadow,
    );
    list.push(t);
    return t;
  }

  return {
    pack(result) {
      const { executedRules, hitRules, status, riskScoreDetails, alerts } = result;
      const keys = keyCount(result);
      // Only the fields of a result are known how to rebuild, in their order (`alerts` last):
      // anything else is kept as saved.
      const named = Object.hasOwn(result, 'alerts');
      if (keys !== 3 + (Object.hasOwn(result, 'riskScoreDetails') ? 1 : 0) + (named ? 1 : 0)) return result;
      if (named && Object.keys(result)[keys - 1] !== 'alerts') return result;
      if (hitRules.length === 0) {
        if (keys !== 3 || !Object.isFrozen(executedRules) || !Object.isFrozen(hitRules)) return result;
        if (lastMiss !== null && lastMiss.executedRules === executedRules && lastMiss.hitRules === hitRules && lastMiss.status === status) return lastMiss;
        lastMiss = result;
        return result;
      }
      const derivable = hitsDerivable(executedRules, hitRules);
      const base = lastMiss?.executedRules;
      if (base !== undefined && base.length === executedRules.length) {
        let differing = 0;
        for (let i = 0; i < base.length; i++) if (base[i] !== executedRules[i]) differing += 1;
        if (differing * 2 <= base.length) {
          const changes: Change[] = new Array<Change>(differing * 3);
          let j = 0;
          for (let i = 0; i < base.length; i++) {
            const rule = executedRules[i] as ExecutedRuleResult;
            if (base[i] === rule) continue;
            changes[j++] = i;
            const template = hasHitShape(rule) ? templateOf(rule) : null;
            if (template === null) {
              changes[j++] = rule;
              changes[j++] = undefined;
            } else {
              changes[j++] = template;
              changes[j++] = template.ruleHitMeta === OWN_META ? new OwnMetaHit(rule.ruleDescription, rule.ruleHitMeta) : rule.ruleDescription;
            }
          }
          return new PackedResult(base, changes, derivable ? null : hitRules, status, riskScoreDetails, alerts);
        }
      }
      if (!derivable) return result;
      return new PackedResult(
        Object.isFrozen(executedRules) ? executedRules : Object.freeze([...executedRules]),
        NO_CHANGES,
        null,
        status,
        riskScoreDetails,
        alerts,
      );
    },
  };
}

/** The result a kept one stands for (a new object for a packed one, its lists frozen). */
export function unpackResult(kept: KeptResult): MonitoringResult {
  if (!(kept instanceof PackedResult)) return kept;
  let executedRules = kept.base as ExecutedRuleResult[];
  const changes = kept.changes;
  if (changes.length > 0) {
    executedRules = kept.base.slice();
    for (let j = 0; j < changes.length; j += 3) {
      const rule = changes[j + 1];
      executedRules[changes[j] as number] = rule instanceof HitTemplate ? hitFrom(rule, changes[j + 2] as string | OwnMetaHit) : (rule as ExecutedRuleResult);
    }
    Object.freeze(executedRules);
  }
  const hitRules = (kept.hitRules ?? deriveHits(executedRules)) as HitRuleDetails[];
  const out: MonitoringResult = { executedRules, hitRules, status: kept.status };
  if (kept.riskScoreDetails !== undefined) out.riskScoreDetails = kept.riskScoreDetails;
  if (kept.alerts !== undefined) out.alerts = kept.alerts;
  return out;
}

/**
 * Whether `request` can be rebuilt from `transaction` (see {@link requestOf}): the request has no
 * `transactionState`, and the transaction is the request's keys, in the same order, with the same
 * values, followed by `transactionState: 'CREATED'`.
 */
export function requestDerivable(transaction: Transaction, request: Transaction): boolean {
  if (transaction.transactionState !== 'CREATED' || Object.hasOwn(request, 'transactionState')) return false;
  const requestKeys = Object.keys(request);
  const n = requestKeys.length;
  let i = 0;
  let derivable = false;
  for (const key in transaction) {
    if (!Object.hasOwn(transaction, key)) continue;
    if (i === n) {
      derivable = key === 'transactionState' && i + 1 === keyCount(transaction);
      break;
    }
    if (requestKeys[i] !== key || (transaction as Record<string, unknown>)[key] !== (request as Record<string, unknown>)[key]) break;
    i += 1;
  }
  return derivable;
}

/** The request of a transaction for which {@link requestDerivable} held: the transaction without `transactionState`. */
export function requestOf(transaction: Transaction): Transaction {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(transaction)) if (key !== 'transactionState') out[key] = (transaction as Record<string, unknown>)[key];
  return out as unknown as Transaction;
}
