/** Rule instances (`/rule-instances`) and the rules they are made from (`GET /rules`, `GET /rule-filters-schema`). */
import type { RuleInstance } from '../../domain/entities.js';
import { getRuleFiltersSchemaJson } from '../../domain/schemas/rule-filters.js';
import { cloneJson } from '../../domain/json.js';
import { limitExceeded, notFound } from '../../errors.js';
import type { StoredRuleInstance } from '../repositories.js';
import { appendPointer, copySafeJsonSized } from '../../validation/index.js';
import type { InstanceAudit, InstanceSet } from '../instances/instance-set.js';
import type { AuditAction } from '../../domain/schemas/audit.js';
import { actorOf, auditEntryOf } from './audit.js';
import { ruleInstanceMessageOf } from '../../domain/outbox.js';
import { assertSizeWithin } from '../limits.js';
import type { EngineSettings } from '../options.js';
import { buildRuleInstance } from '../instances/build-rule-instance.js';
import type { Engine } from '../types.js';
import { assertId } from './assert-id.js';
import { canonicalJson } from '../../domain/canonical-json.js';

/** An instance's configuration: what a request decides, without its id, dates and version. */
function configurationOf(stored: StoredRuleInstance): string {
  const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...rest } = stored.instance;
  return canonicalJson({ ...rest, derived: stored.derived });
}

type RuleInstanceMethods = Pick<
  Engine,
  | 'createRuleInstance'
  | 'getRuleInstance'
  | 'listRuleInstances'
  | 'updateRuleInstance'
  | 'ensureRuleInstance'
  | 'deleteRuleInstance'
  | 'getRuleInstanceVersions'
  | 'listRules'
  | 'getRule'
  | 'getRuleFiltersSchema'
>;

/**
 * Refuses any array inside `value` (checked JSON) with more than `max` items: `LIMIT_EXCEEDED`
 * (`maxParameterItems`) at the array's path.
 */
function assertListsWithin(value: unknown, path: string, max: number): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (value.length > max) throw limitExceeded('maxParameterItems', max, 'the items of this list', path);
    for (const [i, item] of value.entries()) assertListsWithin(item, `${path}/${i}`, max);
    return;
  }
  for (const [key, item] of Object.entries(value)) assertListsWithin(item, appendPointer(path, key), max);
}

