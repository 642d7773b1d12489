/**
 * The text of the output files: one JSON object per line for the history and the users, and the
 * labels as CSV. Pure functions; the command writes them.
 */
import type { HistoryRecord, LabelRow } from './types.js';

/** The history line of a record: the transaction or event body, without its label, and a newline. */
export function formatHistoryLine(record: HistoryRecord): string {
  return `${JSON.stringify(record.kind === 'transaction' ? record.transaction : record.event)}\n`;
}

/** A line of NDJSON for any JSON value. */
export function formatJsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** The header of the labels file. */
export const LABELS_HEADER = 'level,id,typology,scheme\n';

/** One row of the labels file (RFC 4180 quoting, though generated ids never need it). */
export function formatLabelRow(row: LabelRow): string {
  return `${[row.level, row.id, row.typology, row.scheme].map(quoteCsv).join(',')}\n`;
}

function quoteCsv(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}
