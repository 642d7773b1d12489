/**
 * The schema of `txmon/postgres`, as numbered migrations applied once each. `migrate` is safe to
 * run from several processes at once: they take turns on an advisory lock, and each migration is
 * recorded in the same transaction that applies it.
 */
import { databaseOf, quoteIdentifier, type PostgresClient } from './client.js';

/**
 * Migration 3: a unit of work in few round trips and few statements. `txmon_unit_start` takes a
 * unit's locks and then reads what the unit reads first; `txmon_window_aggregates` answers the
 * common windowed aggregates; `txmon_outcome_reads` reads what the alert and user policies need;
 * `txmon_save_outcome` writes a whole transaction outcome from one JSON document. Their statements
 * run with generic plans (planned once per session: a custom plan per call, the default for
 * statements with parameters, costs more than it saves here), and each read runs in a snapshot
 * taken after the locks before it are held. Run and hit counters move to per-unit shards, so
 * concurrent units never wait on each other's counter rows.
 */
const UNIT_FUNCTIONS_SQL = `
-- A transaction's body and latest result are stored only when they differ from their source: the
-- body and result of its current event (the last one saved with it), or, before any event, its
-- request and create result. NULL means "as the source"; readers coalesce.
ALTER TABLE txmon_transactions ADD COLUMN current_event_id text;
ALTER TABLE txmon_transactions ALTER COLUMN body DROP NOT NULL;
ALTER TABLE txmon_transactions ALTER COLUMN latest_result DROP NOT NULL;
-- Documents stored and returned whole, never looked into by SQL, are json (text kept as written:
-- no conversion to and from jsonb's binary form on every write and read).
ALTER TABLE txmon_transactions ALTER COLUMN body TYPE json, ALTER COLUMN request TYPE json,
  ALTER COLUMN create_result TYPE json, ALTER COLUMN latest_result TYPE json;
ALTER TABLE txmon_events ALTER COLUMN event TYPE json, ALTER COLUMN body TYPE json, ALTER COLUMN result TYPE json;
-- A row of a transaction or an event carries a result of ~5 kB (the executed rules): compressed,
-- it stays in the row (up to 4 kB after compression) instead of moving to the TOAST table (one
-- more heap and index insert per write, one more index probe per read).
ALTER TABLE txmon_transactions SET (toast_tuple_target = 4080);
ALTER TABLE txmon_events SET (toast_tuple_target = 4080);
-- Documents over ~2 kB are compressed with lz4 where the server has it (several times cheaper
-- than the default pglz in CPU, both ways); PGlite has not.
DO $$
BEGIN
  ALTER TABLE txmon_transactions ALTER COLUMN body SET COMPRESSION lz4, ALTER COLUMN request SET COMPRESSION lz4,
    ALTER COLUMN create_result SET COMPRESSION lz4, ALTER COLUMN latest_result SET COMPRESSION lz4;
  ALTER TABLE txmon_events ALTER COLUMN event SET COMPRESSION lz4, ALTER COLUMN body SET COMPRESSION lz4, ALTER COLUMN result SET COMPRESSION lz4;
  ALTER TABLE txmon_alerts ALTER COLUMN alert SET COMPRESSION lz4;
  ALTER TABLE txmon_users ALTER COLUMN record SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- Run and hit counts of the rule instances, added to shards: a unit claims a shard no other open
-- database transaction holds (a try-lock, so it never waits) and adds its counts to that shard's
-- one row: the counts of each instance seq, as three aligned arrays (in the order the shard first
-- counted each seq). Reads add the shards to the instance's own columns. Counts belong to an
-- instance's seq, one incarnation of an id (a deleted and re-created instance starts at zero).
CREATE TABLE txmon_instance_counters (
  shard integer PRIMARY KEY,
  seqs bigint[] NOT NULL,
  runs bigint[] NOT NULL,
  hits bigint[] NOT NULL
);

-- The counter shard of the current database transaction: the first of 64, from one chosen by the
-- backend, that no other transaction holds (held until commit). With more than 64 transactions at
-- once the backend's own shard is shared: the later transaction then waits for the earlier one.
CREATE FUNCTION txmon_counter_shard() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  shards CONSTANT integer := 64;
  first integer := pg_backend_pid() % shards;
BEGIN
  FOR i IN 0 .. shards - 1 LOOP
    IF pg_try_advisory_xact_lock(7340271, (first + i) % shards) THEN
      RETURN (first + i) % shards;
    END IF;
  END LOOP;
  RETURN first;
END $$;

-- Takes a unit's locks, as txmon_lock does (the shared ones, then the exclusive ones in ascending
-- order of their 64-bit keys) in one statement, then reads: the rule-instance revision ('r'), the
-- transaction ('t'), the event ('e') and the users ('u').
CREATE FUNCTION txmon_unit_start(p_shared text[], p_exclusive text[], p_transaction_id text, p_event_id text, p_user_ids text[])
RETURNS TABLE (r_kind text, r_id text, r_n1 bigint, r_n2 bigint, r_ts double precision, r_flag boolean, r_d1 json, r_d2 json, r_d3 json, r_d4 json)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM CASE WHEN k.shared THEN pg_advisory_xact_lock_shared(k.h) ELSE pg_advisory_xact_lock(k.h) END
    FROM (SELECT true AS shared, hashtextextended(n, 0) AS h FROM unnest(p_shared) AS n
          UNION SELECT false, hashtextextended(n, 0) FROM unnest(p_exclusive) AS n
          ORDER BY 1 DESC, 2) AS k;
  RETURN QUERY
    SELECT 'r'::text, NULL::text, m.value, NULL::bigint, NULL::double precision, NULL::boolean, NULL::json, NULL::json, NULL::json, NULL::json
      FROM txmon_meta m WHERE m.name = 'rule_instance_revision'
    UNION ALL
    SELECT 't', t.transaction_id, t.version::bigint, t.event_count::bigint, t.last_event_timestamp, NULL,
        coalesce(t.body, c.body, t.request), t.request, t.create_result, coalesce(t.latest_result, c.result, t.create_result)
      FROM txmon_transactions t LEFT JOIN txmon_events c ON c.event_id = t.current_event_id WHERE t.transaction_id = p_transaction_id
    UNION ALL
    SELECT 'e', e.event_id, e.arrival::bigint, NULL, NULL, e.client_event_id, e.event, e.body, e.result, to_json(e.transaction_id)
      FROM txmon_events e WHERE e.event_id = p_event_id
    UNION ALL
    SELECT 'u', u.user_id, NULL, NULL, NULL, NULL, u.record::json, NULL, NULL, NULL
      FROM txmon_users u WHERE u.user_id = ANY(p_user_ids);
END $$;

-- The common aggregates of windows (series, key, start, end, excluded id), one index range scan
-- each: count, sum, count of amounts, min, max and latest timestamp, as text (exact). Timestamps
-- come as text ('-Infinity' included).
CREATE FUNCTION txmon_window_aggregates(p_series text[], p_keys text[], p_starts text[], p_ends text[], p_excludes text[])
RETURNS TABLE (i integer, n text, s text, c text, lo text, hi text, l text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
    SELECT q.i::integer, a.n::text, a.s::text, a.c::text, a.lo::text, a.hi::text, a.l::text
      FROM unnest(p_series, p_keys, p_starts, p_ends, p_excludes) WITH ORDINALITY AS q(series, key, lo_ts, hi_ts, exclude, i)
      CROSS JOIN LATERAL (
        SELECT count(*) AS n, coalesce(sum(e.amount), 0) AS s, count(e.amount) AS c, min(e.amount) AS lo, max(e.amount) AS hi, max(e.ts) AS l
          FROM txmon_series_entries e
          WHERE e.series = q.series AND e.key = q.key AND e.ts >= q.lo_ts::double precision AND e.ts <= q.hi_ts::double precision
            AND (q.exclude IS NULL OR e.id <> q.exclude)
      ) AS a;
END $$;

-- What the alert and user policies of one outcome read, after locking each user they touch (keys
-- 'txmon:outcome:<user id>', so concurrent outcomes of a user decide one after the other, also
-- outside the engine's units): the last alert of each (instance, user) pair ('a'), the last case
-- of each user ('c'), and the records of the users to update ('u'). One index probe per pair and
-- per user (LATERAL … LIMIT 1), whatever the size of the tables.
CREATE FUNCTION txmon_outcome_reads(p_locked_users text[], p_alert_instances text[], p_alert_users text[], p_case_users text[], p_update_users text[])
RETURNS TABLE (r_kind text, r_instance_id text, r_user_id text, r_doc jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(k.h)
    FROM (SELECT DISTINCT hashtextextended('txmon:outcome:' || u, 0) AS h FROM unnest(p_locked_users) AS u ORDER BY 1) AS k;
  RETURN QUERY
    SELECT 'a'::text, p.instance_id, p.user_id, a.alert
      FROM unnest(p_alert_instances, p_alert_users) AS p(instance_id, user_id)
      CROSS JOIN LATERAL (SELECT x.alert FROM txmon_alerts x WHERE x.instance_id = p.instance_id AND x.user_id = p.user_id ORDER BY x.seq DESC LIMIT 1) AS a
    UNION ALL
    SELECT 'c'::text, NULL::text, p.user_id, c."case"
      FROM unnest(p_case_users) AS p(user_id)
      CROSS JOIN LATERAL (SELECT x."case" FROM txmon_cases x WHERE x.user_id = p.user_id ORDER BY x.seq DESC LIMIT 1) AS c
    UNION ALL
    SELECT 'u'::text, NULL::text, u.user_id, u.record FROM txmon_users u WHERE u.user_id = ANY(p_update_users);
END $$;

-- Writes a whole transaction outcome (the document of saveOutcome in repositories.ts, and the
-- stored documents beside it): the transaction (version-checked) and its event, the series
-- entries, the counters, the alerts and cases, and the users. On an update, a NULL request or
-- create result is the one stored. SQLSTATE TX409 when the transaction's version or the event id
-- was taken meanwhile; nothing is written then (the unit rolls back).
CREATE FUNCTION txmon_save_outcome(doc jsonb, p_body json, p_request json, p_create_result json, p_latest_result json,
  p_event json, p_event_body json, p_event_result json)
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  t jsonb := doc->'transaction';
  e jsonb := doc->'event';
  a jsonb := doc->'alerts';
  r jsonb;
  written integer;
  v_shard integer;
  v_seqs bigint[];
  v_runs bigint[];
  v_hits bigint[];
  v_at integer;
  v_count record;
BEGIN
  IF jsonb_typeof(doc->'expectedVersion') = 'number' THEN
    UPDATE txmon_transactions SET version = (t->>'version')::integer, event_count = (t->>'eventCount')::integer,
        last_event_timestamp = (t->>'lastEventTimestamp')::double precision, current_event_id = t->>'currentEventId', body = p_body,
        request = coalesce(p_request, request), create_result = coalesce(p_create_result, create_result), latest_result = p_latest_result
      WHERE transaction_id = t->>'id' AND version = (doc->>'expectedVersion')::integer;
  ELSE
    INSERT INTO txmon_transactions (transaction_id, version, event_count, last_event_timestamp, current_event_id, body, request, create_result, latest_result)
      VALUES (t->>'id', (t->>'version')::integer, (t->>'eventCount')::integer, (t->>'lastEventTimestamp')::double precision,
        t->>'currentEventId', p_body, p_request, p_create_result, p_latest_result)
      ON CONFLICT (transaction_id) DO NOTHING;
  END IF;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written = 0 THEN
    RAISE EXCEPTION 'transaction' USING ERRCODE = 'TX409';
  END IF;
  IF jsonb_typeof(e) = 'object' THEN
    INSERT INTO txmon_events (event_id, transaction_id, arrival, client_event_id, event, body, result)
      VALUES (e->>'eventId', e->>'transactionId', (e->>'arrival')::integer, (e->>'clientEventId')::boolean, p_event, p_event_body, p_event_result)
      ON CONFLICT (event_id) DO NOTHING;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written = 0 THEN
      RAISE EXCEPTION 'event id' USING ERRCODE = 'TX409';
    END IF;
  END IF;

  -- One primary-key delete per entry (a join could choose to scan the whole table).
  IF jsonb_array_length(doc->'remove') > 0 THEN
    FOR r IN SELECT x.value FROM jsonb_array_elements(doc->'remove') AS x LOOP
      DELETE FROM txmon_series_entries WHERE series = r->>0 AND key = r->>1 AND id = r->>2;
    END LOOP;
  END IF;
  IF jsonb_array_length(doc->'add') > 0 THEN
    INSERT INTO txmon_series_entries (series, key, id, ts, amount, vals)
      SELECT x->>0, x->>1, x->>2, (x->>3)::double precision, (x->>4)::numeric, nullif(x->5, 'null'::jsonb) FROM jsonb_array_elements(doc->'add') AS x
      ON CONFLICT (series, key, id) DO UPDATE SET ts = excluded.ts, amount = excluded.amount, vals = excluded.vals;
  END IF;

  -- The counts of the instances that exist, added to this transaction's shard (one row, read and
  -- written once; the arrays are changed in place in between).
  IF jsonb_array_length(doc->'counters') > 0 THEN
    v_shard := txmon_counter_shard();
    -- FOR UPDATE: a shard shared past 64 transactions at once is read after the other's commit.
    SELECT k.seqs, k.runs, k.hits INTO v_seqs, v_runs, v_hits FROM txmon_instance_counters k WHERE k.shard = v_shard FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO txmon_instance_counters (shard, seqs, runs, hits) VALUES (v_shard, '{}', '{}', '{}') ON CONFLICT (shard) DO NOTHING;
      SELECT k.seqs, k.runs, k.hits INTO v_seqs, v_runs, v_hits FROM txmon_instance_counters k WHERE k.shard = v_shard FOR UPDATE;
    END IF;
    FOR v_count IN SELECT i.seq, (x->>1)::bigint AS runs, (x->>2)::bigint AS hits
               FROM jsonb_array_elements(doc->'counters') AS x JOIN txmon_rule_instances i ON i.id = x->>0 LOOP
      v_at := array_position(v_seqs, v_count.seq);
      IF v_at IS NULL THEN
        v_seqs := v_seqs || v_count.seq;
        v_runs := v_runs || v_count.runs;
        v_hits := v_hits || v_count.hits;
      ELSE
        v_runs[v_at] := v_runs[v_at] + v_count.runs;
        v_hits[v_at] := v_hits[v_at] + v_count.hits;
      END IF;
    END LOOP;
    UPDATE txmon_instance_counters SET seqs = v_seqs, runs = v_runs, hits = v_hits WHERE shard = v_shard;
  END IF;

  -- Alerts and cases, as decided in order by the case policy and folded per row (see alertWritesOf).
  IF jsonb_typeof(a) = 'object' THEN
    WITH
      new_cases AS (INSERT INTO txmon_cases (case_id, user_id, "case")
        SELECT y.x->>0, y.x->>1, y.x->2 FROM jsonb_array_elements(a->'newCases') WITH ORDINALITY AS y(x, n) ORDER BY y.n),
      case_updates AS (UPDATE txmon_cases c SET "case" = c."case" || (a->'casePatches'->c.case_id)
        WHERE c.case_id = ANY(ARRAY(SELECT jsonb_object_keys(a->'casePatches')))),
      case_alerts AS (INSERT INTO txmon_case_alerts (case_id, alert_id)
        SELECT y.x->>0, y.x->>1 FROM jsonb_array_elements(a->'caseAlerts') WITH ORDINALITY AS y(x, n) ORDER BY y.n),
      new_alerts AS (INSERT INTO txmon_alerts (alert_id, instance_id, user_id, alert)
        SELECT y.x->>0, y.x->>1, y.x->>2, y.x->3 FROM jsonb_array_elements(a->'newAlerts') WITH ORDINALITY AS y(x, n) ORDER BY y.n),
      alert_updates AS (UPDATE txmon_alerts t SET alert = jsonb_set(t.alert, '{updatedAt}', a->'alertUpdates'->t.alert_id)
        WHERE t.alert_id = ANY(ARRAY(SELECT jsonb_object_keys(a->'alertUpdates'))))
    INSERT INTO txmon_alert_transactions (alert_id, transaction_id)
      SELECT y.x->>0, y.x->>1 FROM jsonb_array_elements(a->'alertTransactions') WITH ORDINALITY AS y(x, n) ORDER BY y.n
      ON CONFLICT DO NOTHING;
  END IF;

  IF jsonb_array_length(doc->'seen') > 0 THEN
    INSERT INTO txmon_users (user_id, record) SELECT u->>0, u->1 FROM jsonb_array_elements(doc->'seen') AS u ON CONFLICT (user_id) DO NOTHING;
  END IF;
  IF jsonb_array_length(doc->'users') > 0 THEN
    INSERT INTO txmon_users (user_id, record) SELECT u->>0, u->1 FROM jsonb_array_elements(doc->'users') AS u
      ON CONFLICT (user_id) DO UPDATE SET record = excluded.record;
  END IF;
END $$;
`;

