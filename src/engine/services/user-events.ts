/**
 * User events (`POST /events/consumer/user`, `POST /events/business/user` and their reads): the
 * user's attributes patched under its lock, idempotent by `eventId`, a late event folded in
 * timestamp order, the event and the user stored in one step.
 */
import { canonicalJson } from '../../domain/canonical-json.js';
import type { UserType } from '../../domain/entities.js';
import { BusinessUserEventSchema, ConsumerUserEventSchema } from '../../domain/index.js';
import { cloneJson } from '../../domain/json.js';
import { conflict, invalidField, limitExceeded, notFound } from '../../errors.js';
import { copySafeJsonSized, createLazyValidator } from '../../validation/index.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import type { WriterGate } from '../concurrency/writer-gate.js';
import { assertSizeWithin } from '../limits.js';
import type { EngineSettings } from '../options.js';
import { applyUserPatch } from '../pipeline/apply-user-event.js';
import type { Repositories, StoredUserEvent } from '../repositories.js';
import type { Engine, UserEventMonitoringResult, UserEventOptions, UserEventWithRulesResult } from '../types.js';
import { assertId } from './assert-id.js';
import { actorOf, auditEntryOf, isEmptyAuditEntry, userSnapshot } from './audit.js';
import { inUserUnit } from './user-unit.js';
import { runUserRules } from './user-rules.js';
import type { InstanceSet } from '../instances/instance-set.js';
import { assertNoRiskLocks, userView } from './users.js';

const validateConsumerEvent = createLazyValidator(ConsumerUserEventSchema, { what: 'consumer user event', safeJson: false });
const validateBusinessEvent = createLazyValidator(BusinessUserEventSchema, { what: 'business user event', safeJson: false });

type UserEventRequest = StoredUserEvent['event'] extends infer E ? Omit<E & object, 'eventId'> & { eventId?: string } : never;

/** The patch field of an event of `type`, and the other type's (which it must not carry). */
const PATCH_FIELD = { CONSUMER: 'updatedConsumerUserAttributes', BUSINESS: 'updatedBusinessUserAttributes' } as const;
const OTHER_TYPE = { CONSUMER: 'BUSINESS', BUSINESS: 'CONSUMER' } as const;

function responseOf(stored: StoredUserEvent): UserEventMonitoringResult {
  const out = { ...cloneJson(stored.user), executedRules: stored.result.executedRules, hitRules: stored.result.hitRules } as UserEventMonitoringResult;
  if (stored.result.riskScoreDetails) out.riskScoreDetails = { ...stored.result.riskScoreDetails };
  return out;
}

/** What the user-event service runs on: the settings, the rule instances and the locks users and transactions share. */
export interface UserEventServiceContext {
  readonly settings: EngineSettings;
  readonly instances: InstanceSet;
  readonly withLocks: KeyedLock;
  readonly gate: WriterGate;
}

type UserEventMethods = Pick<Engine, 'createConsumerUserEvent' | 'createBusinessUserEvent' | 'getConsumerUserEvent' | 'getBusinessUserEvent'>;

