/**
 * The time window of a stateful rule (`timeWindow` parameters) and of an aggregation variable:
 * units, granularity, rolling or calendar-aligned, fiscal year. Semantics:
 * docs/wire-format.md#time-windows; the arithmetic is in `src/aggregation/time-window.ts`.
 */
import { Type, type Static } from '@sinclair/typebox';

/** The units a {@link TimeWindow} counts in. */
export const TIME_WINDOW_GRANULARITIES = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year', 'fiscal_year'] as const;

/** One of {@link TIME_WINDOW_GRANULARITIES}. */
export type TimeWindowGranularity = (typeof TIME_WINDOW_GRANULARITIES)[number];

/** Largest accepted `units` of a {@link TimeWindow}. */
export const MAX_TIME_WINDOW_UNITS = 10_000;

/**
 * Fiscal-year start used when a `fiscal_year` window has no `fiscalYear`: 1 January, so the fiscal
 * year equals the calendar year unless configured otherwise.
 */
export const DEFAULT_FISCAL_YEAR_START = { startMonth: 1, startDay: 1 } as const;

/**
 * JSON Schema (TypeBox) of a rule's time window. Every property carries `title` and
 * `description`, so a console can render a form from it. Unknown properties are rejected.
 */
export const TimeWindowSchema = Type.Object(
  {
    units: Type.Integer({
      minimum: 1,
      maximum: MAX_TIME_WINDOW_UNITS,
      title: 'Units',
      description: 'How many granularity units the window spans (1 to 10000).',
    }),
    granularity: Type.Union(
      TIME_WINDOW_GRANULARITIES.map((g) => Type.Literal(g)),
      {
        title: 'Granularity',
        description:
          'The unit of the window. second, minute and hour windows are always rolling; day, week, month, year and fiscal_year windows are calendar-aligned unless rollingBasis is true.',
      },
    ),
    rollingBasis: Type.Optional(
      Type.Boolean({
        title: 'Rolling basis',
        description:
          'When true the window reaches back exactly units × granularity from the transaction time; when false or absent, day/week/month/year/fiscal_year windows start at the beginning of the current calendar unit (UTC) minus units − 1 units.',
      }),
    ),
    fiscalYear: Type.Optional(
      Type.Object(
        {
          startMonth: Type.Integer({
            minimum: 1,
            maximum: 12,
            title: 'Start month',
            description: 'Month (1 = January) in which the fiscal year starts.',
          }),
          startDay: Type.Integer({
            minimum: 1,
            maximum: 31,
            title: 'Start day',
            description: 'Day of the start month on which the fiscal year starts; clamped to the last day of shorter months (31 in February means 28 or 29).',
          }),
        },
        {
          additionalProperties: false,
          title: 'Fiscal year',
          description: 'Start of the fiscal year, used by the fiscal_year granularity. Default: 1 January.',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'Time window',
    description: 'The span of history a stateful rule looks at, ending at the current transaction.',
  },
);

/** A rule's time window; see {@link TimeWindowSchema} and {@link windowStart}. */
export type TimeWindow = Static<typeof TimeWindowSchema>;