/**
 * Migration 4: cases that hold several users (case grouping `COUNTERPARTIES`). The case a user
 * last opened or joined is the case of its latest alert — a case opens with an alert of its user,
 * and every new alert joins its user's case or a counterparty's — so `txmon_outcome_reads` finds
 * it through a new index of alerts by user instead of the case's own user. A case shared by users
 * can be changed by outcomes of different users at once, so each case read is also locked (after
 * the users, in key order: no outcome waits for a user while holding a case).
 */
const CASE_GROUPING_SQL = `
CREATE INDEX txmon_alerts_by_user ON txmon_alerts (user_id, seq DESC);

CREATE OR REPLACE FUNCTION txmon_outcome_reads(p_locked_users text[], p_alert_instances text[], p_alert_users text[], p_case_users text[], p_update_users text[])
RETURNS TABLE (r_kind text, r_instance_id text, r_user_id text, r_doc jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(k.h)
    FROM (SELECT DISTINCT hashtextextended('txmon:outcome:' || u, 0) AS h FROM unnest(p_locked_users) AS u ORDER BY 1) AS k;
  -- The users' latest alerts cannot change now (their outcomes hold the locks above): lock their cases.
  PERFORM pg_advisory_xact_lock(k.h)
    FROM (SELECT DISTINCT hashtextextended('txmon:case:' || (a.alert->>'caseId'), 0) AS h
            FROM unnest(p_case_users) AS p(user_id)
            CROSS JOIN LATERAL (SELECT x.alert FROM txmon_alerts x WHERE x.user_id = p.user_id ORDER BY x.seq DESC LIMIT 1) AS a
          ORDER BY 1) AS k;
  RETURN QUERY
    SELECT 'a'::text, p.instance_id, p.user_id, a.alert
      FROM unnest(p_alert_instances, p_alert_users) AS p(instance_id, user_id)
      CROSS JOIN LATERAL (SELECT x.alert FROM txmon_alerts x WHERE x.instance_id = p.instance_id AND x.user_id = p.user_id ORDER BY x.seq DESC LIMIT 1) AS a
    UNION ALL
    SELECT 'c'::text, NULL::text, p.user_id, c."case"
      FROM unnest(p_case_users) AS p(user_id)
      CROSS JOIN LATERAL (SELECT x.alert->>'caseId' AS case_id FROM txmon_alerts x WHERE x.user_id = p.user_id ORDER BY x.seq DESC LIMIT 1) AS a
      JOIN txmon_cases c ON c.case_id = a.case_id
    UNION ALL
    SELECT 'u'::text, NULL::text, u.user_id, u.record FROM txmon_users u WHERE u.user_id = ANY(p_update_users);
END $$;
`;

