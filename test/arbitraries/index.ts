/** The project's domain arbitraries: the same ones `txmon/testing` ships to hosts. */
export * from '../../src/testing/arbitraries.js';
