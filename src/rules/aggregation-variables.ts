/**
 * Aggregation variables of custom json-logic rules (docs/wire-format.md#custom-rules): named
 * windowed aggregates over a user's history that the logic reads as `agg.<key>`.
 *
 * A variable is turned into aggregate needs on a built-in series (or, with `filtersLogic`, on a
 * derived series holding only the past transactions the filter logic accepts), so it is computed by
 * the same incremental store, with the same costs, as the library rules. A custom instance with
 * variables runs as a synthetic {@link RuleDefinition} ({@link createCustomLogicRule}): the engine
 * plans, queries and evaluates it like any library rule.
 */
import { Type } from '@sinclair/typebox';
import { windowStart } from '../aggregation/time-window.js';
import {
  type AGGREGATION_FUNCTIONS,
  type AGGREGATION_TRANSACTION_DIRECTIONS,
  type AGGREGATION_USER_DIRECTIONS,
  AggregationVariableSchema,
  type AggregationVariable,
} from '../domain/schemas/aggregation-variable.js';
import type { AggregateValue } from '../aggregation/aggregate-store.js';
import { canonicalJson, convertScaled, divideRounded, scaledToNumber, type Transaction } from '../domain/index.js';
import { invalidRequest, TxmonError, type ErrorDetail } from '../errors.js';
import { compileLogic, type CompiledLogic } from '../logic/index.js';
import { collectSchemaErrors } from '../validation/index.js';
import { getPreviousDouble } from './kits/anomaly.js';
import { logicEvidence } from './kits/evidence.js';
import { createNeed } from './kits/need.js';
import { filterIdOf } from './filters/index.js';
import { createDerivedSeries, userEntryValuesOf, type DerivedSeries, type UserSeriesName } from './series.js';
import type { AggregateNeed, MoneyContext, RuleDefinition, RuleHit, RuleUser } from './types.js';

type Side = 'origin' | 'destination';

/**
 * The entry value field (see `EntryValueField`) a UNIQUE_COUNT field is kept under, or `null`
 * when entries do not keep it. Entries of the user-sending / user-receiving series carry the
 * sender's / receiver's side, so side-specific fields are told apart by whether they name the
 * user's own side; over SENDING_RECEIVING (entries of both sides) only `type` and
 * `transactionState` are allowed.
 */
function distinctEntryField(fieldKey: string, direction: (typeof AGGREGATION_TRANSACTION_DIRECTIONS)[number]): string | null {
  if (fieldKey === 'type') return 'type';
  if (fieldKey === 'transactionState') return 'state';
  if (direction === 'SENDING_RECEIVING') return null;
  const own: Side = direction === 'SENDING' ? 'origin' : 'destination';
  const [prefix, ...rest] = fieldKey.split('.');
  const path = rest.join('.');
  const side: Side | null = prefix?.startsWith('origin') ? 'origin' : prefix?.startsWith('destination') ? 'destination' : null;
  if (side === null) return null;
  const isOwn = side === own;
  if (prefix === `${side}UserId` && path === '' && !isOwn) return 'counterparty';
  if (prefix === `${side}AmountDetails` && path === 'country') return isOwn ? 'country' : 'counterpartyCountry';
  if (prefix === `${side}AmountDetails` && path === 'transactionCurrency' && isOwn) return 'currency';
  return null;
}

/** Amount fields of SUM/AVG/MIN/MAX: the user's own side only (entries keep that side's amount). */
function isAmountField(fieldKey: string, direction: (typeof AGGREGATION_TRANSACTION_DIRECTIONS)[number]): boolean {
  if (fieldKey === 'amount') return true;
  if (direction === 'SENDING') return fieldKey === 'originAmountDetails.transactionAmount';
  if (direction === 'RECEIVING') return fieldKey === 'destinationAmountDetails.transactionAmount';
  return false;
}

/** A validated variable, ready to plan. */
export interface CompiledAggregationVariable {
  /** The variable as validated (what the instance stores). */
  readonly source: AggregationVariable;
  readonly key: string;
  readonly func: (typeof AGGREGATION_FUNCTIONS)[number];
  readonly userDirection: (typeof AGGREGATION_USER_DIRECTIONS)[number];
  readonly series: UserSeriesName;
  /** The derived series when the variable has `filtersLogic`. */
  readonly derived: DerivedSeries | null;
  /** UNIQUE_COUNT: the entry value field counted; `null` for the other functions. */
  readonly distinct: string | null;
  readonly start: WindowPoint;
  readonly end: WindowPoint;
  readonly currency: string | undefined;
  readonly includeCurrent: boolean;
  readonly filter: CompiledLogic | null;
  /** The names of the variable's needs, per side and part (see {@link needName}), made once. */
  readonly names: Readonly<Record<Side, NeedNames>>;
}

