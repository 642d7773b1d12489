/**
 * The HTML report of a simulation: one self-contained file (no network: its styles, its data and
 * Chart.js are inside it) that an analyst reads at a glance — the history, each set's totals and
 * status mix, hits per instance (bars, baseline beside candidate), hits and alerts per day (lines),
 * precision and recall per typology, the users with the most new hits, and the rejected lines.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DetectionScore, RuleSetReport, SchemeScore, SimulationReport } from '../simulation/types.js';

/** Text made safe inside HTML. */
function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** JSON made safe inside a `<script>` element (no `</script>`, no HTML comment, no line separators). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Chart.js's browser build, to inline (beside its CommonJS entry; the package exports no path to it). */
function chartLibrary(): string {
  const require = createRequire(import.meta.url);
  return readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'), 'utf8');
}

const percent = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)} %`);
const count = (value: number) => value.toLocaleString('en-US');

function table(headers: readonly string[], rows: readonly (readonly unknown[])[], numericFrom = 1): string {
  const head = headers.map((h, i) => `<th${i >= numericFrom ? ' class="n"' : ''}>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell, i) => `<td${i >= numericFrom ? ' class="n"' : ''}>${escapeHtml(cell)}</td>`).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function setCard(name: string, set: RuleSetReport): string {
  const items: [string, string][] = [
    ['evaluations with a hit', count(set.hits)],
    ['transactions hit', count(set.hitTransactions)],
    ['users hit', count(set.hitUsers)],
    ['alerts', count(set.alerts)],
    ['cases', count(set.cases)],
    [
      'status',
      Object.entries(set.status)
        .map(([status, n]) => `${status} ${count(n)}`)
        .join(' · '),
    ],
  ];
  if (set.detection !== undefined) {
    items.push(['transactions: precision / recall', `${percent(set.detection.transactions.precision)} / ${percent(set.detection.transactions.recall)}`]);
    items.push(['users: precision / recall', `${percent(set.detection.users.precision)} / ${percent(set.detection.users.recall)}`]);
  }
  return `<section class="card"><h3>${escapeHtml(name)}</h3><dl>${items.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl></section>`;
}

function instanceRows(setName: string, set: RuleSetReport): unknown[][] {
  return set.instances.map((i) => [
    setName,
    i.id,
    i.ruleId,
    i.name,
    i.mode,
    count(i.runs),
    count(i.hits),
    count(i.hitTransactions),
    count(i.hitUsers),
    count(i.alerts),
    `${count(i.actions.FLAG)} / ${count(i.actions.SUSPEND)} / ${count(i.actions.BLOCK)}`,
    percent(i.detection?.transactions.precision),
    percent(i.detection?.transactions.recall),
  ]);
}

function scoreCells(score: DetectionScore | undefined): string[] {
  return [percent(score?.precision), percent(score?.recall), percent(score?.f1)];
}

/** Schemes found of all, e.g. `9 / 10` (`–` when the labels name no scheme). */
function schemeCell(score: SchemeScore | undefined): string {
  return score === undefined || score.schemes === 0 ? '–' : `${count(score.found)} / ${count(score.schemes)}`;
}

function detectionCells(set: RuleSetReport | undefined, typology: string): string[] {
  const scores = set?.detection?.typologies[typology];
  return [schemeCell(scores?.schemes), ...scoreCells(scores?.transactions), ...scoreCells(scores?.users)];
}

function detectionSection(report: SimulationReport): string {
  if (report.labels === undefined) return '';
  const rows = Object.entries(report.labels.typologies).map(([typology, positives]) => [
    typology,
    count(positives.transactions),
    count(positives.users),
    ...detectionCells(report.baseline, typology),
    ...(report.candidate === undefined ? [] : detectionCells(report.candidate, typology)),
  ]);
  const sides = report.candidate === undefined ? ['baseline'] : ['baseline', 'candidate'];
  const headers = [
    'typology',
    'labelled transactions',
    'labelled users',
    ...sides.flatMap((side) => [
      `${side} schemes found`,
      `${side} tx precision`,
      `${side} tx recall`,
      `${side} tx F1`,
      `${side} user precision`,
      `${side} user recall`,
      `${side} user F1`,
    ]),
  ];
  return `<h2>Detection per typology</h2><p class="note">One typology against the rest: a hit on another typology's transaction counts as a false positive here. A scheme is found when any of its accounts is hit.</p>${table(headers, rows)}`;
}

function diffSection(report: SimulationReport): string {
  const diff = report.diff;
  if (diff === undefined) return '';
  const totals = table(
    ['', 'baseline only', 'candidate only', 'both'],
    [
      ['transactions', count(diff.transactions.baselineOnly), count(diff.transactions.candidateOnly), count(diff.transactions.both)],
      ['users', count(diff.users.baselineOnly), count(diff.users.candidateOnly), count(diff.users.both)],
    ],
  );
  const top =
    diff.topNewUsers.length === 0
      ? '<p class="note">No user has a hit only the candidate makes.</p>'
      : table(
          ['user', 'new hit transactions'],
          diff.topNewUsers.map((u) => [u.userId, count(u.transactions)]),
        );
  return `<h2>Baseline and candidate</h2>${totals}<h3>Top users by new hits</h3>${top}`;
}

