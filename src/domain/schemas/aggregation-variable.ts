/**
 * Aggregation variables of custom json-logic rules (docs/wire-format.md#custom-rules): named
 * windowed aggregates over a user's history that the logic reads as `agg.<key>`. This is their
 * request shape; how they are planned and computed is in `src/rules/aggregation-variables.ts`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CurrencyCodeSchema, defineClosedObject } from './common.js';
import { TIME_WINDOW_GRANULARITIES } from './time-window.js';

/** The aggregate functions a variable can compute. */
export const AGGREGATION_FUNCTIONS = ['COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'UNIQUE_COUNT'] as const;
/** Whose history a variable reads. */
export const AGGREGATION_USER_DIRECTIONS = ['SENDER', 'RECEIVER', 'SENDER_OR_RECEIVER'] as const;
/** Which of that user's transactions a variable reads. */
export const AGGREGATION_TRANSACTION_DIRECTIONS = ['SENDING', 'RECEIVING', 'SENDING_RECEIVING'] as const;

const WindowPointSchema = defineClosedObject(
  {
    units: Type.Integer({
      minimum: 0,
      maximum: 10_000,
      title: 'Units',
      description: 'How many granularity units back from the transaction time (0 = the transaction time)',
    }),
    granularity: Type.Union(
      ([...TIME_WINDOW_GRANULARITIES, 'now'] as const).map((g) => Type.Literal(g)),
      {
        title: 'Granularity',
        description: 'The unit; `now` is the transaction time itself',
      },
    ),
    rollingBasis: Type.Optional(
      Type.Boolean({
        title: 'Rolling basis',
        description:
          'Default true: the point is exactly units × granularity before the transaction time (30 days = 30 × 24 h). false: calendar-aligned for day and longer, as for rule time windows (the start of the current UTC unit minus units − 1 units)',
      }),
    ),
  },
  { title: 'Window point', description: 'A point before the transaction time' },
);

/** One aggregation variable as the request gives it. */
export const AggregationVariableSchema = defineClosedObject(
  {
    key: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$', title: 'Key', description: 'Name the logic reads the value under (`agg.<key>`)' }),
    aggregationFunc: Type.Union(
      AGGREGATION_FUNCTIONS.map((f) => Type.Literal(f)),
      { title: 'Function', description: 'What to compute over the window' },
    ),
    aggregationFieldKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        title: 'Field',
        description: 'Transaction field aggregated (see docs/rules.md for the supported fields); not used by COUNT',
      }),
    ),
    userDirection: Type.Union(
      AGGREGATION_USER_DIRECTIONS.map((d) => Type.Literal(d)),
      {
        title: 'User',
        description: 'SENDER or RECEIVER of the current transaction; SENDER_OR_RECEIVER evaluates the logic once per side (ORIGIN and DESTINATION hits)',
      },
    ),
    transactionDirection: Type.Union(
      AGGREGATION_TRANSACTION_DIRECTIONS.map((d) => Type.Literal(d)),
      {
        title: 'Transactions',
        description: "The user's sent, received, or all transactions",
      },
    ),
    timeWindow: defineClosedObject(
      { start: WindowPointSchema, end: WindowPointSchema },
      { title: 'Time window', description: 'From `start` (inclusive) to `end` (exclusive; inclusive when `end` is the transaction time)' },
    ),
    filtersLogic: Type.Optional(
      Type.Unknown({ title: 'Filter logic', description: 'json-logic over `transaction` (a past transaction): only those it accepts count' }),
    ),
    baseCurrency: Type.Optional(CurrencyCodeSchema),
    includeCurrentEntity: Type.Optional(Type.Boolean({ title: 'Include the current transaction', description: 'Default true' })),
  },
  { title: 'Aggregation variable' },
);
/** One aggregation variable as the request gives it. */
export type AggregationVariable = Static<typeof AggregationVariableSchema>;
