/**
 * The HTML report of a simulation, opened in headless Chromium (Debian's `chromium`): it renders
 * both charts and every section with no console error and no request leaving the page.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { renderSimulationReport } from '../../src/cli/simulation-report.js';
import { simulate } from '../../src/index.js';
import { T0, tx } from '../helpers.js';

/** Debian's Chromium, run as the CI machine runs it (root: no sandbox; no background network). */
const CHROMIUM = process.env.TXMON_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function sampleReport() {
  const history = [
    ...Array.from({ length: 300 }, (_, i) =>
      JSON.stringify(
        tx({
          transactionId: `t-${i}`,
          originUserId: `u-${i % 9}`,
          timestamp: T0 + i * 20 * 60_000,
          originAmountDetails: { transactionAmount: (i * 97) % 15_000, transactionCurrency: 'EUR' },
        }),
      ),
    ),
    'not json <script>alert(1)</script>',
  ];
  const labels = [
    { level: 'transaction' as const, id: 't-7', typology: 'structuring' },
    { level: 'user' as const, id: 'u-7', typology: 'structuring' },
    { level: 'user' as const, id: 'u-3', typology: 'fan_in' },
  ];
  return simulate({
    history,
    baseline: [{ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 12_000 } } }],
    candidate: [
      { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 9_000 } } },
      { ruleId: 'R-30', parameters: { transactionsLimit: 2, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } },
    ],
    labels,
  });
}

describe('renderSimulationReport', () => {
  it('renders in headless Chromium with no console error, both charts drawn, offline', async () => {
    const report = await sampleReport();
    const file = join(mkdtempSync(join(tmpdir(), 'txmon-report-')), 'report.html');
    writeFileSync(file, renderSimulationReport(report, 'sample <history>'));
    if (!existsSync(CHROMIUM)) throw new Error(`the report test needs Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does), or set TXMON_CHROMIUM`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) requests.push(request.url());
      });
      await page.goto(`file://${file}`);
      await page.waitForSelector('body[data-drawn="true"]', { timeout: 20_000 });
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
      // Both canvases hold a drawing (not blank).
      const drawn = await page.evaluate(() =>
        Array.from(document.querySelectorAll('canvas')).map((canvas) => {
          const context = canvas.getContext('2d');
          if (context === null || canvas.width === 0) return false;
          const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
          for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] as number) !== 0) return true;
          return false;
        }),
      );
      expect(drawn).toEqual([true, true]);
      const headings = await page.$$eval('h2', (nodes) => nodes.map((n) => n.textContent));
      expect(headings).toEqual([
        'Summary',
        'Hits per instance',
        'Hits and alerts per day',
        'Detection per typology',
        'Baseline and candidate',
        'Rejected lines',
      ]);
      // Text from the history is shown as text, never run.
      expect(await page.title()).toBe('txmon simulation — sample <history>');
      expect(await page.$$eval('td', (cells) => cells.some((c) => c.textContent?.includes('MALFORMED_JSON')))).toBe(true);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
