/**
 * The configuration file of `txmon serve --config <file.json>` (docs/configuration.md): its JSON
 * Schema ({@link TxmonConfigSchema}, published as docs/txmon-config.schema.json), and the file read,
 * checked and resolved into what `serve` starts from — the store, the tenants with their keys,
 * limits and engine settings (currencies and rates, risk model, case grouping …), the lists and the
 * rule instances to ensure at start, the webhooks, the public URL, the URL-signing secret and the
 * host rule modules. Paths in the file are relative to the file's directory.
 *
 * Every problem is a detail `{ path, code, message }` whose path is a JSON Pointer into the file;
 * they are thrown together as one `INVALID_CONFIGURATION` (`txmon` exits 2 listing them), and
 * `txmon config check` lists them without starting anything.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Static, Type } from '@sinclair/typebox';
import { createEngine } from '../default-engine.js';
import { CASE_GROUPINGS } from '../domain/case-policy.js';
import { CURRENCY_CODES } from '../domain/codes.js';
import { CASE_PRIORITIES, RISK_LEVELS } from '../domain/enums.js';
import { createFixedRateProvider, DEFAULT_USD_RATES } from '../domain/money.js';
import type { RiskBands } from '../domain/risk-score.js';
import { IdSchema } from '../domain/schemas/common.js';
import { ListRequestSchema, type ListRequest } from '../domain/schemas/list.js';
import { RuleInstanceRequestSchema } from '../domain/schemas/rule-instance.js';
import { buildRuleInstance } from '../engine/instances/build-rule-instance.js';
import { DEFAULT_ENGINE_LIMITS } from '../engine/limits.js';
import type { EngineOptions } from '../engine/options.js';
import { RiskFactorSchema } from '../engine/pipeline/risk.js';
import type { Engine, RuleInstanceInput } from '../engine/types.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { type ErrorDetail, isTxmonError, TxmonError } from '../errors.js';
import { tenantsOf } from '../http/auth.js';
import type { LabelledApiKey } from '../http/types.js';
import { MIN_WEBHOOK_SECRET_BYTES } from '../http/webhooks.js';
import { createRuleRegistry } from '../rules/registry.js';
import type { AnyRule } from '../rules/types.js';
import { collectSchemaErrors } from '../validation/index.js';
import type { TenantLimits, TenantSpec } from './serve-args.js';
import { parseStore } from './stores.js';
import { UsageError } from './usage.js';

/** The actor the audit trail names for changes the configuration file makes. */
export const CONFIG_ACTOR = 'config';

/** A secret or a key list kept out of the file: `{ "file": "./secret.txt" }` or `{ "env": "VAR" }`. */
const FileSourceSchema = Type.Object(
  { file: Type.String({ minLength: 1, description: 'A file, relative to the configuration file.' }) },
  { additionalProperties: false },
);
const EnvSourceSchema = Type.Object(
  { env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'An environment variable.' }) },
  { additionalProperties: false },
);
const secretSourceSchema = (description: string) =>
  Type.Union([FileSourceSchema, EnvSourceSchema], {
    description: `${description} At least ${MIN_WEBHOOK_SECRET_BYTES} bytes, read from a file or an environment variable (surrounding whitespace dropped).`,
  });

const ApiKeySchema = Type.Union([
  Type.String({ minLength: 16, description: 'An API key: at least 16 visible ASCII characters.' }),
  Type.Object({ key: Type.String({ minLength: 16 }), label: Type.String({ pattern: '^[A-Za-z0-9_.@-]{1,64}$' }) }, { additionalProperties: false }),
]);
const ApiKeysSchema = Type.Union([Type.Array(ApiKeySchema, { minItems: 1 }), FileSourceSchema, EnvSourceSchema], {
  description:
    'The tenant\'s API keys: a list (each a key or {"key", "label"}), {"file"} with one key per line (blank lines and # comments skipped), or {"env"} naming a variable of comma-separated keys.',
});

const LIMIT_NAMES = [...Object.keys(DEFAULT_ENGINE_LIMITS), 'maxStoredBytes'];
const LimitsSchema = Type.Object(
  Object.fromEntries(LIMIT_NAMES.map((name) => [name, Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }))])),
  {
    additionalProperties: false,
    description: 'Limits (docs/security.md); each absent one keeps its default. maxStoredBytes applies to a memory store only.',
  },
);