/**
 * Migration 7: a batch's chunk written set-based. What an outcome writes besides its transaction
 * and event (series entries, counters, alerts and cases, users) moves to `txmon_save_effects`,
 * which `txmon_save_outcome` calls for one outcome and `txmon_save_creations` for the merged
 * effects of a chunk's creations, after inserting all its transactions in one statement.
 */
const CHUNK_WRITES_SQL = `
-- What an outcome document writes besides the transaction and its event: the series entries
-- removed and added, the counters, the alerts and cases, the users seen and updated.
CREATE FUNCTION txmon_save_effects(doc jsonb)
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  a jsonb := doc->'alerts';
  r jsonb;
  v_shard integer;
  v_seqs bigint[];
  v_runs bigint[];
  v_hits bigint[];
  v_at integer;
  v_count record;
BEGIN
  -- One primary-key delete per entry (a join could choose to scan the whole table).
  IF jsonb_array_length(doc->'remove') > 0 THEN
    FOR r IN SELECT x.value FROM jsonb_array_elements(doc->'remove') AS x LOOP
      DELETE FROM txmon_series_entries WHERE series = r->>0 AND key = r->>1 AND id = r->>2;
    END LOOP;
  END IF;
  IF jsonb_array_length(doc->'add') > 0 THEN
    INSERT INTO txmon_series_entries (series, key, id, ts, amount, vals)
      SELECT x->>0, x->>1, x->>2, (x->>3)::double precision, (x->>4)::numeric, nullif(x->5, 'null'::jsonb) FROM jsonb_array_elements(doc->'add') AS x
      ON CONFLICT (series, key, id) DO UPDATE SET ts = excluded.ts, amount = excluded.amount, vals = excluded.vals;
  END IF;

  -- The counts of the instances that exist, added to this transaction's shard (one row, read and
  -- written once; the arrays are changed in place in between).
  IF jsonb_array_length(doc->'counters') > 0 THEN
    v_shard := txmon_counter_shard();
    -- FOR UPDATE: a shard shared past 64 transactions at once is read after the other's commit.
    SELECT k.seqs, k.runs, k.hits INTO v_seqs, v_runs, v_hits FROM txmon_instance_counters k WHERE k.shard = v_shard FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO txmon_instance_counters (shard, seqs, runs, hits) VALUES (v_shard, '{}', '{}', '{}') ON CONFLICT (shard) DO NOTHING;
      SELECT k.seqs, k.runs, k.hits INTO v_seqs, v_runs, v_hits FROM txmon_instance_counters k WHERE k.shard = v_shard FOR UPDATE;
    END IF;
    FOR v_count IN SELECT i.seq, (x->>1)::bigint AS runs, (x->>2)::bigint AS hits
               FROM jsonb_array_elements(doc->'counters') AS x JOIN txmon_rule_instances i ON i.id = x->>0 LOOP
      v_at := array_position(v_seqs, v_count.seq);
      IF v_at IS NULL THEN
        v_seqs := v_seqs || v_count.seq;
        v_runs := v_runs || v_count.runs;
        v_hits := v_hits || v_count.hits;
      ELSE
        v_runs[v_at] := v_runs[v_at] + v_count.runs;
        v_hits[v_at] := v_hits[v_at] + v_count.hits;
      END IF;
    END LOOP;
    UPDATE txmon_instance_counters SET seqs = v_seqs, runs = v_runs, hits = v_hits WHERE shard = v_shard;
  END IF;

  -- Alerts and cases, as decided in order by the case policy and folded per row (see alertWritesOf).
  IF jsonb_typeof(a) = 'object' THEN
    WITH
      new_cases AS (INSERT INTO txmon_cases (case_id, user_id, "case")
        SELECT y.x->>0, y.x->>1, y.x->2 FROM jsonb_array_elements(a->'newCases') WITH ORDINALITY AS y(x, n) ORDER BY y.n),
      case_updates AS (UPDATE txmon_cases c SET "case" = c."case" || (a->'casePatches'->c.case_id)
        WHERE c.case_id = ANY(ARRAY(SELECT jsonb_object_keys(a->'casePatches')))),
      case_alerts AS (INSERT INTO txmon_case_alerts (case_id, alert_id)
        SELECT y.x->>0, y.x->>1 FROM jsonb_array_elements(a->'caseAlerts') WITH ORDINALITY AS y(x, n) ORDER BY y.n),
      new_alerts AS (INSERT INTO txmon_alerts (alert_id, instance_id, user_id, alert)
        SELECT y.x->>0, y.x->>1, y.x->>2, y.x->3 FROM jsonb_array_elements(a->'newAlerts') WITH ORDINALITY AS y(x, n) ORDER BY y.n),
      alert_updates AS (UPDATE txmon_alerts t SET alert = jsonb_set(t.alert, '{updatedAt}', a->'alertUpdates'->t.alert_id)
        WHERE t.alert_id = ANY(ARRAY(SELECT jsonb_object_keys(a->'alertUpdates'))))
    INSERT INTO txmon_alert_transactions (alert_id, transaction_id)
      SELECT y.x->>0, y.x->>1 FROM jsonb_array_elements(a->'alertTransactions') WITH ORDINALITY AS y(x, n) ORDER BY y.n
      ON CONFLICT DO NOTHING;
  END IF;

  IF jsonb_array_length(doc->'seen') > 0 THEN
    INSERT INTO txmon_users (user_id, record) SELECT u->>0, u->1 FROM jsonb_array_elements(doc->'seen') AS u ON CONFLICT (user_id) DO NOTHING;
  END IF;
  IF jsonb_array_length(doc->'users') > 0 THEN
    INSERT INTO txmon_users (user_id, record) SELECT u->>0, u->1 FROM jsonb_array_elements(doc->'users') AS u
      ON CONFLICT (user_id) DO UPDATE SET record = excluded.record;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION txmon_save_outcome(doc jsonb, p_body json, p_request json, p_create_result json, p_latest_result json,
  p_event json, p_event_body json, p_event_result json)
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  t jsonb := doc->'transaction';
  e jsonb := doc->'event';
  written integer;
BEGIN
  IF jsonb_typeof(doc->'expectedVersion') = 'number' THEN
    UPDATE txmon_transactions SET version = (t->>'version')::integer, event_count = (t->>'eventCount')::integer,
        last_event_timestamp = (t->>'lastEventTimestamp')::double precision, current_event_id = t->>'currentEventId', body = p_body,
        request = coalesce(p_request, request), create_result = coalesce(p_create_result, create_result), latest_result = p_latest_result
      WHERE transaction_id = t->>'id' AND version = (doc->>'expectedVersion')::integer;
  ELSE
    INSERT INTO txmon_transactions (transaction_id, version, event_count, last_event_timestamp, current_event_id, body, request, create_result, latest_result)
      VALUES (t->>'id', (t->>'version')::integer, (t->>'eventCount')::integer, (t->>'lastEventTimestamp')::double precision,
        t->>'currentEventId', p_body, p_request, p_create_result, p_latest_result)
      ON CONFLICT (transaction_id) DO NOTHING;
  END IF;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written = 0 THEN
    RAISE EXCEPTION 'transaction' USING ERRCODE = 'TX409';
  END IF;
  IF jsonb_typeof(e) = 'object' THEN
    INSERT INTO txmon_events (event_id, transaction_id, arrival, client_event_id, event, body, result)
      VALUES (e->>'eventId', e->>'transactionId', (e->>'arrival')::integer, (e->>'clientEventId')::boolean, p_event, p_event_body, p_event_result)
      ON CONFLICT (event_id) DO NOTHING;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written = 0 THEN
      RAISE EXCEPTION 'event id' USING ERRCODE = 'TX409';
    END IF;
  END IF;

  PERFORM txmon_save_effects(doc);
END $$;

-- Creates the transactions of a batch's chunk (each new: version 1, no event) in one statement,
-- in the order given, then writes the chunk's merged effects (decided by saveCreations in
-- outcome.ts). A NULL body or latest result is "as the request" / "as the create result".
-- SQLSTATE TX409 when one of the transactions exists; nothing is written then.
-- One json array per column, aligned (each parsed once; each document's text kept as sent); a null
-- body or latest result is "as the request" / "as the create result".
CREATE FUNCTION txmon_save_creations(doc jsonb, p_ids json, p_bodies json, p_requests json, p_create_results json, p_latest_results json)
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  written integer;
BEGIN
  INSERT INTO txmon_transactions (transaction_id, version, event_count, last_event_timestamp, current_event_id, body, request, create_result, latest_result)
    SELECT x.id, 1, 0, NULL, NULL, CASE WHEN json_typeof(x.body) = 'null' THEN NULL ELSE x.body END,
        x.request, x.create_result, CASE WHEN json_typeof(x.latest_result) = 'null' THEN NULL ELSE x.latest_result END
      FROM ROWS FROM (json_array_elements_text(p_ids), json_array_elements(p_bodies), json_array_elements(p_requests),
          json_array_elements(p_create_results), json_array_elements(p_latest_results)) WITH ORDINALITY AS x(id, body, request, create_result, latest_result, n)
      ORDER BY x.n
    ON CONFLICT (transaction_id) DO NOTHING;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written <> json_array_length(p_ids) THEN
    RAISE EXCEPTION 'transaction' USING ERRCODE = 'TX409';
  END IF;
  -- The entries of new transactions: none of them is stored yet (an entry is written with its
  -- transaction), so a plain insert, without the upsert's extra probe per row.
  INSERT INTO txmon_series_entries (series, key, id, ts, amount, vals)
    SELECT x->>0, x->>1, x->>2, (x->>3)::double precision, (x->>4)::numeric, nullif(x->5, 'null'::jsonb) FROM jsonb_array_elements(doc->'new') AS x;
  PERFORM txmon_save_effects(doc);
END $$;
`;

