/**
 * The audit entries of `txmon/postgres` commit with the change they record: when the audit insert
 * fails (a store fault, raised here by a trigger), the change is not stored either — on PGlite and
 * on PostgreSQL, inside the engine's units and outside them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createPostgresRepositories } from '../../src/postgres/index.js';
import { fixedClock, sequentialIds, T0 } from '../helpers.js';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from '../../src/postgres/index.js';
import { buildStoredRuleInstance } from '../../src/testing/fixtures.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

const targets: { name: string; open: () => Promise<TestDatabase> }[] = [
  { name: 'PGlite', open: pgliteDatabase },
  { name: 'PostgreSQL', open: postgresDatabase },
];

for (const target of targets) {
  describe(`the audit log on ${target.name}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db.close();
    });

    /** An engine on a fresh database whose audit inserts fail while `failing` holds. */
    async function engineWithFailingAudit(): Promise<{ engine: Engine; fail(on: boolean): Promise<void> }> {
      const repositories = await db.fresh();
      await db.client.query(`CREATE TABLE IF NOT EXISTS audit_fault (on_ boolean NOT NULL)`);
      await db.client.query(`DELETE FROM audit_fault`);
      await db.client.query(`CREATE OR REPLACE FUNCTION audit_fault_raise() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM audit_fault WHERE on_) THEN RAISE EXCEPTION 'audit store down' USING ERRCODE = '08006'; END IF;
          RETURN NEW;
        END $$`);
      await db.client.query(`DROP TRIGGER IF EXISTS audit_fault_trigger ON txmon_audit_log`);
      await db.client.query(`CREATE TRIGGER audit_fault_trigger BEFORE INSERT ON txmon_audit_log FOR EACH ROW EXECUTE FUNCTION audit_fault_raise()`);
      const engine = createEngine({ repositories, clock: fixedClock(), ids: sequentialIds() });
      return {
        engine,
        async fail(on) {
          await db.client.query(`DELETE FROM audit_fault`);
          if (on) await db.client.query(`INSERT INTO audit_fault VALUES (true)`);
        },
      };
    }

    it('a failing audit insert stores none of the change: rule instance (and its version), list, user, user event, comment', async () => {
      const { engine, fail } = await engineWithFailingAudit();
      await engine.createUser({ userId: 'u-1', createdTimestamp: T0 });
      const kept = await engine.createRuleInstance({ ruleId: 'R-1' });
      await engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a'] });
      await fail(true);
      const refused = [
        () => engine.createRuleInstance({ ruleId: 'R-2' }),
        () => engine.updateRuleInstance(kept.id, { status: 'INACTIVE' }),
        () => engine.deleteRuleInstance(kept.id),
        () => engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a', 'b'] }),
        () => engine.putList('l-2', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] }),
        () => engine.deleteList('l-1'),
        () => engine.createUser({ userId: 'u-2', createdTimestamp: T0 }),
        () => engine.createUser({ userId: 'u-1', createdTimestamp: T0, userDetails: { countryOfResidence: 'DE' } }),
        () =>
          engine.createConsumerUserEvent({
            userId: 'u-1',
            eventId: 'ue-1',
            timestamp: T0 + 1,
            updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'FR' } },
          }),
        () => engine.createUserComment('u-1', { body: 'x' }),
      ];
      for (const [i, call] of refused.entries()) await expect(call(), `call ${i}`).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await fail(false);
      expect((await engine.listRuleInstances()).map((i) => [i.id, i.status, i.version])).toEqual([[kept.id, 'ACTIVE', 1]]);
      expect((await engine.getRuleInstanceVersions(kept.id)).map((v) => v.version)).toEqual([1]);
      expect((await engine.getList('l-1')).items).toEqual(['a']);
      await expect(engine.getList('l-2')).rejects.toMatchObject({ code: 'LIST_NOT_FOUND' });
      await expect(engine.getUser('u-2')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
      expect(await engine.getUser('u-1')).not.toHaveProperty('userDetails');
      await expect(engine.getConsumerUserEvent('ue-1')).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
      expect((await engine.listAuditLog()).items.map((e) => `${e.entityType} ${e.action}`)).toEqual(['USER CREATE', 'RULE_INSTANCE CREATE', 'LIST CREATE']);
      // The store serves again, in order.
      await engine.putList('l-2', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] });
      expect((await engine.listAuditLog({ sortOrder: 'descend', pageSize: 1 })).items[0]).toMatchObject({ entityId: 'l-2', action: 'CREATE' });
    });

    it('pages read while several engines write never skip nor repeat an entry (entries are numbered in commit order)', async () => {
      const repositories = await db.fresh();
      const engines = [0, 1, 2].map(() => createEngine({ repositories: createPostgresRepositories({ client: db.client }) }));
      const reader = createEngine({ repositories });
      let writing = true;
      const writers = Promise.all(
        engines.map(async (engine, e) => {
          for (let i = 0; i < 25; i++) await engine.putList(`l-${e}-${i}`, { listType: 'BLACKLIST', subtype: 'USER_ID', items: [`${i}`] });
        }),
      ).finally(() => {
        writing = false;
      });
      const seen: string[] = [];
      let start: string | undefined;
      for (;;) {
        const done = !writing;
        const page = await reader.listAuditLog({ pageSize: 7, ...(start === undefined ? {} : { start }) });
        seen.push(...page.items.map((item) => item.entityId));
        start = page.next;
        if (done && !page.hasNext) break;
      }
      await writers;
      const all: string[] = [];
      for (let page = await reader.listAuditLog({ pageSize: 100 }); ; page = await reader.listAuditLog({ pageSize: 100, start: page.next })) {
        all.push(...page.items.map((item) => item.entityId));
        if (!page.hasNext) break;
      }
      expect(all).toHaveLength(75);
      expect(seen).toEqual(all);
    });
  });
}

describe('migration 10 on a database of schema 9', () => {
  it('makes every stored instance version 1, with its version kept, and starts the audit log empty', async () => {
    const client = new PGlite();
    try {
      await migrate(client);
      // Back to the schema before migration 10, with an instance stored then (no version).
      await client.exec(`DROP TABLE txmon_rule_instance_versions; DROP TABLE txmon_audit_log;
        DROP TABLE txmon_outbox; DROP TABLE txmon_outbox_consumers; DROP TABLE txmon_outbox_dead_letters; DROP TABLE txmon_result_parts;
        DELETE FROM txmon_meta WHERE name IN ('audit_seq', 'outbox_seq'); DELETE FROM txmon_migrations WHERE version >= 10;`);
      const { version: _version, ...old } = buildStoredRuleInstance('ri-old').instance;
      await client.query('INSERT INTO txmon_rule_instances (id, stored) VALUES ($1, $2::jsonb)', [
        'ri-old',
        JSON.stringify({ instance: old, derived: { riskLevelParameters: true, riskLevelActions: true, riskLevelsTriggersOnHit: true } }),
      ]);
      expect((await migrate(client)).applied).toEqual([10, 11, 12, 13, 14]);
      const engine = createEngine({ repositories: createPostgresRepositories({ client }), clock: fixedClock(), ids: sequentialIds() });
      expect((await engine.getRuleInstance('ri-old')).version).toBe(1);
      expect((await engine.getRuleInstanceVersions('ri-old')).map((v) => v.version)).toEqual([1]);
      expect((await engine.updateRuleInstance('ri-old', { status: 'INACTIVE' })).version).toBe(2);
      expect((await engine.listAuditLog()).items.map((e) => [e.entityId, e.action])).toEqual([['ri-old', 'UPDATE']]);
    } finally {
      await client.close();
    }
  });
});
