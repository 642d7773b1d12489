#!/usr/bin/env node
/**
 * Worst-case cost of the text-matching rules: for each rule that normalises, matches or measures
 * text (R-24, R-118, R-129, R-13), the most expensive transaction we know how to build, at the
 * largest parameters the build accepts, timed through the rule's `check` (no engine around it).
 *
 *   npm run build && node bench/hostile-strings.mjs
 *   node bench/hostile-strings.mjs --dist /tmp/other/dist/index.js   # another build (before/after)
 *
 * Options (all optional):
 *   --dist PATH            the built ESM entry to load (default ../dist/index.js)
 *   --min-ms N             time each case for at least N ms (default 300), at least 3 and at most 200 checks
 *   --expanding-keywords N R-24 keywords of 32 × U+FDFA in the case that expands them (default 2; the
 *                          schema allows 1000 and the time grows linearly with N where they are accepted)
 *
 * Each rule has several candidate parameter sets, hostile first. A candidate is first sent through
 * `createRuleInstance`: a build that refuses it (400 INVALID_PARAMETERS) reports "refused", and the
 * stored parameters of an accepted one are what the check gets. The engine's limit on the size of
 * a rule instance is raised to 16 MB so that the largest lists the parameter schemas allow can be
 * stored (10,000 blacklisted cards with 256-character names are about 5 MB; the default limit is
 * 256 KB); the limit on list items is left as it is. Per case: one warm-up check (it also
 * fills the rule's per-parameters caches, as a live instance has them), then timed checks; reported
 * are the median and the slowest check in ms (wall clock, `process.hrtime.bigint()`), and the worst
 * median over the accepted candidates of each rule.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: '../dist/index.js' },
    'min-ms': { type: 'string', default: '300' },
    'expanding-keywords': { type: 'string', default: '2' },
  },
});
const distUrl = new URL(args.dist, import.meta.url);
const { createEngine, LIBRARY_RULES } = await import(distUrl.href);
const minMs = Number(args['min-ms']);
const expandingKeywords = Number(args['expanding-keywords']);
const ruleById = new Map(LIBRARY_RULES.map((rule) => [rule.id, rule]));

// ---- text builders ----------------------------------------------------------------------------

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** The i-th word of `length` letters over `alphabet` (distinct for i < alphabet.length ** length). */
const wordOf = (i, length, alphabet = LETTERS) => Array.from({ length }, (_, d) => alphabet[Math.floor(i / alphabet.length ** d) % alphabet.length]).join('');
/** Cuts text to its first `max` code points (how JSON Schema counts `maxLength`). */
const cut = (text, max) => Array.from(text).slice(0, max).join('');
/**
 * Squared Latin abbreviations that NFKC turns into two letters each (㎀ → pa, ㎐ → hz, …), none of
 * them among the letters of the R-24 keywords below (q j x y z u).
 */
const SQUARED = Array.from('㎀㎁㎃㎄㎅㎆㎇㎐㎩㎰㎱㎳㎴㎵㎷㎸㎺㎻㎽㎾㏃㏄㏅㏈㏉㏊㏋㏌㏍㏏㏐㏑㏓㏗㏚㏛㏜㏝').filter((c) =>
  /^[a-ptvw]{2}$/.test(c.normalize('NFKC').toLowerCase()),
);

const consumer = (userId, name) => ({ userId, type: 'CONSUMER', profile: { userDetails: { name } }, riskLevel: null, craScore: null });
const context = (transaction, parameters, users = {}) => ({
  transaction,
  parameters,
  originUser: users.origin ?? null,
  destinationUser: users.destination ?? null,
  aggregates: {},
  money: { rates: null, baseCurrency: 'USD' },
});

// ---- cases ------------------------------------------------------------------------------------

/**
 * R-24. The reference is the schema's 4096 characters. Candidates:
 * - keywords of 32 × U+FDFA / U+FDFB (576 and 256 code points once normalised, 97 and 33 words)
 *   at 75 %, against 1024 distinct 3-letter words: every run of 97 words lies within the length
 *   window and none matches;
 * - 1000 one-word keywords "kcal" + 6 letters at 25 % (allowed distance 2), against words ㎉
 *   ("kcal") + three squared abbreviations (4 characters as written, 10 letters once normalised,
 *   so the normalised reference exceeds the 8192 code points screened): every keyword reads every
 *   word, and only its last letters tell them apart;
 * - 1000 two-letter keywords at 50 % against 1365 distinct two-letter words (many short runs);
 * - 62 phrases of 16 one-letter words at 10 % against 2048 one-letter words (the longest phrases).
 */