/** The need names of one variable on one side, one per part it may read. */
type NeedNames = Readonly<Record<'count' | 'sum' | 'n' | 'min' | 'max' | 'distinct', string>>;

function needNamesOf(key: string, side: Side): NeedNames {
  return {
    count: needName(key, side, 'count'),
    sum: needName(key, side, 'sum'),
    n: needName(key, side, 'n'),
    min: needName(key, side, 'min'),
    max: needName(key, side, 'max'),
    distinct: needName(key, side, 'distinct'),
  };
}

type WindowPoint = AggregationVariable['timeWindow']['start'];

const REFERENCE_TIME = Date.UTC(2025, 0, 15, 12);

/**
 * Epoch ms of a window point before `at` (`now` or 0 units = `at`). Rolling unless `rollingBasis`
 * is false, like the library rules' default windows: "30 days back" is 30 × 24 h before the
 * transaction, where calendar alignment would make it 29 to 30 days depending on the time of day.
 */
function pointAt(at: number, point: WindowPoint): number {
  const { units, granularity } = point;
  if (granularity === 'now' || units === 0) return at;
  return windowStart(at, { units, granularity, rollingBasis: point.rollingBasis !== false });
}

/**
 * Built once: compiled validators are cached by schema object (here and inside ajv), so an array
 * schema built per call would be compiled on every call, and every copy kept.
 */
const AggregationVariablesSchema = Type.Array(AggregationVariableSchema);

const SERIES_OF: Readonly<Record<(typeof AGGREGATION_TRANSACTION_DIRECTIONS)[number], UserSeriesName>> = {
  SENDING: 'user-sending',
  RECEIVING: 'user-receiving',
  SENDING_RECEIVING: 'user-all',
};

/**
 * Validates `logicAggregationVariables` and compiles them. Checks, each detail with its path under
 * `basePath` (e.g. `/logicAggregationVariables/0/aggregationFieldKey`): the schema; unique keys
 * (`duplicate`); a field for every function but COUNT, and one the store keeps
 * (`unsupported`); a window whose start is before its end (`range`); `filtersLogic` against the
 * operator allowlist, reading only `transaction`.
 *
 * @throws TxmonError `INVALID_LOGIC` (400) naming every problem's path.
 */
export function compileAggregationVariables(variables: unknown, basePath: string): CompiledAggregationVariable[] {
  if (variables === undefined) return [];
  const details: ErrorDetail[] = collectSchemaErrors(AggregationVariablesSchema, variables, basePath);
  if (details.length > 0) throw invalid(details);
  const list = variables as AggregationVariable[];
  const out: CompiledAggregationVariable[] = [];
  const keys = new Set<string>();
  list.forEach((v, i) => {
    const path = `${basePath}/${i}`;
    if (keys.has(v.key)) details.push({ path: `${path}/key`, code: 'duplicate', message: 'is the key of an earlier variable' });
    keys.add(v.key);
    let distinct: string | null = null;
    if (v.aggregationFunc !== 'COUNT') {
      const field = v.aggregationFieldKey;
      if (field === undefined) {
        details.push({ path: `${path}/aggregationFieldKey`, code: 'required', message: `is required for ${v.aggregationFunc}` });
      } else if (v.aggregationFunc === 'UNIQUE_COUNT') {
        distinct = distinctEntryField(field, v.transactionDirection);
        if (distinct === null) {
          details.push({
            path: `${path}/aggregationFieldKey`,
            code: 'unsupported',
            message: 'is not a field UNIQUE_COUNT can count for this transaction direction (see docs/rules.md)',
          });
        }
      } else if (!isAmountField(field, v.transactionDirection)) {
        details.push({
          path: `${path}/aggregationFieldKey`,
          code: 'unsupported',
          message: `must be the user's own amount for ${v.aggregationFunc} (amount, or the origin / destination transactionAmount of the direction)`,
        });
      }
    }
    if (!(pointAt(REFERENCE_TIME, v.timeWindow.start) < pointAt(REFERENCE_TIME, v.timeWindow.end))) {
      details.push({ path: `${path}/timeWindow/start`, code: 'range', message: 'must be before the window end' });
    }
    let filter: CompiledLogic | null = null;
    let derived: DerivedSeries | null = null;
    const series = SERIES_OF[v.transactionDirection];
    if (v.filtersLogic !== undefined) {
      try {
        const compiled = compileLogic(v.filtersLogic, { basePath: `${path}/filtersLogic`, roots: ['transaction'] });
        filter = compiled;
        derived = createDerivedSeries(series, `v.${filterIdOf(canonicalJson(v.filtersLogic))}`, (transaction) => compiled.evaluate({ transaction }));
      } catch (error) {
        if (error instanceof TxmonError) details.push(...error.details);
        else throw error;
      }
    }
    out.push({
      source: v,
      key: v.key,
      func: v.aggregationFunc,
      userDirection: v.userDirection,
      series,
      derived,
      distinct,
      start: v.timeWindow.start,
      end: v.timeWindow.end,
      currency: v.baseCurrency,
      includeCurrent: v.includeCurrentEntity !== false,
      filter,
      names: { origin: needNamesOf(v.key, 'origin'), destination: needNamesOf(v.key, 'destination') },
    });
  });
  if (details.length > 0) throw invalid(details);
  return out;
}