/**
 * Migration 9: the decision log (domain/decision-log.ts), one hash chain per schema. The head row
 * is locked by each append until its transaction commits, so the appends of all processes form one
 * chain in commit order; entry texts are built here, where the position is known, exactly as
 * `entryText` builds them, and hashed with PostgreSQL's own SHA-256.
 */
const DECISION_LOG_SQL = `
CREATE TABLE txmon_decisions (
  seq bigint PRIMARY KEY,
  prev text NOT NULL,
  entry text NOT NULL,
  hash text NOT NULL
);
CREATE TABLE txmon_decision_head (
  id integer PRIMARY KEY CHECK (id = 1),
  seq bigint NOT NULL,
  hash text NOT NULL
);
INSERT INTO txmon_decision_head (id, seq, hash) VALUES (1, 0, repeat('0', 64));

-- Appends the decisions' canonical texts, in order, after the head.
CREATE FUNCTION txmon_append_decisions(p_decisions text[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
  v_hash text;
  v_entry text;
  v_next text;
  d text;
BEGIN
  IF coalesce(cardinality(p_decisions), 0) = 0 THEN
    RETURN;
  END IF;
  SELECT h.seq, h.hash INTO v_seq, v_hash FROM txmon_decision_head h WHERE h.id = 1 FOR UPDATE;
  IF NOT FOUND THEN
    -- Never start a second chain over a log whose head was removed: verification names the damage.
    RAISE EXCEPTION 'txmon: the decision log has no head row (txmon_decision_head): run verifyDecisionLog';
  END IF;
  FOREACH d IN ARRAY p_decisions LOOP
    v_seq := v_seq + 1;
    v_entry := '{"decision":' || d || ',"seq":' || v_seq || '}';
    v_next := encode(sha256(convert_to(v_hash || v_entry, 'UTF8')), 'hex');
    INSERT INTO txmon_decisions (seq, prev, entry, hash) VALUES (v_seq, v_hash, v_entry, v_next);
    v_hash := v_next;
  END LOOP;
  UPDATE txmon_decision_head SET seq = v_seq, hash = v_hash WHERE id = 1;
END $$;
`;

