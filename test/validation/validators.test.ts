import { describe, expect, test } from 'vitest';
import { isTxmonError, type TxmonError } from '../../src/errors.js';
import {
  validateBusinessUser,
  validateCommentRequest,
  validateConsumerUser,
  validatePresignedUrlRequest,
  validateRuleInstanceRequest,
  validateTransaction,
  validateTransactionEvent,
} from '../../src/validation/validators.js';

function errorOf(run: () => unknown): TxmonError {
  try {
    run();
  } catch (error) {
    if (isTxmonError(error)) return error;
    throw error;
  }
  throw new Error('expected a TxmonError');
}

const TS = 1_700_000_000_000;

describe('validateRuleInstanceRequest', () => {
  test.each([
    { name: 'id', input: { id: 'ri-1', ruleId: 'R-1' }, expected: ['/id'] },
    { name: 'counters and timestamps', input: { runCount: 0, hitCount: 0, createdAt: TS, updatedAt: TS }, expected: ['/runCount', '/hitCount', '/createdAt', '/updatedAt'] },
    { name: 'read-only field next to an unknown one', input: { hitCount: 1, bogus: true }, expected: ['/hitCount'] },
  ])('rejects read-only $name with READ_ONLY_FIELD', ({ input, expected }) => {
    const error = errorOf(() => validateRuleInstanceRequest(input));
    expect(error.code).toBe('READ_ONLY_FIELD');
    expect(error.status).toBe(400);
    expect(error.details.map((d) => d.path)).toEqual(expected);
    expect(error.details.every((d) => d.code === 'read-only')).toBe(true);
  });

  test('returns a valid request unchanged', () => {
    const input = { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 } }, action: 'FLAG' };
    expect(validateRuleInstanceRequest(input)).toBe(input);
  });

  test.each([
    { name: 'unknown property', input: { ruleId: 'R-1', colour: 'red' }, expected: { path: '/colour', code: 'additionalProperties' } },
    { name: 'not an object', input: ['R-1'], expected: { path: '', code: 'type' } },
    { name: 'forbidden key in parameters', input: { parameters: JSON.parse('{"__proto__":{}}') as unknown }, expected: { path: '/parameters/__proto__', code: 'forbidden-key' } },
  ])('rejects $name with VALIDATION_FAILED', ({ input, expected }) => {
    const error = errorOf(() => validateRuleInstanceRequest(input));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map(({ path, code }) => ({ path, code }))).toEqual([expected]);
  });
});

describe('ready validators', () => {
  test.each([
    { name: 'validateTransaction', validate: validateTransaction, valid: { type: 'T', transactionId: 't', timestamp: TS }, invalidPath: '/transactionId' },
    { name: 'validateTransactionEvent', validate: validateTransactionEvent, valid: { transactionId: 't', timestamp: TS, transactionState: 'SENT' }, invalidPath: '/transactionState' },
    { name: 'validateConsumerUser', validate: validateConsumerUser, valid: { userId: 'u', createdTimestamp: TS }, invalidPath: '/userId' },
    { name: 'validateBusinessUser', validate: validateBusinessUser, valid: { userId: 'u', createdTimestamp: TS, legalEntity: { companyGeneralDetails: {} } }, invalidPath: '/legalEntity' },
    { name: 'validateCommentRequest', validate: validateCommentRequest, valid: { body: 'b' }, invalidPath: '/body' },
    { name: 'validatePresignedUrlRequest', validate: validatePresignedUrlRequest, valid: { filename: 'f', fileSize: 1 }, invalidPath: '/filename' },
  ])('$name accepts a valid body and names the missing field of {}', ({ validate, valid, invalidPath }) => {
    expect(validate(valid)).toBe(valid);
    const error = errorOf(() => validate({}));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d) => d.path)).toContain(invalidPath);
  });
});
