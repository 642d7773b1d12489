/** Domain: enums, code tables, JSON Schemas and types, exact money arithmetic. No I/O. */
export * from './enums.js';
export * from './codes.js';
export * from './schemas/index.js';
export * from './money.js';
export * from './canonical-json.js';
export * from './time.js';
export * from './json.js';
export * from './entities.js';
export * from './risk-score.js';
export * from './case-policy.js';
export * from './user-update.js';
export * from './workflow.js';
export * from './audit.js';