/**
 * Migration 11: the outbox (src/postgres/outbox.ts). Messages are numbered from the counter
 * `outbox_seq` of `txmon_meta`, whose row stays locked until the writing transaction commits, so
 * positions follow commit order; each consumer's position, lease and failures are one row.
 */
/**
 * Migration 12: the rule results the engine shares across transactions (a not-hit result of one
 * instance at one level) stored once each, by an id derived from their text (result-parts.ts);
 * stored results name them. Never changed or removed.
 */
const RESULT_PARTS_SQL = `
CREATE TABLE txmon_result_parts (
  id text PRIMARY KEY,
  body json NOT NULL
);
`;

/**
 * Migration 13: cheaper creations. A series entry's key leads with its id: the entries of new
 * transactions go in next to each other (their ids are new) rather than one per series and key
 * across the index, a quarter less work per entry written; the window index serves every read by
 * series and key. A chunk's creations travel in less text: a body that is its request with a state
 * added is sent as that state (a JSON string) and built here from the request's text; the values a
 * transaction's series share are sent once, in `doc.vals`, and an entry names them by position.
 * Documents in the earlier form (a body as JSON, an entry's values inline) are written as before.
 */
const COMPACT_CREATIONS_SQL = `
ALTER TABLE txmon_series_entries DROP CONSTRAINT txmon_series_entries_pkey,
  ADD CONSTRAINT txmon_series_entries_pkey PRIMARY KEY (id, series, key);

CREATE OR REPLACE FUNCTION txmon_save_creations(doc jsonb, p_ids json, p_bodies json, p_requests json, p_create_results json, p_latest_results json)
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  written integer;
  vals jsonb := doc->'vals';
BEGIN
  INSERT INTO txmon_transactions (transaction_id, version, event_count, last_event_timestamp, current_event_id, body, request, create_result, latest_result)
    SELECT x.id, 1, 0, NULL, NULL,
        CASE json_typeof(x.body)
          WHEN 'null' THEN NULL
          -- The request with "transactionState" added last, as the engine's JSON of the body has it.
          WHEN 'string' THEN (CASE WHEN x.request::text = '{}' THEN '{' ELSE left(x.request::text, -1) || ',' END
            || '"transactionState":' || x.body::text || '}')::json
          ELSE x.body END,
        x.request, x.create_result, CASE WHEN json_typeof(x.latest_result) = 'null' THEN NULL ELSE x.latest_result END
      FROM ROWS FROM (json_array_elements_text(p_ids), json_array_elements(p_bodies), json_array_elements(p_requests),
          json_array_elements(p_create_results), json_array_elements(p_latest_results)) WITH ORDINALITY AS x(id, body, request, create_result, latest_result, n)
      ORDER BY x.n
    ON CONFLICT (transaction_id) DO NOTHING;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written <> json_array_length(p_ids) THEN
    RAISE EXCEPTION 'transaction' USING ERRCODE = 'TX409';
  END IF;
  -- The entries of new transactions: none of them is stored yet (an entry is written with its
  -- transaction), so a plain insert, without the upsert's extra probe per row.
  INSERT INTO txmon_series_entries (series, key, id, ts, amount, vals)
    SELECT x->>0, x->>1, x->>2, (x->>3)::double precision, (x->>4)::numeric,
        CASE jsonb_typeof(x->5) WHEN 'number' THEN vals->((x->>5)::integer) WHEN 'object' THEN x->5 END
      FROM jsonb_array_elements(doc->'new') AS x;
  PERFORM txmon_save_effects(doc);
END $$;
`;