/** The rule-instance and rule endpoints of one engine. */
export function createRuleInstanceService(settings: EngineSettings, instances: InstanceSet): RuleInstanceMethods {
  const { repositories: repos, registry, limits, clock } = settings;

  /**
   * Builds a rule instance from a request (see {@link buildRuleInstance}) within the limits: the
   * request within `maxRuleInstanceSize`, each list in its parameters within `maxParameterItems`.
   */
  function buildLimited(input: unknown, existing: StoredRuleInstance | null, id: string): StoredRuleInstance {
    const { copy: request, size } = copySafeJsonSized(input);
    const stored = buildRuleInstance(request, existing, { registry, now: clock.now(), id });
    assertSizeWithin(size, limits.maxRuleInstanceSize, 'maxRuleInstanceSize', 'the rule instance');
    // The lists the client sent (a rule's defaults are within any limit a host would set).
    if (typeof request === 'object' && request !== null) {
      const { parameters, riskLevelParameters } = request as { parameters?: unknown; riskLevelParameters?: unknown };
      assertListsWithin(parameters, '/parameters', limits.maxParameterItems);
      if (typeof riskLevelParameters === 'object' && riskLevelParameters !== null) {
        for (const [level, value] of Object.entries(riskLevelParameters)) assertListsWithin(value, `/riskLevelParameters/${level}`, limits.maxParameterItems);
      }
    }
    return stored;
  }

  /** The audit entry and the outbox message of an instance write or delete by `actor`. */
  const auditOf =
    (actor: string, action: AuditAction): InstanceAudit =>
    (before, after) => {
      const entry = auditEntryOf(settings, actor, { entityType: 'RULE_INSTANCE', entityId: (after ?? before)?.id as string, action, before, after });
      const instance = after ?? before;
      const message = ruleInstanceMessageOf(
        action === 'CREATE' ? 'CREATED' : action === 'DELETE' ? 'DELETED' : 'UPDATED',
        entry.entityId,
        { ruleId: instance?.ruleId, version: instance?.version, status: after?.status, actor },
        entry.timestamp,
      );
      return { audit: [entry], outbox: [message] };
    };

  return {
    async createRuleInstance(input, options) {
      const actor = actorOf(options);
      // Built before the writer gate: a bad request never waits for transactions in flight.
      const stored = buildLimited(input, null, settings.ids.next('ruleInstance'));
      return instances.write(() => stored, auditOf(actor, 'CREATE'));
    },

    async getRuleInstance(id) {
      assertId(id, 'rule instance id');
      const instance = await repos.ruleInstances.getRuleInstance(id);
      if (!instance) throw notFound('RULE_INSTANCE_NOT_FOUND', 'rule instance');
      return cloneJson(instance);
    },

    async listRuleInstances(): Promise<RuleInstance[]> {
      return cloneJson(await repos.ruleInstances.listRuleInstances());
    },

    async updateRuleInstance(id, input, options) {
      assertId(id, 'rule instance id');
      const actor = actorOf(options);
      return instances.write(
        async (unit) => {
          const existing = await unit.ruleInstances.getStoredRuleInstance(id);
          if (!existing) throw notFound('RULE_INSTANCE_NOT_FOUND', 'rule instance');
          return buildLimited(input, existing, id);
        },
        auditOf(actor, 'UPDATE'),
      );
    },

    async ensureRuleInstance(id, input, options) {
      assertId(id, 'rule instance id');
      const actor = actorOf(options);
      // Built as a creation, before the writer gate: the wanted instance whatever is stored, so a
      // field the request leaves out goes back to its default rather than keeping a stored value.
      const wanted = buildLimited(input, null, id);
      let existed = false;
      const { instance, written } = await instances.ensure(
        id,
        async (existing, repos) => {
          existed = existing !== null;
          if (existing === null) {
            // A deleted instance's versions stay: one made again with its id continues them.
            const [latest] = await repos.ruleInstances.listRuleInstanceVersions(id);
            return latest === undefined ? wanted : { ...wanted, instance: { ...wanted.instance, version: (latest.version ?? 0) + 1 } };
          }
          if (configurationOf(existing) === configurationOf(wanted)) return null;
          return {
            instance: { ...wanted.instance, createdAt: existing.instance.createdAt, version: (existing.instance.version ?? 0) + 1 },
            derived: wanted.derived,
          };
        },
        (before, after) => auditOf(actor, before === null ? 'CREATE' : 'UPDATE')(before, after),
      );
      return { instance, change: !written ? 'UNCHANGED' : existed ? 'UPDATED' : 'CREATED' };
    },

    async deleteRuleInstance(id, options) {
      assertId(id, 'rule instance id');
      const actor = actorOf(options);
      if (!(await instances.remove(id, auditOf(actor, 'DELETE')))) throw notFound('RULE_INSTANCE_NOT_FOUND', 'rule instance');
    },

    async getRuleInstanceVersions(id) {
      assertId(id, 'rule instance id');
      const versions = await repos.ruleInstances.listRuleInstanceVersions(id);
      if (versions.length === 0) throw notFound('RULE_INSTANCE_NOT_FOUND', 'rule instance');
      return cloneJson(versions);
    },

    async listRules() {
      return registry.list().map((r) => registry.view(r));
    },

    async getRule(ruleId) {
      assertId(ruleId, 'ruleId');
      const rule = registry.find(ruleId);
      if (!rule) throw notFound('RULE_NOT_FOUND', 'rule');
      return registry.view(rule);
    },

    async getRuleFiltersSchema() {
      return getRuleFiltersSchemaJson();
    },
  };
}