function invalid(details: ErrorDetail[]): TxmonError {
  return invalidRequest(details, 'aggregation variables', 'INVALID_LOGIC');
}

/** The need names of one variable read for one side. */
function needName(key: string, side: Side, part: string): string {
  return `${side}:${key}:${part}`;
}

function planVariable(variable: CompiledAggregationVariable, transaction: Transaction, side: Side, out: AggregateNeed[]): void {
  const userId = side === 'origin' ? transaction.originUserId : transaction.destinationUserId;
  if (!userId) return;
  const at = transaction.timestamp;
  const start = pointAt(at, variable.start);
  const endPoint = pointAt(at, variable.end);
  // The end is exclusive unless it is the transaction time itself.
  const end = endPoint === at ? at : getPreviousDouble(endPoint);
  const series = (variable.derived?.name ?? variable.series) as AggregateNeed['series'];
  const excludeId = transaction.transactionId;
  const inWindow = at >= start && at <= end;
  const includeCurrent = variable.includeCurrent && inWindow;
  const names = variable.names[side];
  switch (variable.func) {
    case 'COUNT':
      out.push(createNeed(names.count, series, userId, start, end, 'count', excludeId, includeCurrent));
      return;
    case 'SUM':
      out.push(createNeed(names.sum, series, userId, start, end, 'sum', excludeId, includeCurrent));
      return;
    case 'AVG':
      out.push(createNeed(names.sum, series, userId, start, end, 'sum', excludeId, includeCurrent));
      out.push(createNeed(names.n, series, userId, start, end, 'amountCount', excludeId, includeCurrent));
      return;
    case 'MIN':
      out.push(createNeed(names.min, series, userId, start, end, 'min', excludeId, includeCurrent));
      return;
    case 'MAX':
      out.push(createNeed(names.max, series, userId, start, end, 'max', excludeId, includeCurrent));
      return;
    case 'UNIQUE_COUNT': {
      const field = variable.distinct as string;
      // A distinct count cannot add the current transaction afterwards (mergeCurrentContribution
      // skips it), so its value is passed as present — but only when the transaction is one of this
      // user's transactions of the direction (the receiver did not send it), and as the value its
      // own entry there will keep, so it counts the same now as once stored.
      const accepted = includeCurrent && (variable.filter === null || variable.filter.evaluate({ transaction }));
      const value = accepted ? userEntryValuesOf(transaction, variable.series, userId)?.[field] : undefined;
      out.push(
        createNeed(names.distinct, series, userId, start, end, 'distinct', excludeId, false, {
          field,
          includeValue: value ? value : undefined,
        }),
      );
      return;
    }
  }
}