/**
 * Migration 14: a new transaction's body that is its request with the state defaulted is left out
 * (NULL) — before, a NULL body before any event was the request itself. The unit's read says when a
 * transaction's body is the request standing in for one left out (`r_flag`), for the reader to
 * give it its initial state.
 */
const INITIAL_BODIES_SQL = `
CREATE OR REPLACE FUNCTION txmon_unit_start(p_shared text[], p_exclusive text[], p_transaction_id text, p_event_id text, p_user_ids text[])
RETURNS TABLE (r_kind text, r_id text, r_n1 bigint, r_n2 bigint, r_ts double precision, r_flag boolean, r_d1 json, r_d2 json, r_d3 json, r_d4 json)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM CASE WHEN k.shared THEN pg_advisory_xact_lock_shared(k.h) ELSE pg_advisory_xact_lock(k.h) END
    FROM (SELECT true AS shared, hashtextextended(n, 0) AS h FROM unnest(p_shared) AS n
          UNION SELECT false, hashtextextended(n, 0) FROM unnest(p_exclusive) AS n
          ORDER BY 1 DESC, 2) AS k;
  RETURN QUERY
    SELECT 'r'::text, NULL::text, m.value, NULL::bigint, NULL::double precision, NULL::boolean, NULL::json, NULL::json, NULL::json, NULL::json
      FROM txmon_meta m WHERE m.name = 'rule_instance_revision'
    UNION ALL
    SELECT 't', t.transaction_id, t.version::bigint, t.event_count::bigint, t.last_event_timestamp, t.body IS NULL AND c.event_id IS NULL,
        coalesce(t.body, c.body, t.request), t.request, t.create_result, coalesce(t.latest_result, c.result, t.create_result)
      FROM txmon_transactions t LEFT JOIN txmon_events c ON c.event_id = t.current_event_id WHERE t.transaction_id = p_transaction_id
    UNION ALL
    SELECT 'e', e.event_id, e.arrival::bigint, NULL, NULL, e.client_event_id, e.event, e.body, e.result, to_json(e.transaction_id)
      FROM txmon_events e WHERE e.event_id = p_event_id
    UNION ALL
    SELECT 'u', u.user_id, NULL, NULL, NULL, NULL, u.record::json, NULL, NULL, NULL
      FROM txmon_users u WHERE u.user_id = ANY(p_user_ids);
END $$;
`;