function rejectedSection(report: SimulationReport): string {
  if (report.history.rejected === 0) return '<h2>Rejected lines</h2><p class="note">None.</p>';
  const shown = report.rejected.slice(0, 200);
  const more = report.history.rejected - shown.length;
  return `<h2>Rejected lines</h2>${table(
    ['line', 'code', 'path', 'transaction', 'message'],
    shown.map((r) => [r.position, r.code, r.path ?? '', r.transactionId ?? '', r.message]),
    99,
  )}${more > 0 ? `<p class="note">and ${count(more)} more (all in the JSON report, up to 10,000)</p>` : ''}`;
}

/** The data the charts draw. */
function chartData(report: SimulationReport) {
  const sets: [string, RuleSetReport][] = [
    ['baseline', report.baseline],
    ...(report.candidate === undefined ? [] : ([['candidate', report.candidate]] as [string, RuleSetReport][])),
  ];
  const days = [...new Set(sets.flatMap(([, set]) => set.days.map((d) => d.day)))].sort();
  return {
    instances: sets.flatMap(([name, set]) =>
      set.instances.map((i) => ({ set: name, label: `${name === 'baseline' ? 'B' : 'C'} ${i.id} ${i.ruleId}`, hits: i.hits })),
    ),
    days,
    perDay: sets.map(([name, set]) => {
      const byDay = new Map(set.days.map((d) => [d.day, d]));
      return { set: name, hits: days.map((d) => byDay.get(d)?.hits ?? 0), alerts: days.map((d) => byDay.get(d)?.alerts ?? 0) };
    }),
  };
}

const STYLE = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1200px;color:#1d2433;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}h3{font-size:15px;margin:0 0 8px}
.note{color:#5b6577}.cards{display:flex;gap:16px;flex-wrap:wrap}.card{border:1px solid #dde2ea;border-radius:8px;padding:12px 16px;flex:1;min-width:280px}
dl{display:grid;grid-template-columns:auto auto;gap:2px 16px;margin:0}dt{color:#5b6577}dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:4px 8px;border-bottom:1px solid #eef1f5;text-align:left}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f6f8fb}.chart{position:relative;height:320px;margin:8px 0}.scroll{overflow-x:auto;margin-bottom:12px}`;

/** The chart script: reads the embedded data, draws the two charts, and marks the page as drawn. */
const CHART_SCRIPT = `(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var blue = '#2f6fde', orange = '#e8833a';
  var colour = function (set) { return set === 'baseline' ? blue : orange; };
  new Chart(document.getElementById('instances-chart'), {
    type: 'bar',
    data: { labels: data.instances.map(function (i) { return i.label; }),
      datasets: [{ label: 'hits', data: data.instances.map(function (i) { return i.hits; }), backgroundColor: data.instances.map(function (i) { return colour(i.set); }) }] },
    options: { animation: false, maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } }
  });
  var lines = [];
  data.perDay.forEach(function (s) {
    lines.push({ label: s.set + ' evaluations with a hit', data: s.hits, borderColor: colour(s.set), backgroundColor: colour(s.set), pointRadius: 0, tension: 0.2 });
    lines.push({ label: s.set + ' alerts', data: s.alerts, borderColor: colour(s.set), backgroundColor: colour(s.set), borderDash: [6, 4], pointRadius: 0, tension: 0.2 });
  });
  new Chart(document.getElementById('days-chart'), {
    type: 'line', data: { labels: data.days, datasets: lines },
    options: { animation: false, maintainAspectRatio: false, scales: { y: { beginAtZero: true } } }
  });
  document.body.setAttribute('data-drawn', 'true');
})();`;

/**
 * The report as one HTML page (Chart.js inlined, no request to anywhere).
 * @param title shown at the top (e.g. the history file's name)
 */
export function renderSimulationReport(report: SimulationReport, title: string): string {
  const h = report.history;
  const cards = [setCard('Baseline', report.baseline), ...(report.candidate === undefined ? [] : [setCard('Candidate', report.candidate)])].join('');
  const instanceHeaders = [
    'set',
    'instance',
    'rule',
    'name',
    'mode',
    'runs',
    'hits',
    'transactions hit',
    'users hit',
    'alerts',
    'FLAG / SUSPEND / BLOCK',
    'tx precision',
    'tx recall',
  ];
  const instances = table(
    instanceHeaders,
    [...instanceRows('baseline', report.baseline), ...(report.candidate === undefined ? [] : instanceRows('candidate', report.candidate))],
    5,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>txmon simulation — ${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
<h1>txmon simulation</h1>
<p class="note">${escapeHtml(title)} · ${escapeHtml(h.from ?? '–')} → ${escapeHtml(h.to ?? '–')} · ${count(h.items)} lines: ${count(h.transactions)} transactions, ${count(h.events)} events, ${count(h.replays)} replays, ${count(h.rejected)} rejected</p>
<h2>Summary</h2><div class="cards">${cards}</div>
<h2>Hits per instance</h2><div class="chart"><canvas id="instances-chart"></canvas></div>
${instances}
<h2>Hits and alerts per day</h2><div class="chart"><canvas id="days-chart"></canvas></div>
${detectionSection(report)}
${diffSection(report)}
${rejectedSection(report)}
<script type="application/json" id="report-data">${scriptJson(chartData(report))}</script>
<script>${chartLibrary()}</script>
<script>${CHART_SCRIPT}</script>
</body></html>
`;
}
