import { RISK_LEVELS, RuleInstanceRequestSchema, RULE_INSTANCE_READ_ONLY_FIELDS } from '../../domain/index.js';
import type { RiskLevel, RuleAction, RuleInstanceRequest, TriggersOnHit } from '../../domain/index.js';
import { TxmonError, type ErrorDetail } from '../../errors.js';
import { compileLogic } from '../../logic/index.js';
import { compileAggregationVariables } from '../../rules/aggregation-variables.js';
import type { AggregationVariable } from '../../domain/index.js';
import type { RuleInstance, StoredRuleInstance } from '../repositories.js';
import type { RuleRegistry } from '../../rules/registry.js';
import type { AnyRule } from '../../rules/types.js';
import { isUserRule } from '../../rules/define-rule.js';
import { compileHistoricalFilters, compileRuleFilters, validateRuleFilters } from '../../rules/filters/index.js';
import { HISTORICAL_FILTER_KEYS, TRANSACTION_FILTER_KEYS, type RuleFilters } from '../../domain/schemas/rule-filters.js';
import { cloneJson } from '../../domain/json.js';
import { copySafeJson, createLazyValidator, MAX_ERROR_DETAILS, validateAgainstSchema } from '../../validation/index.js';

/** `ruleId` of custom json-logic instances. */
export const CUSTOM_RULE_ID = 'CUSTOM';

const validateRequest = createLazyValidator(RuleInstanceRequestSchema, { what: 'rule instance', safeJson: false });

function perLevel<T>(value: T): Record<RiskLevel, T> {
  const out = {} as Record<RiskLevel, T>;
  for (const level of RISK_LEVELS) out[level] = cloneJson(value);
  return out;
}

/**
 * Runs the rule's own parameter checks (`validateParameters` of the rule) on
 * parameters its schema accepted, prefixing each detail's path with `basePath`.
 * @throws TxmonError `INVALID_PARAMETERS` with at most {@link MAX_ERROR_DETAILS} details.
 */
function validateRuleParameters(rule: AnyRule, parameters: Record<string, unknown>, basePath: string, what: string): void {
  const found = rule.validateParameters?.(parameters) ?? [];
  if (found.length === 0) return;
  const details = found.slice(0, MAX_ERROR_DETAILS).map((d) => ({ ...d, path: `${basePath}${d.path}` }));
  const first = details[0] as ErrorDetail;
  const more = found.length > 1 ? ` (and ${found.length - 1} more)` : '';
  throw new TxmonError('INVALID_PARAMETERS', `Invalid ${what}: ${first.path} ${first.message}${more}`, details);
}

/**
 * Validates a create or update request and builds the stored instance. Pure given `now` and `id`.
 *
 * Update semantics: fields present in the request replace the stored ones; absent fields are
 * kept. The version is the stored one's plus 1 (1 on creation). Per-risk-level maps that were derived from the plain fields are re-derived.
 *
 * @throws TxmonError `READ_ONLY_FIELD`, `VALIDATION_FAILED`, `UNKNOWN_RULE`, `INVALID_PARAMETERS`,
 *   `INVALID_FILTERS`, `INVALID_LOGIC` — each detail names the JSON path.
 */
