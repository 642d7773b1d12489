/**
 * What the persistence benchmark's processes share: loading a build, the engine on a store, the
 * SQL meter (every statement a client sends, counted and timed, by wrapping the client's `query`),
 * and the summary of one answer that the verification compares.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Loads `index.js` and `postgres.js` of one build directory.
 * @param {string} distDir
 */
export async function loadBuild(distDir) {
  const [txmon, postgres] = await Promise.all([
    import(pathToFileURL(path.resolve(distDir, 'index.js')).href),
    import(pathToFileURL(path.resolve(distDir, 'postgres.js')).href),
  ]);
  return { txmon, postgres };
}

/**
 * Sequential ids (`RI-1` … for instances, so every store names them alike); `prefix` keeps the
 * alert and case ids of several processes apart.
 * @param {string} [prefix]
 */
export function sequentialIds(prefix = '') {
  const counters = new Map();
  return {
    next(kind) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return kind === 'ruleInstance' ? `RI-${n}` : `${kind}-${prefix}${n}`;
    },
  };
}

// ---- the SQL meter --------------------------------------------------------------------------

/**
 * A short, stable label of a statement: its first words and its end, whitespace folded. A
 * statement sent with its values inlined (a unit's first and last round trip) is cut at its first
 * string literal, so it is counted under one label whatever the values. Labels of repeated texts
 * are remembered (the prepared statements: a few dozen texts).
 */
const labels = new Map();
function labelOf(text) {
  const known = labels.get(text);
  if (known !== undefined) return known;
  const literal = text.indexOf("E'");
  const head = (literal < 0 ? text : text.slice(0, literal)).replace(/\s+/g, ' ').trim();
  const label =
    literal < 0
      ? head.length > 100
        ? `${head.slice(0, 80)} … ${head.slice(-16)}`
        : head
      : `${head.slice(0, 80)} …${text.endsWith('; COMMIT') ? '; COMMIT' : ''}`;
  if (literal < 0 && labels.size < 1000) labels.set(text, label);
  return label;
}

/** Counts and times statements, by label. */
export function createSqlMeter() {
  /** @type {Map<string, { count: number, ns: number }>} */
  let byLabel = new Map();
  let count = 0;
  let ns = 0;
  const note = (text, took) => {
    count += 1;
    ns += took;
    const label = labelOf(text);
    const entry = byLabel.get(label);
    if (entry) {
      entry.count += 1;
      entry.ns += took;
    } else byLabel.set(label, { count: 1, ns: took });
  };
  const timed = async (text, run) => {
    const t0 = process.hrtime.bigint();
    try {
      return await run();
    } finally {
      note(text, Number(process.hrtime.bigint() - t0));
    }
  };
  return {
    timed,
    note,
    /** The totals so far (plain data, to send between processes), and a reset. */
    take() {
      const out = { count, ns, byLabel: [...byLabel].map(([label, v]) => ({ label, ...v })) };
      byLabel = new Map();
      count = 0;
      ns = 0;
      return out;
    },
  };
}

/** Adds the totals of several meters' `take()`. */
export function mergeMeterTakes(takes) {
  const byLabel = new Map();
  let count = 0;
  let ns = 0;
  for (const t of takes) {
    count += t.count;
    ns += t.ns;
    for (const e of t.byLabel) {
      const into = byLabel.get(e.label) ?? { label: e.label, count: 0, ns: 0 };
      into.count += e.count;
      into.ns += e.ns;
      byLabel.set(e.label, into);
    }
  }
  return { count, ns, byLabel: [...byLabel.values()] };
}

const textOf = (q) => (typeof q === 'string' ? q : q.text);

/** A `pg` Pool whose every statement (pool queries and pooled connections') goes through `meter`. */
export function meteredPool(pool, meter) {
  return {
    query: (q, params) => meter.timed(textOf(q), () => pool.query(q, params)),
    async connect() {
      const connection = await pool.connect();
      return {
        query: (q, params) => meter.timed(textOf(q), () => connection.query(q, params)),
        release: (error) => connection.release(error),
        getTypeParser: (oid, format) => connection.getTypeParser(oid, format),
      };
    },
    end: () => pool.end(),
  };
}

/**
 * A PGlite instance whose statements go through `meter`. PGlite runs `transaction()`'s BEGIN and
 * COMMIT itself: they are noted as statements too (untimed: they are inside the timed unit).
 */
export function meteredPGlite(db, meter) {
  const wrap = (q) => ({
    query: (text, params) => meter.timed(text, () => q.query(text, params)),
    exec: (text) => meter.timed(text, () => q.exec(text)),
  });
  return {
    ...wrap(db),
    async transaction(fn) {
      meter.note('BEGIN', 0);
      try {
        return await db.transaction((tx) => fn(wrap(tx)));
      } finally {
        meter.note('COMMIT', 0);
      }
    },
    close: () => db.close(),
  };
}

// ---- the engine and its answers ---------------------------------------------------------------

/** Creates the instances of `configs` on `engine`, checking their ids. */
export async function createInstances(engine, configs) {
  for (const { id, request } of configs) {
    const created = await engine.createRuleInstance(request);
    if (created.id !== id) throw new Error(`expected instance id ${id}, got ${created.id}`);
  }
}

/**
 * One operation through the engine: what the verification compares (status, hit instances, or the
 * error code) and how long the call took (ns).
 */
export async function callOperation(engine, op) {
  const t0 = process.hrtime.bigint();
  let summary;
  try {
    const r = op.kind === 'transaction' ? await engine.createTransaction(op.payload) : await engine.createTransactionEvent(op.payload);
    summary = `${r.status} ${r.hitRules.map((h) => h.ruleInstanceId).join(',')}`;
  } catch (error) {
    summary = `error ${error?.code ?? 'UNEXPECTED'}${error?.code ? '' : ` ${String(error?.stack ?? error)}`}`;
  }
  return { summary, ns: Number(process.hrtime.bigint() - t0) };
}

/** Per-instance counters, alert and case counts of an engine: what every store must agree on. */
export async function totalsOf(engine) {
  const instances = await engine.listRuleInstances();
  const alerts = await engine.listAlerts();
  const cases = await engine.listCases();
  return {
    counters: instances.map((i) => `${i.id}:${i.runCount}/${i.hitCount}`),
    alerts: alerts.length,
    alertTransactions: alerts.reduce((n, a) => n + (a.entityDetails?.transactionIds?.length ?? 0), 0),
    cases: cases.length,
  };
}
