#!/usr/bin/env node
/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self and inclusive (self + callees) time
 * per function, highest first, with the built bundle's positions mapped back to `src/…ts` through
 * its source map when there is one; optionally the hottest call stacks into one function.
 *
 * Usage: `node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--callers FUNCTION_NAME] [--lines FUNCTION_NAME]`.
 * `--lines` lists the self time of one function by source line (V8 records `positionTicks` per
 * sampled line; inlined callees count on the caller's lines, mapped to their own source lines).
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const maps = new Map();

function sourceMapOf(url) {
  if (maps.has(url)) return maps.get(url);
  let map = null;
  try {
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    if (file && existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    map = null;
  }
  maps.set(url, map);
  return map;
}

/** `src/…:line` of a profile call frame through the bundle's source map (else the bundle path), `(native)` without a url. */
export function locate(frame) {
  const { url, lineNumber, columnNumber } = frame;
  if (!url) return '(native)';
  const map = sourceMapOf(url);
  if (map && lineNumber >= 0) {
    const entry = map.findEntry(lineNumber, columnNumber);
    if (entry?.originalSource) {
      const source = entry.originalSource.replace(/^.*?(src\/|node_modules\/)/, '$1');
      return `${source}:${entry.originalLine + 1}`;
    }
  }
  const short = url.replace(/^file:\/\//, '').replace(/^.*?(node_modules\/|bench\/|dist\/)/, '$1');
  return `${short}:${lineNumber + 1}`;
}

/**
 * Self and inclusive time per function of a `.cpuprofile`.
 * @param {string} file
 * @param {{ top?: number, callers?: string }} [options] `callers`: also list the hottest stacks ending in this function name
 * @returns {{ totalMs: number, self: Row[], inclusive: Row[], callers: { stack: string, ms: number }[] }}
 * @typedef {{ name: string, where: string, ms: number, share: number }} Row
 */
export function summarizeProfile(file, options = {}) {
  const top = options.top ?? 20;
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const _byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map();
  const info = new Map();
  for (const n of profile.nodes) {
    const name = n.callFrame.functionName || '(anonymous)';
    const where = locate(n.callFrame);
    const key = `${name}\u0000${where}`;
    keyOf.set(n.id, key);
    if (!info.has(key)) info.set(key, { name, where });
  }
  // timeDeltas[i] is the time before sample i: attribute the following delta to sample i.
  const perNode = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) perNode.set(samples[i], (perNode.get(samples[i]) ?? 0) + (timeDeltas[i + 1] ?? 0));
  const self = new Map();
  const inclusive = new Map();
  const stacks = new Map();
  let total = 0;
  for (const [id, us] of perNode) {
    total += us;
    const key = keyOf.get(id);
    self.set(key, (self.get(key) ?? 0) + us);
    const seen = new Set();
    const chain = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const k = keyOf.get(cur);
      chain.push(k);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
    if (options.callers) {
      const at = chain.findIndex((k) => info.get(k).name === options.callers);
      if (at >= 0) {
        const stack = chain
          .slice(at, at + 8)
          .map((k) => `${info.get(k).name} (${info.get(k).where})`)
          .join(' ← ');
        stacks.set(stack, (stacks.get(stack) ?? 0) + us);
      }
    }
  }
  const rows = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ ...info.get(k), ms: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 }));
  const callers = [...stacks.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([stack, us]) => ({ stack, ms: Math.round(us / 100) / 10 }));
  return { totalMs: Math.round(total / 1000), self: rows(self), inclusive: rows(inclusive), callers };
}

/**
 * Self time of the functions named `name`, by source line (from the profile's `positionTicks`,
 * mapped through the bundle's source map), highest first.
 * @param {string} file
 * @param {string} name
 * @param {number} [top]
 * @returns {{ where: string, ticks: number, share: number }[]} `share` of the function's ticks
 */
export function selfTimeByLine(file, name, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byLine = new Map();
  let total = 0;
  for (const n of profile.nodes) {
    if (n.callFrame.functionName !== name || !n.positionTicks) continue;
    for (const { line, ticks } of n.positionTicks) {
      // positionTicks lines are 1-based; call frames' lineNumber is 0-based.
      const where = locate({ url: n.callFrame.url, lineNumber: line - 1, columnNumber: 0 });
      byLine.set(where, (byLine.get(where) ?? 0) + ticks);
      total += ticks;
    }
  }
  return [...byLine.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, ticks]) => ({ where, ticks, share: Math.round((ticks / total) * 1000) / 10 }));
}

/** The summary as text tables. */
export function formatProfileSummary(summary) {
  const table = (title, rows) => [
    title,
    '       ms      %  function  (location)',
    ...rows.map((r) => `${String(r.ms).padStart(9)}  ${r.share.toFixed(1).padStart(5)}  ${r.name}  (${r.where})`),
  ];
  const lines = [
    `total ${summary.totalMs} ms sampled`,
    ...table('\nself time:', summary.self),
    ...table('\ninclusive time (self + callees):', summary.inclusive),
  ];
  if (summary.callers.length > 0) {
    lines.push('\nhottest stacks into the function (callee ← caller …):');
    for (const c of summary.callers) lines.push(`${String(c.ms).padStart(9)}  ${c.stack}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let file;
  let top = 25;
  let callers;
  let lines;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--top') top = Number(args[++i]);
    else if (args[i] === '--callers') callers = args[++i];
    else if (args[i] === '--lines') lines = args[++i];
    else file = args[i];
  }
  if (!file) {
    console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--callers FUNCTION_NAME] [--lines FUNCTION_NAME]');
    process.exit(2);
  }
  if (lines !== undefined) {
    const rows = selfTimeByLine(file, lines, top);
    console.log(`self time of ${lines} by source line (samples, share of the function's):`);
    for (const r of rows) console.log(`${String(r.ticks).padStart(7)}  ${r.share.toFixed(1).padStart(5)} %  ${r.where}`);
  } else {
    console.log(formatProfileSummary(summarizeProfile(file, { top, callers })));
  }
}