export function buildRuleInstance(
  input: unknown,
  existing: StoredRuleInstance | null,
  context: { registry: RuleRegistry; now: number; id: string },
): StoredRuleInstance {
  const copy = copySafeJson(input);
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const details: ErrorDetail[] = [];
    for (const field of RULE_INSTANCE_READ_ONLY_FIELDS) {
      if (field in input) details.push({ path: `/${field}`, code: 'read-only', message: 'is maintained by the service' });
    }
    if (details.length > 0) {
      throw new TxmonError('READ_ONLY_FIELD', `Invalid request: ${details.map((d) => d.path.slice(1)).join(', ')} cannot be set`, details);
    }
  }
  const request: RuleInstanceRequest = validateRequest(copy);
  const prev = existing?.instance;
  const isCustom = request.logic !== undefined || (request.ruleId === undefined && prev?.ruleId === CUSTOM_RULE_ID);

  let ruleId: string;
  let parameters: Record<string, unknown>;
  let defaultAction: RuleAction;
  let nature = request.nature ?? prev?.nature;
  let labels = request.labels ?? prev?.labels;
  let casePriority = request.casePriority ?? prev?.casePriority;
  let checksFor: string[];
  let logic: unknown;
  let userRule = false;

  if (!isCustom && request.logicAggregationVariables !== undefined && request.logicAggregationVariables.length > 0) {
    throw new TxmonError('VALIDATION_FAILED', 'Invalid request: logicAggregationVariables need logic', [
      { path: '/logicAggregationVariables', code: 'not-allowed', message: 'is only allowed with logic' },
    ]);
  }
  let variables: AggregationVariable[] | undefined;
  if (isCustom) {
    if (request.ruleId !== undefined && request.ruleId !== CUSTOM_RULE_ID) {
      throw new TxmonError('VALIDATION_FAILED', 'Invalid request: give either ruleId or logic, not both', [
        { path: '/ruleId', code: 'exclusive', message: 'must be absent when logic is given' },
      ]);
    }
    if (request.parameters !== undefined && Object.keys(request.parameters).length > 0) {
      throw new TxmonError('VALIDATION_FAILED', 'Invalid request: custom logic instances take no parameters', [
        { path: '/parameters', code: 'not-allowed', message: 'is not allowed with logic' },
      ]);
    }
    logic = request.logic ?? prev?.logic;
    const compiled = compileAggregationVariables(request.logicAggregationVariables ?? prev?.logicAggregationVariables, '/logicAggregationVariables');
    variables = compiled.map((v) => v.source);
    compileLogic(logic, { basePath: '/logic', aggregationVariableKeys: compiled.map((v) => v.key) });
    ruleId = CUSTOM_RULE_ID;
    parameters = {};
    defaultAction = 'FLAG';
    nature ??= 'AML';
    labels ??= [];
    casePriority ??= 'P1';
    checksFor = ['Custom logic'];
  } else {
    const id = request.ruleId ?? prev?.ruleId;
    if (id === undefined) {
      throw new TxmonError('VALIDATION_FAILED', 'Invalid request: ruleId is required unless logic is given', [
        { path: '/ruleId', code: 'required', message: 'is required unless logic is given' },
      ]);
    }
    const rule = context.registry.find(id);
    if (!rule) {
      throw new TxmonError('UNKNOWN_RULE', 'Invalid request: ruleId names no rule', [
        { path: '/ruleId', code: 'unknown-rule', message: 'names no rule of GET /rules' },
      ]);
    }
    ruleId = rule.id;
    userRule = isUserRule(rule);
    const ruleChanged = prev !== undefined && prev.ruleId !== ruleId;
    const base = (ruleChanged || !prev ? rule.defaultParameters : prev.parameters) as Record<string, unknown>;
    // Deep copies: nested defaults (e.g. a timeWindow) must never be shared with the rule template.
    parameters = cloneJson(request.parameters !== undefined ? { ...(rule.defaultParameters as Record<string, unknown>), ...request.parameters } : base);
    validateAgainstSchema(rule.parametersSchema, parameters, { basePath: '/parameters', code: 'INVALID_PARAMETERS', what: 'parameters' });
    validateRuleParameters(rule, parameters, '/parameters', 'parameters');
    defaultAction = rule.defaultAction;
    nature ??= rule.defaultNature;
    labels ??= [...rule.labels];
    casePriority ??= rule.defaultCasePriority;
    checksFor = [...rule.checksFor];
    logic = undefined;
  }

  const action: RuleAction = request.action ?? prev?.action ?? defaultAction;
  const triggersOnHit: TriggersOnHit | undefined = request.triggersOnHit ?? prev?.triggersOnHit;

  let riskLevelParameters: Record<RiskLevel, Record<string, unknown>>;
  let derivedParameters: boolean;
  if (request.riskLevelParameters !== undefined) {
    if (isCustom) {
      throw new TxmonError('VALIDATION_FAILED', 'Invalid request: custom logic instances take no parameters', [
        { path: '/riskLevelParameters', code: 'not-allowed', message: 'is not allowed with logic' },
      ]);
    }
    const rule = context.registry.find(ruleId) as AnyRule;
    riskLevelParameters = {} as Record<RiskLevel, Record<string, unknown>>;
    for (const level of RISK_LEVELS) {
      const merged = cloneJson({ ...(rule.defaultParameters as Record<string, unknown>), ...request.riskLevelParameters[level] });
      validateAgainstSchema(rule.parametersSchema, merged, {
        basePath: `/riskLevelParameters/${level}`,
        code: 'INVALID_PARAMETERS',
        what: 'riskLevelParameters',
      });
      validateRuleParameters(rule, merged, `/riskLevelParameters/${level}`, 'riskLevelParameters');
      riskLevelParameters[level] = merged;
    }
    derivedParameters = false;
  } else if (existing && !existing.derived.riskLevelParameters && (request.ruleId === undefined || request.ruleId === existing.instance.ruleId)) {
    // An explicit per-level map is kept when only the plain field changes; a new rule resets it
    // (its parameter schema differs).
    riskLevelParameters = existing.instance.riskLevelParameters;
    derivedParameters = false;
  } else {
    riskLevelParameters = perLevel(parameters);
    derivedParameters = true;
  }

  let riskLevelActions: Record<RiskLevel, RuleAction>;
  let derivedActions: boolean;
  if (request.riskLevelActions !== undefined) {
    riskLevelActions = { ...request.riskLevelActions };
    derivedActions = false;
  } else if (existing && !existing.derived.riskLevelActions) {
    riskLevelActions = existing.instance.riskLevelActions;
    derivedActions = false;
  } else {
    riskLevelActions = perLevel(action);
    derivedActions = true;
  }

  let riskLevelsTriggersOnHit: Record<RiskLevel, TriggersOnHit>;
  let derivedTriggers: boolean;
  if (request.riskLevelsTriggersOnHit !== undefined) {
    riskLevelsTriggersOnHit = cloneJson(request.riskLevelsTriggersOnHit);
    derivedTriggers = false;
  } else if (existing && !existing.derived.riskLevelsTriggersOnHit) {
    riskLevelsTriggersOnHit = existing.instance.riskLevelsTriggersOnHit;
    derivedTriggers = false;
  } else {
    riskLevelsTriggersOnHit = perLevel(triggersOnHit ?? {});
    derivedTriggers = true;
  }

  const filters = (request.filters ?? prev?.filters ?? {}) as Record<string, unknown>;
  validateRuleFilters(filters);
  if (userRule) assertUserRuleSettings(filters, riskLevelsTriggersOnHit, derivedTriggers);
  const historical = compileHistoricalFilters(filters as RuleFilters);
  if (historical !== null && (isCustom || (context.registry.get(ruleId)?.series.length ?? 0) === 0)) {
    // A historical filter on a rule that reads no history would be silently ignored: refused.
    const key = HISTORICAL_FILTER_KEYS.find((k) => filters[k] !== undefined && historical.canonical.includes(`"${k}"`)) ?? 'paymentMethodsHistorical';
    const path = `/filters/${key}`;
    throw new TxmonError(
      'INVALID_FILTERS',
      `Invalid filters: ${path} has no effect: ${isCustom ? 'custom logic reads no history (use the filter logic of an aggregation variable)' : 'this rule reads no history'}`,
      [{ path, code: 'unsupported', message: 'has no effect on a rule that reads no history' }],
    );
  }

  const instance: Omit<RuleInstance, 'runCount' | 'hitCount'> = {
    id: context.id,
    type: userRule ? 'USER' : 'TRANSACTION',
    ruleId,
    ...(logic !== undefined ? { logic } : {}),
    ...(variables !== undefined && variables.length > 0 ? { logicAggregationVariables: cloneJson(variables) } : {}),
    ...((request.ruleNameAlias ?? prev?.ruleNameAlias) ? { ruleNameAlias: (request.ruleNameAlias ?? prev?.ruleNameAlias) as string } : {}),
    ...((request.ruleDescriptionAlias ?? prev?.ruleDescriptionAlias)
      ? { ruleDescriptionAlias: (request.ruleDescriptionAlias ?? prev?.ruleDescriptionAlias) as string }
      : {}),
    parameters,
    riskLevelParameters,
    action,
    riskLevelActions,
    ...(triggersOnHit !== undefined ? { triggersOnHit } : {}),
    riskLevelsTriggersOnHit,
    filters,
    alertCreationOnHit: request.alertCreationOnHit ?? prev?.alertCreationOnHit ?? true,
    status: request.status ?? prev?.status ?? 'ACTIVE',
    mode: request.mode ?? prev?.mode ?? 'LIVE',
    casePriority,
    nature,
    labels: [...labels],
    checksFor,
    createdAt: prev?.createdAt ?? context.now,
    updatedAt: context.now,
    // An instance stored before versions existed counts as version 1.
    version: (prev?.version ?? 0) + 1,
  };
  return {
    instance,
    derived: { riskLevelParameters: derivedParameters, riskLevelActions: derivedActions, riskLevelsTriggersOnHit: derivedTriggers },
  };
}

