/**
 * The progress shown on standard error by the long commands (`txmon simulate`, `txmon import`): a
 * bar with rate and ETA on a terminal, a line every 5 s otherwise.
 */
import cliProgress from 'cli-progress';

/** A progress bar over a share (0–1) that `progress` tells, labelled `label`, counting items. */
export function createProgress(label: string, progress: () => number) {
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {items} items | {rate} items/s | ETA {eta_formatted}`,
      noTTYOutput: true,
      notTTYSchedule: 5_000,
      etaBuffer: 40,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(1000, 0, { items: 0, rate: 0 });
  return {
    update(items: number) {
      const seconds = (Date.now() - started) / 1000;
      bar.update(Math.floor(progress() * 1000), { items, rate: seconds > 0 ? Math.round(items / seconds) : 0 });
    },
    stop(items: number) {
      bar.update(1000, { items, rate: Math.round(items / Math.max(0.001, (Date.now() - started) / 1000)) });
      bar.stop();
    },
  };
}