const OUTBOX_SQL = `
CREATE TABLE txmon_outbox (
  seq bigint PRIMARY KEY,
  type text NOT NULL,
  entity_id text NOT NULL,
  ts double precision NOT NULL,
  data jsonb NOT NULL
);
INSERT INTO txmon_meta (name, value) VALUES ('outbox_seq', 0);
CREATE TABLE txmon_outbox_consumers (
  name text PRIMARY KEY,
  position bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at double precision,
  last_error text,
  owner text,
  lease_until double precision NOT NULL DEFAULT 0,
  dead_letters integer NOT NULL DEFAULT 0
);
CREATE TABLE txmon_outbox_dead_letters (
  consumer text NOT NULL,
  seq bigint NOT NULL,
  attempts integer NOT NULL,
  last_error text NOT NULL,
  dead_at double precision NOT NULL,
  PRIMARY KEY (consumer, seq)
);
`;

/**
 * Migration 10: every version of every rule instance (kept when the instance is deleted; an
 * instance stored before it becomes version 1), and the audit log.
 */
const VERSIONS_AND_AUDIT_SQL = `
CREATE TABLE txmon_rule_instance_versions (
  id text NOT NULL,
  version integer NOT NULL,
  instance jsonb NOT NULL,
  PRIMARY KEY (id, version)
);
UPDATE txmon_rule_instances SET stored = jsonb_set(stored, '{instance,version}', '1') WHERE NOT (stored -> 'instance' ? 'version');
INSERT INTO txmon_rule_instance_versions (id, version, instance)
  SELECT id, (stored -> 'instance' ->> 'version')::integer, stored -> 'instance' FROM txmon_rule_instances;

-- The audit log: one row per entry, numbered from the counter audit_seq in commit order (the
-- counter row stays locked until the writing transaction commits; see src/postgres/audit.ts).
CREATE TABLE txmon_audit_log (
  seq bigint PRIMARY KEY,
  entity_type text NOT NULL,
  entity_id text NOT NULL,
  action text NOT NULL,
  actor text NOT NULL,
  ts double precision NOT NULL,
  entry jsonb NOT NULL
);
CREATE INDEX txmon_audit_log_by_entity ON txmon_audit_log (entity_type, entity_id, seq);
CREATE INDEX txmon_audit_log_by_actor ON txmon_audit_log (actor, seq);
INSERT INTO txmon_meta (name, value) VALUES ('audit_seq', 0);
`;

