/** The domain JSON Schemas (TypeBox) and the types derived from them. */
export * from './common.js';
export * from './payment-details.js';
export * from './transaction.js';
export * from './user.js';
export * from './comment.js';
export * from './rule-instance.js';
export * from './results.js';
export * from './list.js';
export * from './time-window.js';
export * from './rule-filters.js';
export * from './aggregation-variable.js';
export * from './workflow.js';
export * from './audit.js';