/** A count of a variable: only a number is one (an aggregate value may also be a bigint or a list). */
function countOf(value: AggregateValue | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/** A money value of a variable: a number in the variable's currency (json-logic works on numbers). */
function moneyValue(value: AggregateValue, currency: string | undefined, money: MoneyContext, at: number): number | null {
  if (typeof value !== 'bigint') return null;
  if (currency === undefined || currency === money.baseCurrency) return scaledToNumber(value);
  const converted = convertScaled(value, money.baseCurrency, currency, money.rates, at);
  return converted === null ? null : scaledToNumber(converted);
}

function variableValueOf(
  variable: CompiledAggregationVariable,
  side: Side,
  aggregates: Readonly<Record<string, AggregateValue>>,
  money: MoneyContext,
  at: number,
): number | null {
  const names = variable.names[side];
  switch (variable.func) {
    case 'COUNT':
      return countOf(aggregates[names.count]);
    case 'SUM':
      return moneyValue(aggregates[names.sum] ?? 0n, variable.currency, money, at) ?? 0;
    case 'AVG': {
      const n = countOf(aggregates[names.n]);
      if (n === 0) return null;
      const sum = aggregates[names.sum];
      if (typeof sum !== 'bigint') return null;
      // Division to 10^-8 (half-to-even, like every money division), then the variable's currency.
      return moneyValue(divideRounded(sum, BigInt(n)), variable.currency, money, at);
    }
    case 'MIN':
      return moneyValue(aggregates[names.min] ?? null, variable.currency, money, at);
    case 'MAX':
      return moneyValue(aggregates[names.max] ?? null, variable.currency, money, at);
    case 'UNIQUE_COUNT':
      return countOf(aggregates[names.distinct]);
  }
}

/**
 * A custom json-logic instance with aggregation variables as a rule: `aggregates()` plans the
 * variables' needs (for the sender, the receiver, or both), `check()` evaluates the logic with
 * `agg` filled. When a variable reads SENDER_OR_RECEIVER, the logic runs once per side — with that
 * side's values — and each true result hits that side (ORIGIN / DESTINATION); otherwise one run
 * hits the sides of the transaction like a plain custom rule.
 */
export function createCustomLogicRule(
  logic: CompiledLogic,
  variables: readonly CompiledAggregationVariable[],
  texts: { readonly description: string; readonly descriptionTemplate: string },
): RuleDefinition<Record<string, never>> & { readonly derived: readonly DerivedSeries[] } {
  const perSide = variables.some((v) => v.userDirection === 'SENDER_OR_RECEIVER');
  const series = [...new Set(variables.map((v) => v.series))];
  const derived = variables.flatMap((v) => (v.derived ? [v.derived] : []));
  const sideFor = (v: CompiledAggregationVariable, evaluated: Side): Side =>
    v.userDirection === 'SENDER' ? 'origin' : v.userDirection === 'RECEIVER' ? 'destination' : evaluated;

  const aggFor = (side: Side, aggregates: Readonly<Record<string, AggregateValue>>, money: MoneyContext, at: number) => {
    const agg: Record<string, number | null> = {};
    for (const v of variables) agg[v.key] = variableValueOf(v, sideFor(v, side), aggregates, money, at);
    return agg;
  };
  const profile = (user: RuleUser | null) => user?.profile ?? null;
  // The (variable, side) pairs read, each once, in planning order: the same for every transaction.
  const reads: { readonly variable: CompiledAggregationVariable; readonly side: Side }[] = [];
  const planned = new Set<string>();
  for (const side of perSide ? (['origin', 'destination'] as const) : (['origin'] as const)) {
    for (const v of variables) {
      const s = sideFor(v, side);
      const id = `${v.key}:${s}`;
      if (planned.has(id)) continue;
      planned.add(id);
      reads.push({ variable: v, side: s });
    }
  }

  return {
    id: 'CUSTOM',
    name: 'Custom rule',
    description: texts.description,
    descriptionTemplate: texts.descriptionTemplate,
    parametersSchema: Type.Object({}),
    defaultParameters: {},
    defaultAction: 'FLAG',
    defaultNature: 'AML',
    labels: [],
    defaultCasePriority: 'P1',
    checksFor: ['Custom logic'],
    types: [],
    typologies: [],
    series,
    derived,
    aggregates({ transaction }) {
      const needs: AggregateNeed[] = [];
      for (let i = 0; i < reads.length; i++) {
        const read = reads[i] as (typeof reads)[number];
        planVariable(read.variable, transaction, read.side, needs);
      }
      return needs;
    },
    check({ transaction, originUser, destinationUser, aggregates, money }): RuleHit[] {
      // A literal per evaluation, never a spread of a shared base (see rules/kits/need.ts).
      const dataFor = (side: Side) => ({
        transaction,
        originUser: profile(originUser),
        destinationUser: profile(destinationUser),
        agg: aggFor(side, aggregates, money, transaction.timestamp),
      });
      // Each hit's evidence names the variables' values the logic read on that side.
      if (!perSide) {
        const data = dataFor('origin');
        if (!logic.evaluate(data)) return [];
        const hits: RuleHit[] = [];
        if (transaction.originUserId || !transaction.destinationUserId) hits.push({ direction: 'ORIGIN', evidence: [logicEvidence('ORIGIN', data.agg)] });
        if (transaction.destinationUserId) hits.push({ direction: 'DESTINATION', evidence: [logicEvidence('DESTINATION', data.agg)] });
        return hits;
      }
      const hits: RuleHit[] = [];
      if (transaction.originUserId) {
        const data = dataFor('origin');
        if (logic.evaluate(data)) hits.push({ direction: 'ORIGIN', evidence: [logicEvidence('ORIGIN', data.agg)] });
      }
      if (transaction.destinationUserId) {
        const data = dataFor('destination');
        if (logic.evaluate(data)) hits.push({ direction: 'DESTINATION', evidence: [logicEvidence('DESTINATION', data.agg)] });
      }
      return hits;
    },
  };
}