const ConfigRuleInstanceSchema = Type.Object(
  { id: Type.String({ ...IdSchema, description: 'The instance id: created with it, or updated to match.' }), ...RuleInstanceRequestSchema.properties },
  { additionalProperties: false, description: 'A rule instance to ensure at start, as POST /rule-instances takes it, with its id.' },
);

const ConfigListSchema = Type.Object(
  { listId: IdSchema, ...ListRequestSchema.properties },
  { additionalProperties: false, description: 'A list (PUT /lists/{listId}), written at start when it differs from the stored one.' },
);

const ConfigWebhookSchema = Type.Object(
  {
    url: Type.String({ pattern: '^https?://', description: 'The receiver (http or https).' }),
    secretFile: Type.Optional(Type.String({ minLength: 1, description: `A file holding the signing secret (at least ${MIN_WEBHOOK_SECRET_BYTES} bytes).` })),
    secretEnv: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Or an environment variable holding it.' })),
    name: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: "The consumer's name (default `default`): keep it when the URL changes." }),
    ),
    leaseMs: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 3_600_000, description: 'How long a delivering process keeps its turn unrenewed (default 30000).' }),
    ),
  },
  { additionalProperties: false, description: "Delivers the tenant's outbox there, signed (docs/webhooks.md)." },
);

/** The engine settings a tenant may set (over the file's top-level ones). */
const engineSettings = {
  baseCurrency: Type.Optional(Type.String({ format: 'currency-code', description: 'Currency in which windowed sums are kept (default USD).' })),
  rates: Type.Optional(
    Type.Record(
      Type.String({ pattern: '^[A-Z]{3,5}$' }),
      Type.Union([Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Type.Number({ exclusiveMinimum: 0 })]),
      {
        description: 'Units of each currency per 1 USD, over the built-in dated table (added or replaced).',
      },
    ),
  ),
  defaultRiskLevel: Type.Optional(Type.Union(RISK_LEVELS.map((level) => Type.Literal(level)))),
  riskFactors: Type.Optional(Type.Array(RiskFactorSchema, { description: 'Transaction risk factors (docs/risk.md).' })),
  riskBands: Type.Optional(Type.Array(Type.Number(), { minItems: 6, maxItems: 6, description: 'Score bands of the five risk levels: 6 increasing numbers.' })),
  caseGrouping: Type.Optional(Type.Union(CASE_GROUPINGS.map((grouping) => Type.Literal(grouping)))),
  slaHours: Type.Optional(
    Type.Object(Object.fromEntries(CASE_PRIORITIES.map((p) => [p, Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }))])), {
      additionalProperties: false,
    }),
  ),
  lateArrivalMs: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  strict: Type.Optional(
    Type.Boolean({ description: 'Refuse (422 RULE_NOT_EVALUATED) a transaction or event a rule could not evaluate, instead of storing it with a warning.' }),
  ),
  limits: Type.Optional(LimitsSchema),
};

/** What one tenant holds: keys, lists, rule instances, webhooks. */
const tenantContents = {
  apiKeys: Type.Optional(ApiKeysSchema),
  lists: Type.Optional(Type.Array(ConfigListSchema)),
  ruleInstances: Type.Optional(Type.Array(ConfigRuleInstanceSchema)),
  webhooks: Type.Optional(Type.Array(ConfigWebhookSchema)),
};

const ConfigTenantSchema = Type.Object(
  { id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }), ...tenantContents, ...engineSettings },
  { additionalProperties: false, description: 'A tenant: its own store (a PGlite subdirectory or a PostgreSQL schema) and settings over the top-level ones.' },
);

/** The JSON Schema of the configuration file (published as docs/txmon-config.schema.json). */
export const TxmonConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    store: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'memory, pglite:<dir> (relative to this file) or postgres://…; --store overrides it, and it overrides TXMON_STORE.',
      }),
    ),
    publicUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: "The API's public URL (with its base path), the prefix of upload and download URLs; with tenants, each is under /t/<id>.",
      }),
    ),
    urlSigningSecret: Type.Optional(secretSourceSchema('Signs upload and download URLs: the same in every process sharing a store.')),
    ruleModules: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'ES modules (relative to this file) whose exports are rules made with defineRule or defineUserRule (a rule, or an array of rules).',
      }),
    ),
    tenants: Type.Optional(Type.Array(ConfigTenantSchema, { minItems: 1 })),
    ...tenantContents,
    ...engineSettings,
  },
  { additionalProperties: false, title: 'txmon configuration file', description: 'The configuration of txmon serve --config (docs/configuration.md).' },
);