/**
 * Refuses what a user rule's instance could not honour (silently ignoring it would be a lie):
 * transaction filters and `checkDirection` (there is no transaction; historical filters are refused
 * as for every rule that reads no history), and `triggersOnHit` that would change the user (a user
 * rule's hit does not change the user it runs on). User filters are kept: they select the users
 * the instance runs on.
 * @throws TxmonError `INVALID_FILTERS` or `VALIDATION_FAILED` naming the field
 */
function assertUserRuleSettings(filters: Record<string, unknown>, triggers: Record<RiskLevel, TriggersOnHit>, derivedTriggers: boolean): void {
  for (const key of [...TRANSACTION_FILTER_KEYS, 'checkDirection'] as const) {
    if (filters[key] !== undefined && compileRuleFilters({ [key]: filters[key] } as RuleFilters).active) {
      const path = `/filters/${key}`;
      throw new TxmonError('INVALID_FILTERS', `Invalid filters: ${path} has no effect: a user rule runs on users, not transactions`, [
        { path, code: 'unsupported', message: 'has no effect on a user rule' },
      ]);
    }
  }
  for (const level of RISK_LEVELS) {
    const t = triggers[level];
    if (t.userStateDetails !== undefined || t.kycStatusDetails !== undefined) {
      const path = derivedTriggers ? '/triggersOnHit' : `/riskLevelsTriggersOnHit/${level}`;
      throw new TxmonError('VALIDATION_FAILED', `Invalid request: ${path} is not supported on a user rule`, [
        { path, code: 'not-allowed', message: 'a user rule hit does not change the user (not supported)' },
      ]);
    }
  }
}