/** The user-event endpoints of one engine. */
export function createUserEventService(context: UserEventServiceContext): UserEventMethods {
  const { settings, instances, withLocks, gate } = context;
  const { repositories: store, limits, clock, ids } = settings;

  function checkInput(input: unknown, type: UserType, options: UserEventOptions | undefined): UserEventRequest {
    const { copy, size } = copySafeJsonSized(input);
    const request = (type === 'BUSINESS' ? validateBusinessEvent(copy) : validateConsumerEvent(copy)) as UserEventRequest;
    assertSizeWithin(size, limits.maxEventSize, 'maxEventSize', 'the user event');
    const other = PATCH_FIELD[OTHER_TYPE[type]];
    if (Object.hasOwn(request, other)) throw invalidField(`/${other}`, 'not-allowed', `is the patch of a ${OTHER_TYPE[type].toLowerCase()} user event`);
    assertNoRiskLocks(options);
    if (options?.allowUserTypeConversion === true) {
      throw invalidField('', 'not-allowed', 'query parameter allowUserTypeConversion=true is not supported: an event never changes the user type');
    }
    return request;
  }

  async function applyOnce(
    repos: Repositories,
    request: UserEventRequest,
    type: UserType,
    clientEventId: boolean,
    actor: string,
  ): Promise<UserEventMonitoringResult> {
    if (request.eventId !== undefined) {
      const existing = await repos.users.getUserEvent(request.eventId);
      if (existing) {
        if (existing.clientEventId && existing.type === type && canonicalJson(existing.event) === canonicalJson(request)) return responseOf(existing);
        throw conflict('EVENT_ID_CONFLICT', 'An event with this eventId exists with a different payload', '/eventId', 'exists with a different payload');
      }
    }
    const user = await repos.users.getUser(request.userId);
    if (!user || user.type === null || user.profile === null) throw notFound('USER_NOT_FOUND', 'user', '/userId');
    if (user.type !== type) throw invalidField('/userId', 'conflict', `names a ${user.type} user`);
    const history = await repos.users.listUserEvents(request.userId);
    if (history.length + 1 > limits.maxEventsPerTransaction) {
      throw limitExceeded('maxEventsPerTransaction', limits.maxEventsPerTransaction, 'the events of this user', '/userId');
    }
    const patch = (request as Record<string, unknown>)[PATCH_FIELD[type]] as Record<string, unknown> | undefined;
    // The events already folded that are later than this one: merged again after it.
    const later = history
      .filter((e) => e.event.timestamp > request.timestamp)
      .map((e) => ({
        timestamp: e.event.timestamp,
        arrival: e.arrival,
        patch: (e.event as Record<string, unknown>)[PATCH_FIELD[type]] as Record<string, unknown> | undefined,
      }));
    const profile = applyUserPatch(user.profile, patch, type, later);
    // `request` is this call's own copy, so the generated id can be set on it.
    if (request.eventId === undefined) request.eventId = ids.next('event');
    const risk = userView(user).riskScoreDetails;
    // The user rules run on the user after the event (as folded) against the user before it.
    const rules = runUserRules(settings, await instances.active(repos), { before: user, userId: request.userId, type, profile, at: request.timestamp });
    const stored: StoredUserEvent = {
      eventId: request.eventId,
      userId: request.userId,
      type,
      event: request as StoredUserEvent['event'],
      clientEventId,
      arrival: history.length,
      user: profile,
      result: { executedRules: rules.executedRules, hitRules: rules.hitRules, ...(risk ? { riskScoreDetails: risk } : {}) },
    };
    // An event that changes the user is audited; a replayed or no-op one is not.
    const entry = auditEntryOf(settings, actor, {
      entityType: 'USER',
      entityId: request.userId,
      action: 'UPDATE',
      before: userSnapshot(user.type, user.profile),
      after: userSnapshot(type, profile),
    });
    const audit = isEmptyAuditEntry(entry) ? {} : { audit: [entry] };
    await repos.users.saveUserEvent({ event: stored, now: clock.now(), ...rules.writes, ...audit });
    return responseOf(stored);
  }

  async function create(input: unknown, type: UserType, options: UserEventOptions | undefined): Promise<UserEventMonitoringResult> {
    const request = checkInput(input, type, options);
    const actor = actorOf(options);
    const clientEventId = request.eventId !== undefined;
    return inUserUnit({ store, withLocks, gate }, request.userId, options, (repos) => applyOnce(repos, request, type, clientEventId, actor));
  }

  async function get(eventId: string, type: UserType): Promise<UserEventWithRulesResult> {
    assertId(eventId, 'eventId');
    const stored = await store.users.getUserEvent(eventId);
    if (!stored || stored.type !== type) throw notFound('EVENT_NOT_FOUND', 'user event');
    const out = { ...cloneJson(stored.event), executedRules: stored.result.executedRules, hitRules: stored.result.hitRules } as UserEventWithRulesResult;
    if (stored.result.riskScoreDetails) out.riskScoreDetails = { ...stored.result.riskScoreDetails };
    return out;
  }

  return {
    createConsumerUserEvent: (input, options) => create(input, 'CONSUMER', options),
    createBusinessUserEvent: (input, options) => create(input, 'BUSINESS', options),
    getConsumerUserEvent: (eventId) => get(eventId, 'CONSUMER'),
    getBusinessUserEvent: (eventId) => get(eventId, 'BUSINESS'),
  };
}