/**
 * The text of docs/txmon-config.schema.json: {@link TxmonConfigSchema} as plain JSON Schema
 * (draft-07, which ajv checks it with), printed by `txmon config schema`. Point a file's `$schema`
 * at it for an editor's completion and checks; the custom formats (`currency-code`) are txmon's.
 */
export function configJsonSchemaText(): string {
  return `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...TxmonConfigSchema }, null, 2)}\n`;
}

/** The file as its schema types it. */
export type TxmonConfig = Static<typeof TxmonConfigSchema>;

/** A webhook of a tenant, its secret read. */
export interface ConfiguredWebhook {
  readonly url: string;
  readonly secret: string;
  readonly name: string;
  readonly leaseMs: number;
}

/** A tenant as the file configures it, every file read. */
export interface ConfiguredTenant {
  readonly id: string;
  /** Its keys; `null`: the file gives none (the default tenant then takes them from the command line). */
  readonly apiKeys: (string | LabelledApiKey)[] | null;
  readonly limits: TenantLimits;
  /** `createEngine` options beside the repositories, limits and public URL. */
  readonly engine: Partial<EngineOptions>;
  readonly lists: readonly (ListRequest & { readonly listId: string })[];
  readonly ruleInstances: readonly { readonly id: string; readonly input: RuleInstanceInput }[];
  readonly webhooks: readonly ConfiguredWebhook[];
  /** The JSON Pointer of the tenant in the file (`''` for the single tenant of a file without `tenants`). */
  readonly path: string;
}

/** The configuration file, checked and resolved. */
export interface LoadedConfig {
  readonly file: string;
  /** The store, paths resolved against the file's directory; `undefined` when the file names none. */
  readonly store: string | undefined;
  readonly publicUrl: string | undefined;
  /** Whether the file lists `tenants` (else it configures the one tenant `default`). */
  readonly multiTenant: boolean;
  readonly tenants: readonly ConfiguredTenant[];
}

/** The error of a configuration file: `INVALID_CONFIGURATION` with every problem found. */
function configError(file: string, details: readonly ErrorDetail[]): TxmonError {
  const first = details[0];
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return new TxmonError('INVALID_CONFIGURATION', `the configuration file ${file} is not valid: ${first?.path || '/'} ${first?.message ?? ''}${more}`, details);
}

/** Collects problems while a file is resolved. */
interface Problems {
  add(path: string, code: ErrorDetail['code'], message: string): void;
  /** The details of a TxmonError (or a plain error's message) under `base`. */
  addError(error: unknown, base: string): void;
  readonly list: ErrorDetail[];
}

function createProblems(): Problems {
  const list: ErrorDetail[] = [];
  return {
    list,
    add: (path, code, message) => void list.push({ path, code, message }),
    addError(error, base) {
      if (isTxmonError(error) && error.details.length > 0) for (const d of error.details) list.push({ ...d, path: `${base}${d.path}` });
      else list.push({ path: base, code: 'unsupported', message: error instanceof Error ? error.message : String(error) });
    },
  };
}