function r24Cases() {
  const threeLetterWords = cut(Array.from({ length: 1024 }, (_, i) => wordOf(i, 3)).join(' '), 4096);
  // Distinct keywords of 32 characters as written: the two ligatures alone, then 30 of them and two letters.
  const expanding = Array.from({ length: expandingKeywords }, (_, i) =>
    i < 2 ? (i === 0 ? '\uFDFA' : '\uFDFB').repeat(32) : (i % 2 === 0 ? '\uFDFA' : '\uFDFB').repeat(30) + wordOf(i, 2),
  );
  const kcalKeywords = Array.from({ length: 1000 }, (_, i) => `kcal${wordOf(i, 6, 'qjxyzu')}`);
  const kcalWords = Array.from({ length: 820 }, (_, i) => `\u3389${wordOf(i + 1000, 3, SQUARED)}`);
  const twoLetterKeywords = Array.from({ length: 1000 }, (_, i) => wordOf(i, 2, 'abcdefghijklmnopqrstuvwxyzαβγδεζηθικλμνξοπρστυφχψω').slice(0, 2));
  const twoLetterWords = Array.from({ length: 1365 }, (_, i) => wordOf(i, 2, 'абвгдежзийклмнопрстуфхцчшщъыьэюя0123456789'));
  const oneLetters = 'abcdefghijklmnop';
  const phraseKeywords = Array.from({ length: 62 }, (_, i) => Array.from(wordOf(i * 7919, 16, 'abcdefghijklmnop')).join(' '));
  const oneLetterWords = Array.from({ length: 2048 }, (_, i) => oneLetters[(i * 7 + Math.floor(i / 16) * 3 + Math.floor(i / 256)) % oneLetters.length]);
  const tx = (reference) => ({ reference });
  return [
    {
      name: `${expandingKeywords} keywords of 32 × U+FDFA/U+FDFB, 75 %`,
      parameters: { keywords: expanding, allowedDistancePercentage: 75 },
      transaction: tx(threeLetterWords),
    },
    {
      name: '1000 fuzzy 10-letter keywords, 25 %, squared-abbreviation words',
      parameters: { keywords: kcalKeywords, allowedDistancePercentage: 25 },
      transaction: tx(cut(kcalWords.join(' '), 4096)),
    },
    {
      name: '1000 fuzzy 2-letter keywords, 50 %, distinct 2-letter words',
      parameters: { keywords: twoLetterKeywords, allowedDistancePercentage: 50 },
      transaction: tx(cut(twoLetterWords.join(' '), 4096)),
    },
    {
      name: '62 fuzzy 16-word phrases, 10 %, one-letter words',
      parameters: { keywords: phraseKeywords, allowedDistancePercentage: 10 },
      transaction: tx(cut(oneLetterWords.join(' '), 4096)),
    },
  ];
}

/**
 * R-118. Consumers on both sides whose first, middle and last names are each 256 × U+FDFA (4,608
 * code points apiece once NFKD-normalised), against card / NPP names of 256 × U+FDFB, at 99 %: no
 * pair is within 99 %, so every side also measures its hit description.
 */
function r118Cases() {
  const name = (unit) => ({ firstName: unit.repeat(256), middleName: unit.repeat(256), lastName: unit.repeat(256) });
  const transaction = {
    originPaymentDetails: { method: 'CARD', nameOnCard: name('\uFDFB') },
    destinationPaymentDetails: { method: 'NPP', name: name('\uFDFB') },
  };
  const users = { origin: consumer('a', name('\uFDFA')), destination: consumer('b', name('\uFDFA')) };
  const latin = { firstName: wordOf(1, 256), middleName: wordOf(2, 256), lastName: wordOf(3, 256) };
  const latinTx = {
    originPaymentDetails: { method: 'CARD', nameOnCard: { firstName: wordOf(4, 256), lastName: wordOf(5, 256) } },
    destinationPaymentDetails: { method: 'IBAN', name: wordOf(6, 256) },
  };
  return [
    { name: '256 × U+FDFA names (3 fields) vs 256 × U+FDFB, both sides, 99 %', parameters: { allowedDistancePercentage: 99 }, transaction, users },
    {
      name: '256-letter names (3 fields), both sides, 99 %',
      parameters: { allowedDistancePercentage: 99 },
      transaction: latinTx,
      users: { origin: consumer('a', latin), destination: consumer('b', latin) },
    },
  ];
}

