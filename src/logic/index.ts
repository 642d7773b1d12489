/**
 * Custom-rule logic: json-logic expressions checked against an operator allowlist and compiled
 * for safe, bounded evaluation.
 */
export { FORBIDDEN_PATH_SEGMENTS, LOGIC_LIMITS, LOGIC_OPERATORS, LOGIC_ROOTS } from './allowlist.js';
export type { LogicRoot } from './allowlist.js';
export { compileLogic } from './compile-logic.js';
export type { CompileLogicOptions, CompiledLogic, LogicData } from './compile-logic.js';