/** Text of `file` (relative to `dir`), or `null` with the problem noted at `path`. */
function readText(dir: string, file: string, path: string, problems: Problems): string | null {
  try {
    return readFileSync(resolve(dir, file), 'utf8');
  } catch (error) {
    problems.add(path, 'not-found', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    return null;
  }
}

/**
 * A secret from a file or an environment variable (surrounding whitespace dropped), at least
 * MIN_WEBHOOK_SECRET_BYTES bytes; `null` with the problem noted at `at`.
 */
function readSecret(dir: string, source: { file: string } | { env: string }, at: string, env: NodeJS.ProcessEnv, problems: Problems): string | null {
  let text: string | null;
  if ('file' in source) {
    text = readText(dir, source.file, at, problems);
  } else {
    text = env[source.env]?.trim() || null;
    if (text === null) problems.add(at, 'not-found', `the environment variable ${source.env} is not set`);
  }
  if (text === null) return null;
  const secret = text.trim();
  if (Buffer.byteLength(secret) < MIN_WEBHOOK_SECRET_BYTES) {
    problems.add(at, 'range', `the secret must be at least ${MIN_WEBHOOK_SECRET_BYTES} bytes`);
    return null;
  }
  return secret;
}

/** The keys of an `apiKeys` value: a list, a file of one key per line, or a variable of comma-separated keys. */
function readApiKeys(dir: string, value: NonNullable<TxmonConfig['apiKeys']>, path: string, env: NodeJS.ProcessEnv, problems: Problems) {
  if (Array.isArray(value)) return value as (string | LabelledApiKey)[];
  if ('file' in value) {
    const text = readText(dir, value.file, `${path}/file`, problems);
    if (text === null) return [];
    const keys = text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    if (keys.length === 0) problems.add(`${path}/file`, 'not-found', `${value.file} holds no key`);
    return keys;
  }
  const keys = (env[value.env] ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (keys.length === 0) problems.add(`${path}/env`, 'not-found', `the environment variable ${value.env} holds no key`);
  return keys;
}

/** Whether `value` looks like a rule made with `defineRule` / `defineUserRule` (the module may import another copy of txmon). */
function isRuleLike(value: unknown): value is AnyRule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return typeof rule.id === 'string' && typeof rule.parametersSchema === 'object' && 'defaultParameters' in rule && typeof rule.defaultAction === 'string';
}

/** The rules each module exports (a rule, or an array of rules, per export). */
async function loadRuleModules(dir: string, modules: readonly string[], problems: Problems): Promise<AnyRule[]> {
  const rules: AnyRule[] = [];
  for (const [i, module] of modules.entries()) {
    const path = `/ruleModules/${i}`;
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(resolve(dir, module)).href)) as Record<string, unknown>;
    } catch (error) {
      problems.add(path, 'not-found', `cannot load ${module}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      continue;
    }
    const found = Object.values(exports)
      .flatMap((value) => (Array.isArray(value) ? value : [value]))
      .filter(isRuleLike);
    if (found.length === 0) problems.add(path, 'not-found', `${module} exports no rule made with defineRule or defineUserRule`);
    rules.push(...new Set(found));
  }
  try {
    createRuleRegistry(rules);
  } catch (error) {
    problems.add('/ruleModules', 'conflict', error instanceof Error ? error.message : String(error));
    return [];
  }
  return rules;
}

type EngineSettingsOf = Pick<TxmonConfig, keyof typeof engineSettings>;

/** `createEngine` options of the engine settings `own` over `common`. */
function engineOptionsOf(common: EngineSettingsOf, own: EngineSettingsOf): Partial<EngineOptions> {
  const merged = { ...common, ...own };
  const rates = common.rates === undefined && own.rates === undefined ? undefined : { ...common.rates, ...own.rates };
  return {
    ...(merged.baseCurrency === undefined ? {} : { baseCurrency: merged.baseCurrency }),
    ...(rates === undefined ? {} : rateProviderOf(rates)),
    ...(merged.defaultRiskLevel === undefined ? {} : { defaultRiskLevel: merged.defaultRiskLevel }),
    ...(merged.riskFactors === undefined ? {} : { riskFactors: merged.riskFactors }),
    ...(merged.riskBands === undefined ? {} : { riskBands: merged.riskBands as unknown as RiskBands }),
    ...(merged.caseGrouping === undefined ? {} : { caseGrouping: merged.caseGrouping }),
    ...(merged.slaHours === undefined ? {} : { slaHours: { ...common.slaHours, ...own.slaHours } }),
    ...(merged.lateArrivalMs === undefined ? {} : { lateArrivalMs: merged.lateArrivalMs }),
    ...(merged.strict === undefined ? {} : { strict: merged.strict }),
  };
}

/**
 * The rate provider of the file's `rates` over the defaults; none when the table is refused (its
 * problems are reported by {@link checkRates}, path by path, with the file's other problems).
 */
function rateProviderOf(rates: NonNullable<EngineSettingsOf['rates']>): Partial<EngineOptions> {
  try {
    return {
      rates: createFixedRateProvider({ ...DEFAULT_USD_RATES, ...Object.fromEntries(Object.entries(rates).map(([code, rate]) => [code, String(rate)])) }),
    };
  } catch (error) {
    if (isTxmonError(error) && error.code === 'INVALID_CONFIGURATION') return {};
    throw error;
  }
}

/** Checks the currencies of `rates` (codes txmon knows, rates above zero). */
function checkRates(rates: EngineSettingsOf['rates'], path: string, problems: Problems): void {
  for (const [code, rate] of Object.entries(rates ?? {})) {
    if (!CURRENCY_CODES.has(code)) problems.add(`${path}/rates/${code}`, 'format', 'is not a known currency code');
    else if (Number(rate) <= 0) problems.add(`${path}/rates/${code}`, 'range', 'must be greater than 0');
  }
}

/**
 * Resolves one tenant: its keys, secrets and settings read, its rule instances built without a
 * store (so an unknown rule id or bad parameters are found now), its ids checked for duplicates.
 */
function resolveTenant(
  dir: string,
  id: string,
  contents: Pick<TxmonConfig, keyof typeof tenantContents>,
  engine: Partial<EngineOptions>,
  limits: TenantLimits,
  path: string,
  context: { env: NodeJS.ProcessEnv; rules: readonly AnyRule[]; problems: Problems },
): ConfiguredTenant {
  const { env, rules, problems } = context;
  const registry = createRuleRegistry(rules);
  const apiKeys = contents.apiKeys === undefined ? null : readApiKeys(dir, contents.apiKeys, `${path}/apiKeys`, env, problems);
  try {
    // Only the settings are checked here: an engine over memory, thrown away (the memory store's
    // byte budget is the store's, not the engine's).
    const { maxStoredBytes: _budget, ...engineLimits } = limits;
    createEngine({ ...engine, rules, limits: engineLimits });
  } catch (error) {
    // createEngine names the option in its message only (`riskBands must be …`): the detail points at it.
    const setting = isTxmonError(error) && error.details.length === 0 ? Object.keys(engineSettings).find((key) => error.message.includes(key)) : undefined;
    problems.addError(error, setting === undefined ? path : `${path}/${setting}`);
  }
  const seen = (kind: string) => {
    const ids = new Set<string>();
    return (value: string, at: string) => {
      if (ids.has(value)) problems.add(at, 'duplicate', `${kind} ${value} is given twice`);
      ids.add(value);
    };
  };
  const seenInstance = seen('rule instance');
  const ruleInstances = (contents.ruleInstances ?? []).map((entry, i) => {
    const at = `${path}/ruleInstances/${i}`;
    seenInstance(entry.id, `${at}/id`);
    const { id: instanceId, ...input } = entry;
    try {
      // Built as the engine builds a creation, without a store.
      buildRuleInstance(input, null, { registry, now: 0, id: instanceId });
    } catch (error) {
      problems.addError(error, at);
    }
    return { id: instanceId, input: input as RuleInstanceInput };
  });
  const seenList = seen('list');
  const lists = (contents.lists ?? []).map((list, i) => {
    seenList(list.listId, `${path}/lists/${i}/listId`);
    return list;
  });
  const seenWebhook = seen('webhook');
  const webhooks = (contents.webhooks ?? []).flatMap((hook, i): ConfiguredWebhook[] => {
    const at = `${path}/webhooks/${i}`;
    const name = hook.name ?? 'default';
    seenWebhook(name, `${at}/name`);
    try {
      new URL(hook.url);
    } catch {
      problems.add(`${at}/url`, 'format', 'must be an absolute http or https URL');
    }
    if ((hook.secretFile === undefined) === (hook.secretEnv === undefined)) {
      problems.add(at, 'exclusive', 'give the signing secret as secretFile or secretEnv (one of them)');
      return [];
    }
    const secret =
      hook.secretFile === undefined
        ? readSecret(dir, { env: hook.secretEnv as string }, `${at}/secretEnv`, env, problems)
        : readSecret(dir, { file: hook.secretFile }, `${at}/secretFile`, env, problems);
    return secret === null ? [] : [{ url: hook.url, secret, name, leaseMs: hook.leaseMs ?? 30_000 }];
  });
  return { id, apiKeys, limits, engine, lists, ruleInstances, webhooks, path };
}

/** Resolves `store` against the file's directory (a PGlite directory); other stores as given. */
function resolveStore(dir: string, store: string | undefined, problems: Problems): string | undefined {
  if (store === undefined) return undefined;
  try {
    const spec = parseStore(store);
    return spec.kind === 'pglite' && !isAbsolute(spec.dir) ? `pglite:${resolve(dir, spec.dir)}` : store;
  } catch (error) {
    problems.add('/store', 'format', (error as Error).message.replace('--store', 'store'));
    return undefined;
  }
}

/**
 * Reads, checks and resolves a configuration file: the schema first (every violation listed),
 * then what the schema cannot say — files and variables readable, secrets long enough, rule
 * modules loadable, rule ids known and parameters valid (each instance built without a store),
 * engine settings accepted, no id given twice, tenant ids and keys as the server takes them.
 * @throws TxmonError `INVALID_CONFIGURATION` whose details name each problem's JSON Pointer path
 *   in the file (a file that cannot be read or parsed: the path `''`)
 */
export async function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  const problems = createProblems();
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason =
      error instanceof SyntaxError ? `is not JSON (${error.message})` : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    throw configError(file, [{ path: '', code: error instanceof SyntaxError ? 'malformed-json' : 'not-found', message: reason }]);
  }
  const schemaProblems = collectSchemaErrors(TxmonConfigSchema, value);
  if (schemaProblems.length > 0) throw configError(file, schemaProblems);
  const config = value as TxmonConfig;
  const dir = dirname(resolve(file));
  const store = resolveStore(dir, config.store, problems);
  const signing = config.urlSigningSecret;
  const urlSigningSecret = signing === undefined ? null : readSecret(dir, signing, `/urlSigningSecret/${'file' in signing ? 'file' : 'env'}`, env, problems);
  const rules = await loadRuleModules(dir, config.ruleModules ?? [], problems);
  checkRates(config.rates, '', problems);
  const common: EngineSettingsOf = config;
  const shared: Partial<EngineOptions> = {
    ...(rules.length === 0 ? {} : { rules }),
    ...(urlSigningSecret === null ? {} : { urlSigningSecret: new Uint8Array(Buffer.from(urlSigningSecret)) }),
  };
  const context = { env, rules, problems };
  let tenants: ConfiguredTenant[];
  if (config.tenants === undefined) {
    tenants = [resolveTenant(dir, 'default', config, { ...shared, ...engineOptionsOf(common, {}) }, config.limits ?? {}, '', context)];
  } else {
    for (const field of Object.keys(tenantContents)) {
      if ((config as Record<string, unknown>)[field] !== undefined) problems.add(`/${field}`, 'exclusive', `with tenants, give each tenant its ${field}`);
    }
    const ids = new Set<string>();
    tenants = config.tenants.map((tenant, i) => {
      const path = `/tenants/${i}`;
      if (ids.has(tenant.id)) problems.add(`${path}/id`, 'duplicate', `tenant ${tenant.id} is given twice`);
      ids.add(tenant.id);
      if (tenant.apiKeys === undefined) problems.add(`${path}/apiKeys`, 'required', 'each tenant needs its API keys');
      checkRates(tenant.rates, path, problems);
      const { id, apiKeys, lists, ruleInstances, webhooks, limits, ...own } = tenant;
      return resolveTenant(
        dir,
        id,
        { apiKeys, lists, ruleInstances, webhooks } as Pick<TxmonConfig, keyof typeof tenantContents>,
        { ...shared, ...engineOptionsOf(common, own) },
        { ...config.limits, ...limits },
        path,
        context,
      );
    });
  }
  const keyed = tenants.filter((tenant) => tenant.apiKeys !== null);
  if (problems.list.length === 0 && keyed.length > 0) {
    try {
      tenantsOf({ tenants: keyed.map((tenant) => ({ id: tenant.id, apiKeys: tenant.apiKeys ?? [], engine: undefined as never })) });
    } catch (error) {
      problems.add(config.tenants === undefined ? '/apiKeys' : '/tenants', 'conflict', (error as Error).message.replace(/^createHttpHandler: /, ''));
    }
  }
  if (problems.list.length > 0) throw configError(file, problems.list);
  return { file, store, publicUrl: config.publicUrl?.replace(/\/+$/, ''), multiTenant: config.tenants !== undefined, tenants };
}

/** The tenants of a loaded file as `serve` starts them (keys from the command line for a default tenant without any). */
export function tenantSpecsOf(config: LoadedConfig, fallbackKeys: () => (string | LabelledApiKey)[]): TenantSpec[] {
  return config.tenants.map((tenant) => ({ id: tenant.id, apiKeys: tenant.apiKeys ?? fallbackKeys(), limits: tenant.limits }));
}

/** What {@link applyConfig} reports: one line per list or rule instance it wrote or found as configured. */
export type ConfigChange = {
  readonly tenant: string;
  readonly kind: 'list' | 'ruleInstance';
  readonly id: string;
  readonly change: 'CREATED' | 'UPDATED' | 'UNCHANGED';
  readonly version?: number;
};

/**
 * Brings each tenant's store in line with the file: each list written when it differs from the
 * stored one, each rule instance ensured (`ensureRuleInstance`: created with its id, a new version
 * when it differs, nothing written when the same), every change audited as made by `config`.
 * Lists and instances the file does not name are left alone.
 * @throws TxmonError `INVALID_CONFIGURATION` naming the entry's path in the file when the engine
 *   refuses it (a limit such as `maxRuleInstances`); a store's own errors as they are
 */
export async function applyConfig(
  tenants: readonly { readonly id: string; readonly engine: Engine }[],
  config: LoadedConfig,
  report: (change: ConfigChange) => void,
): Promise<void> {
  for (const configured of config.tenants) {
    const engine = tenants.find((tenant) => tenant.id === configured.id)?.engine;
    if (engine === undefined) continue;
    const refused = (error: unknown, at: string) => {
      if (!isTxmonError(error) || error.status >= 500) return error;
      const problems = createProblems();
      problems.addError(error, at);
      return configError(config.file, problems.list);
    };
    for (const [i, { listId, ...list }] of configured.lists.entries()) {
      const stored = await engine.getList(listId).catch((error: unknown) => {
        if (isTxmonError(error) && error.code === 'LIST_NOT_FOUND') return null;
        throw error;
      });
      const wanted = { ...list, items: [...new Set(list.items)] };
      if (stored !== null) {
        const { listId: _id, createdAt: _c, updatedAt: _u, ...current } = stored;
        if (canonicalJson(current) === canonicalJson(wanted)) {
          report({ tenant: configured.id, kind: 'list', id: listId, change: 'UNCHANGED' });
          continue;
        }
      }
      try {
        await engine.putList(listId, wanted, { actor: CONFIG_ACTOR });
      } catch (error) {
        throw refused(error, `${configured.path}/lists/${i}`);
      }
      report({ tenant: configured.id, kind: 'list', id: listId, change: stored === null ? 'CREATED' : 'UPDATED' });
    }
    for (const [i, { id, input }] of configured.ruleInstances.entries()) {
      let result: Awaited<ReturnType<Engine['ensureRuleInstance']>>;
      try {
        result = await engine.ensureRuleInstance(id, input, { actor: CONFIG_ACTOR });
      } catch (error) {
        throw refused(error, `${configured.path}/ruleInstances/${i}`);
      }
      report({ tenant: configured.id, kind: 'ruleInstance', id, change: result.change, version: result.instance.version });
    }
  }
}

/** One line per problem: `  <path>: <message> (<code>)`. */
export function formatConfigProblems(error: TxmonError): string {
  return error.details.map((d) => `  ${d.path === '' ? '/' : d.path}: ${d.message} (${d.code})\n`).join('');
}

/**
 * `txmon config schema`: prints the file's JSON Schema. `txmon config check <file.json>`: checks the file as `txmon serve --config` would at start,
 * without opening a store; prints a summary (exit code 0) or every problem by path (exit code 2).
 * @throws UsageError for a bad command line
 */
export async function configCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [sub, file, ...rest] = argv;
  if (sub === 'schema' && file === undefined) {
    process.stdout.write(configJsonSchemaText());
    return;
  }
  if (sub !== 'check' || file === undefined || rest.length > 0)
    throw new UsageError(sub === 'check' ? 'give one configuration file' : `unknown config command: ${sub ?? '(none)'}`);
  try {
    const config = await loadConfigFile(file, env);
    const instances = config.tenants.reduce((n, t) => n + t.ruleInstances.length, 0);
    process.stdout.write(
      `${file}: valid (${config.tenants.length} tenant${config.tenants.length === 1 ? '' : 's'}, ${instances} rule instance${instances === 1 ? '' : 's'})\n`,
    );
  } catch (error) {
    if (!isTxmonError(error) || error.code !== 'INVALID_CONFIGURATION') throw error;
    process.stderr.write(`txmon: ${file} is not valid:\n${formatConfigProblems(error)}`);
    process.exitCode = 2;
  }
}