/**
 * R-129. 10,000 card entries (the schema's maximum) with 256-character names, against cards named
 * 256 × U+FDFA on both sides: entries with distinct first names (nothing to find), and entries that
 * all carry the card's first name but another last name (every entry is a candidate).
 */
function r129Cases() {
  const fdfa = '\uFDFA'.repeat(256);
  const card = { method: 'CARD', cardFingerprint: 'fp', nameOnCard: { firstName: fdfa, lastName: fdfa } };
  const transaction = { originPaymentDetails: card, destinationPaymentDetails: card };
  const distinct = Array.from({ length: 10_000 }, (_, i) => ({ nameOnCard: { firstName: wordOf(i, 256), lastName: wordOf(i + 1, 256) } }));
  const sameFirst = Array.from({ length: 10_000 }, (_, i) => ({ nameOnCard: { firstName: fdfa, lastName: wordOf(i, 256) } }));
  return [
    { name: '10,000 named card entries, distinct first names', parameters: { blacklistedCardPaymentDetails: distinct }, transaction },
    { name: "10,000 card entries with the card's first name", parameters: { blacklistedCardPaymentDetails: sameFirst }, transaction },
  ];
}

/** R-13. 10,000 wallet names (the maximum) of 256 characters; a wallet named 256 × U+FB2C (3 code points each under NFC). */
function r13Cases() {
  const merchantNames = Array.from({ length: 10_000 }, (_, i) => wordOf(i, 256));
  return [
    {
      name: '10,000 names, wallet named 256 × U+FB2C',
      parameters: { merchantNames },
      transaction: { destinationPaymentDetails: { method: 'WALLET', walletType: 'x', name: '\uFB2C'.repeat(256) } },
    },
  ];
}

const RULES = [
  ['R-24', r24Cases],
  ['R-118', r118Cases],
  ['R-129', r129Cases],
  ['R-13', r13Cases],
];

// ---- timing -----------------------------------------------------------------------------------

async function acceptedParameters(ruleId, parameters) {
  const engine = createEngine({ limits: { maxRuleInstanceSize: 16 * 1024 * 1024 } });
  try {
    const instance = await engine.createRuleInstance({ ruleId, parameters });
    return { parameters: instance.parameters };
  } catch (error) {
    if (error?.code === 'INVALID_PARAMETERS' || error?.code === 'LIMIT_EXCEEDED') {
      return { refused: `${error.code}: ${error.details.map((d) => `${d.path} ${d.code}`).join(', ')}` };
    }
    throw error;
  }
}

function timeChecks(rule, ctx) {
  const hits = rule.check(ctx).length; // warm-up, fills the per-parameters caches
  const times = [];
  const start = process.hrtime.bigint();
  while (times.length < 200 && (times.length < 3 || Number(process.hrtime.bigint() - start) / 1e6 < minMs)) {
    const t = process.hrtime.bigint();
    rule.check(ctx);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], max: times[times.length - 1], runs: times.length, hits };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4));
console.log(`hostile-strings: ${distUrl.pathname}`);
console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cpus`);
console.log('');
console.log('| rule | case | ms/transaction (median) | slowest | checks | hit sides |');
console.log('|---|---|---:|---:|---:|---:|');
const worst = [];
for (const [ruleId, build] of RULES) {
  const rule = ruleById.get(ruleId);
  let ruleWorst = null;
  for (const c of build()) {
    const accepted = await acceptedParameters(ruleId, c.parameters);
    if (accepted.refused !== undefined) {
      console.log(`| ${ruleId} | ${c.name} | refused (${accepted.refused}) | | | |`);
      continue;
    }
    const r = timeChecks(rule, context(c.transaction, accepted.parameters, c.users));
    console.log(`| ${ruleId} | ${c.name} | ${fmt(r.median)} | ${fmt(r.max)} | ${r.runs} | ${r.hits} |`);
    if (ruleWorst === null || r.median > ruleWorst.median) ruleWorst = { ...r, name: c.name };
  }
  worst.push([ruleId, ruleWorst]);
}
console.log('');
console.log('Worst accepted case per rule (median ms per transaction):');
for (const [ruleId, w] of worst) console.log(`  ${ruleId}: ${w === null ? 'none accepted' : `${fmt(w.median)} ms — ${w.name}`}`);