/** One step of the schema. Never edit a released step: add the next one. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'txmon tables',
    sql: `
CREATE TABLE txmon_meta (
  name text PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO txmon_meta (name, value) VALUES ('rule_instance_revision', 0);

-- A transaction: its current state, the payload it was created with, and its results.
CREATE TABLE txmon_transactions (
  transaction_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  version integer NOT NULL,
  event_count integer NOT NULL,
  last_event_timestamp double precision,
  body jsonb NOT NULL,
  request jsonb NOT NULL,
  create_result jsonb NOT NULL,
  latest_result jsonb NOT NULL
);

CREATE TABLE txmon_events (
  event_id text PRIMARY KEY,
  transaction_id text NOT NULL,
  arrival integer NOT NULL,
  client_event_id boolean NOT NULL,
  event jsonb NOT NULL,
  body jsonb NOT NULL,
  result jsonb NOT NULL
);
CREATE INDEX txmon_events_by_transaction ON txmon_events (transaction_id, arrival);

CREATE TABLE txmon_rule_instances (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  stored jsonb NOT NULL,
  run_count bigint NOT NULL DEFAULT 0,
  hit_count bigint NOT NULL DEFAULT 0
);

CREATE TABLE txmon_users (
  user_id text PRIMARY KEY,
  record jsonb NOT NULL
);

CREATE TABLE txmon_comments (
  seq bigserial PRIMARY KEY,
  target_kind text NOT NULL,
  target_id text NOT NULL,
  comment jsonb NOT NULL
);
CREATE INDEX txmon_comments_by_target ON txmon_comments (target_kind, target_id, seq);

-- An alert without its transaction ids (txmon_alert_transactions: one row per id, appended).
CREATE TABLE txmon_alerts (
  alert_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  instance_id text NOT NULL,
  user_id text NOT NULL,
  alert jsonb NOT NULL
);
CREATE INDEX txmon_alerts_by_instance_user ON txmon_alerts (instance_id, user_id, seq DESC);

CREATE TABLE txmon_alert_transactions (
  alert_id text NOT NULL,
  transaction_id text NOT NULL,
  seq bigserial NOT NULL,
  PRIMARY KEY (alert_id, transaction_id)
);
CREATE INDEX txmon_alert_transactions_in_order ON txmon_alert_transactions (alert_id, seq);

-- A case without its alert ids (txmon_case_alerts: one row per alert, appended).
CREATE TABLE txmon_cases (
  case_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  user_id text NOT NULL,
  "case" jsonb NOT NULL
);
CREATE INDEX txmon_cases_by_user ON txmon_cases (user_id, seq DESC);

CREATE TABLE txmon_case_alerts (
  case_id text NOT NULL,
  alert_id text NOT NULL,
  seq bigserial NOT NULL,
  PRIMARY KEY (case_id, alert_id)
);
CREATE INDEX txmon_case_alerts_in_order ON txmon_case_alerts (case_id, seq);

CREATE TABLE txmon_files (
  key text PRIMARY KEY,
  record jsonb NOT NULL,
  content bytea
);

CREATE TABLE txmon_lists (
  list_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  list jsonb NOT NULL
);
CREATE TABLE txmon_list_items (
  list_id text NOT NULL,
  item text NOT NULL,
  seq integer NOT NULL,
  PRIMARY KEY (list_id, item)
);

-- Windowed aggregates: one row per (series, key, entry); amounts exact (scaled integers).
CREATE TABLE txmon_series_entries (
  series text NOT NULL,
  key text NOT NULL,
  id text NOT NULL,
  ts double precision NOT NULL,
  amount numeric,
  vals jsonb,
  PRIMARY KEY (series, key, id)
);
CREATE INDEX txmon_series_entries_window ON txmon_series_entries (series, key, ts) INCLUDE (amount);

-- Takes the advisory locks of one unit of work, in one round trip: the shared ones, then the
-- exclusive ones in ascending order of their 64-bit keys (every unit takes them in that order, so
-- none deadlocks; two names with one key only wait for each other).
CREATE FUNCTION txmon_lock(shared_names text[], exclusive_names text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
  FOR k IN SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest(shared_names) AS n ORDER BY h LOOP PERFORM pg_advisory_xact_lock_shared(k); END LOOP;
  FOR k IN SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest(exclusive_names) AS n ORDER BY h LOOP PERFORM pg_advisory_xact_lock(k); END LOOP;
END $$;
`,
  },
  {
    version: 2,
    name: 'series retention horizons',
    sql: `
-- Per series pruned since it was last filled whole: entries older than retained_from are gone.
CREATE TABLE txmon_series_retention (
  series text PRIMARY KEY,
  retained_from double precision NOT NULL
);
`,
  },
  {
    version: 3,
    name: 'units in few round trips, sharded instance counters',
    sql: UNIT_FUNCTIONS_SQL,
  },
  {
    version: 4,
    name: 'cases of several users: a user case is its latest alert case',
    sql: CASE_GROUPING_SQL,
  },
  {
    version: 5,
    name: 'batches: processed batches by kind and id',
    sql: `
CREATE TABLE txmon_batches (
  kind text NOT NULL,
  batch_id text NOT NULL,
  fingerprint text NOT NULL,
  response jsonb NOT NULL,
  record_ids jsonb NOT NULL,
  created_at double precision NOT NULL,
  PRIMARY KEY (kind, batch_id)
);
`,
  },
  {
    version: 6,
    name: 'user events',
    sql: `
-- A user event as stored (StoredUserEvent); one arrival per user.
CREATE TABLE txmon_user_events (
  event_id text PRIMARY KEY,
  user_id text NOT NULL,
  arrival integer NOT NULL,
  record jsonb NOT NULL
);
CREATE UNIQUE INDEX txmon_user_events_by_user ON txmon_user_events (user_id, arrival);
`,
  },
  {
    version: 7,
    name: 'chunk writes: txmon_save_effects, txmon_save_creations',
    sql: CHUNK_WRITES_SQL,
  },
  {
    version: 8,
    name: 'alert and case pages: keyset indexes',
    sql: `
-- Pages of alerts and cases (GET /alerts, GET /cases) in (sort value, id) order: one index per time
-- key and direction-free (scanned backwards for desc). Ids compare bytewise (COLLATE "C"), as the
-- memory store compares them; priority pages and the status filters read the table.
CREATE INDEX txmon_alerts_page_created ON txmon_alerts (((alert->>'createdTimestamp')::float8), alert_id COLLATE "C");
CREATE INDEX txmon_alerts_page_updated ON txmon_alerts (((alert->>'updatedAt')::float8), alert_id COLLATE "C");
CREATE INDEX txmon_alerts_page_id ON txmon_alerts (alert_id COLLATE "C");
CREATE INDEX txmon_cases_page_created ON txmon_cases ((("case"->>'createdTimestamp')::float8), case_id COLLATE "C");
CREATE INDEX txmon_cases_page_updated ON txmon_cases ((("case"->>'updatedAt')::float8), case_id COLLATE "C");
CREATE INDEX txmon_cases_page_id ON txmon_cases (case_id COLLATE "C");
`,
  },
  {
    version: 9,
    name: 'decision log: txmon_decisions, txmon_append_decisions',
    sql: DECISION_LOG_SQL,
  },
  {
    version: 10,
    name: 'rule instance versions, audit log',
    sql: VERSIONS_AND_AUDIT_SQL,
  },
  {
    version: 11,
    name: 'outbox: messages, consumers, dead letters',
    sql: OUTBOX_SQL,
  },
  {
    version: 12,
    name: 'result parts: shared rule results stored once',
    sql: RESULT_PARTS_SQL,
  },
  {
    version: 13,
    name: 'cheaper creations: series entries keyed by id first, bodies as their state, shared series values once',
    sql: COMPACT_CREATIONS_SQL,
  },
  {
    version: 14,
    name: 'initial bodies left out: the unit read says when a body is the request',
    sql: INITIAL_BODIES_SQL,
  },
];

/** The advisory lock key migrations take turns on. */
const MIGRATION_LOCK = 7_340_271_113_001;

/** What {@link migrate} did. */
export interface MigrationResult {
  /** The schema version now. */
  readonly version: number;
  /** The versions this call applied (empty when the schema was current). */
  readonly applied: readonly number[];
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** On a `pg` Pool: the schema to create (when missing) and migrate, as `createPostgresRepositories({ schema })` uses it. */
  readonly schema?: string;
}

/**
 * Brings the database of `client` (a `pg` Pool or a PGlite instance) to the current txmon schema.
 * Idempotent; safe when several processes run it at once.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { migrate, createPostgresRepositories } from 'txmon/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate(pool);
 * const engine = createEngine({ repositories: createPostgresRepositories({ client: pool }) });
 * ```
 */
export async function migrate(client: PostgresClient, options: MigrateOptions = {}): Promise<MigrationResult> {
  const db = databaseOf(client, options);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    if (options.schema !== undefined) await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(options.schema)}`);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS txmon_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const rows = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM txmon_migrations');
    const current = rows[0]?.version ?? 0;
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await tx.execute(migration.sql);
      await tx.query('INSERT INTO txmon_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return { version: Math.max(current, ...applied), applied };
  });
}

/** The schema version this build of txmon needs. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
