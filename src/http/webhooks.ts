/**
 * Webhooks: the outbox (`engine.outbox`) delivered as signed HTTP POSTs, in the Standard Webhooks
 * form (docs/webhooks.md) — three headers, `webhook-id` (the message's id: the same on every
 * attempt, so a receiver drops duplicates), `webhook-timestamp` (Unix seconds of this attempt) and
 * `webhook-signature` (`v1,` and the base64 HMAC-SHA256, keyed with the secret, of
 * `id.timestamp.body`). A receiver recomputes it over the raw body and refuses a timestamp outside
 * its tolerance (5 minutes by default), so a captured request cannot be replayed later.
 *
 * Delivery is an outbox consumer (`webhook:<name>`): at least once, in commit order, retried with
 * exponential back-off, then a dead letter; processes sharing a store take turns by lease.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { StoredOutboxMessage } from '../domain/outbox.js';
import type { Engine, OutboxSubscribeOptions, OutboxSubscription } from '../engine/types.js';

/** How long a receiver accepts a signed request after its timestamp, and before (clock skew), in seconds. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The shortest secret accepted: 16 bytes (HMAC keys shorter than the hash's block add nothing but risk). */
export const MIN_WEBHOOK_SECRET_BYTES = 16;

/** The three headers of a signed delivery. */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/** The signature header value of `body` sent as message `id` at `timestampSeconds`. */
export function signWebhook(secret: string | Uint8Array, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Whether a received request is a delivery signed with `secret`: one of the space-separated
 * signatures matches (compared in constant time) and the timestamp is within `toleranceSeconds`
 * of `nowSeconds`. Pass the body as received, before any parsing.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from 'txmon/http';
 * if (!verifyWebhook(secret, req.headers, rawBody)) return res.writeHead(401).end();
 * ```
 */
export function verifyWebhook(
  secret: string | Uint8Array,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const timestamp = one('webhook-timestamp');
  const signatures = one('webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signWebhook(secret, id, Number(timestamp), body));
  return signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The JSON body of a delivered message. */
export function webhookBodyOf(message: StoredOutboxMessage, tenant: string | undefined): string {
  return JSON.stringify({
    id: String(message.seq),
    type: message.type,
    entityId: message.entityId,
    timestamp: message.timestamp,
    ...(tenant === undefined ? {} : { tenant }),
    data: message.data,
  });
}

/** Options of {@link startWebhookDelivery}. */
export interface WebhookDeliveryOptions extends Omit<OutboxSubscribeOptions, 'owner'> {
  /** The receiver's URL (http or https). */
  readonly url: string;
  /** The signing secret, at least {@link MIN_WEBHOOK_SECRET_BYTES} bytes. */
  readonly secret: string | Uint8Array;
  /** The consumer's name (`webhook:<name>`; default `default`): keep it when the URL changes, to go on where delivery stopped. */
  readonly name?: string;
  /** Named in each body's `tenant` (`txmon serve` with tenants). */
  readonly tenant?: string;
  /** How long one attempt may take (default 10 s): longer is a failure, tried again. */
  readonly timeoutMs?: number;
  /** The `fetch` to send with (default the global one). */
  readonly fetch?: typeof fetch;
  /** The clock of the signature's timestamp (default the system clock, in ms). */
  readonly now?: () => number;
}

/** A webhook's delivery failure: the receiver's status, or why there was none. */
export class WebhookDeliveryError extends Error {
  override readonly name = 'WebhookDeliveryError';
}

/**
 * Starts delivering `engine`'s outbox to a webhook: each message POSTed, signed, one at a time in
 * order; a 2xx answer moves on, anything else (or no answer within `timeoutMs`) is tried again.
 * Stop it with the subscription's `stop()`.
 * @throws TypeError for a bad URL or a short secret
 */
export function startWebhookDelivery(engine: Pick<Engine, 'outbox'>, options: WebhookDeliveryOptions): OutboxSubscription {
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('webhook url: must be http or https');
  const secretBytes = typeof options.secret === 'string' ? Buffer.byteLength(options.secret) : options.secret.byteLength;
  if (secretBytes < MIN_WEBHOOK_SECRET_BYTES) throw new TypeError(`webhook secret: must be at least ${MIN_WEBHOOK_SECRET_BYTES} bytes`);
  const send = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { url: _url, secret, name, tenant, timeoutMs: _t, fetch: _f, now: _n, ...subscribe } = options;
  return engine.outbox.subscribe(
    `webhook:${name ?? 'default'}`,
    async (message) => {
      const body = webhookBodyOf(message, tenant);
      const id = tenant === undefined ? `msg_${message.seq}` : `msg_${tenant}_${message.seq}`;
      const timestamp = Math.floor(now() / 1000);
      let response: Response;
      try {
        response = await send(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'txmon-webhooks',
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(secret, id, timestamp, body),
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new WebhookDeliveryError(`no answer: ${error instanceof Error ? error.message : String(error)}`);
      }
      // The body is not read beyond what is needed to free the connection.
      await response.body?.cancel().catch(() => undefined);
      if (response.status < 200 || response.status > 299) throw new WebhookDeliveryError(`HTTP ${response.status}`);
    },
    subscribe,
  );
}
