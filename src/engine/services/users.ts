/** Users (`POST /consumer/users`, `POST /business/users` and their reads). */
import type { StoredUser } from '../../domain/entities.js';
import { cloneJson } from '../../domain/json.js';
import { mergeRecreatedProfile } from '../../domain/user-update.js';
import { invalidField, notFound } from '../../errors.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import type { WriterGate } from '../concurrency/writer-gate.js';
import type { EngineSettings } from '../options.js';
import { checkUserInput } from '../pipeline/intake.js';
import type { CreateUserOptions, Engine, UserMonitoringResult, UserView } from '../types.js';
import { assertId } from './assert-id.js';
import { actorOf, auditEntryOf, isEmptyAuditEntry, userSnapshot } from './audit.js';
import { inUserUnit } from './user-unit.js';
import { runUserRules } from './user-rules.js';
import type { InstanceSet } from '../instances/instance-set.js';

/**
 * A stored user as returned: the profile, its type, the results of its user rules at its latest
 * creation or event (when it has any), and its risk when known.
 */
export function userView(user: StoredUser): UserView {
  const view = { ...cloneJson(user.profile), type: user.type } as UserView;
  if (user.ruleResults !== undefined) {
    view.executedRules = user.ruleResults.executedRules;
    view.hitRules = user.ruleResults.hitRules;
  }
  if (user.craScore !== null || user.craRiskLevel !== null) {
    view.riskScoreDetails = {
      ...(user.craScore !== null ? { craRiskScore: user.craScore } : {}),
      ...(user.craRiskLevel !== null ? { craRiskLevel: user.craRiskLevel } : {}),
    };
  }
  return view;
}

/**
 * Refuses the lock flags set to `true`: txmon keeps no locked risk levels, so honouring them
 * silently would be a lie (docs/decisions.md, "Users").
 * @throws TxmonError `VALIDATION_FAILED` naming the flag
 */
export function assertNoRiskLocks(options: { readonly lockCraRiskLevel?: boolean; readonly lockKycRiskLevel?: boolean } | undefined): void {
  for (const flag of ['lockCraRiskLevel', 'lockKycRiskLevel'] as const) {
    if (options?.[flag] === true) throw invalidField('', 'not-allowed', `query parameter ${flag}=true is not supported: txmon keeps no locked risk levels`);
  }
}

/** What the user service runs on: the engine's settings, its rule instances and the locks the transactions take. */
export interface UserServiceContext {
  readonly settings: EngineSettings;
  readonly instances: InstanceSet;
  readonly withLocks: KeyedLock;
  readonly gate: WriterGate;
}

/** The user endpoints of one engine. */
export function createUserService(context: UserServiceContext): Pick<Engine, 'createUser' | 'getUser'> {
  const { settings, instances, withLocks, gate } = context;
  const { repositories: store, clock } = settings;
  return {
    async createUser(input, opts?: CreateUserOptions) {
      const { type, profile } = checkUserInput(input, opts?.type);
      assertNoRiskLocks(opts);
      const actor = actorOf(opts);
      // Under the user's key: the stored profile is read, merged and written as one step; the
      // repository keeps the risk state a transaction may be moving.
      const { user, rules } = await inUserUnit({ store, withLocks, gate }, profile.userId, opts, async (repos) => {
        const existing = await repos.users.getUser(profile.userId);
        const created = existing !== null && existing.type !== null;
        if (created && opts?.validateUserId === true) throw invalidField('/userId', 'duplicate', 'names a user that exists (validateUserId)');
        // A user created again with its own type is merged; one created with the other type is
        // converted, its profile replaced whole (the two shapes do not mix).
        const merged = mergeRecreatedProfile(created && existing.type === type ? existing.profile : null, profile);
        const now = clock.now();
        // The user rules run on the merged profile against the stored one; their counters and
        // alert hits are saved with the profile, in one step.
        const rules = runUserRules(settings, await instances.active(repos), { before: existing, userId: profile.userId, type, profile: merged, at: now });
        const entry = auditEntryOf(settings, actor, {
          entityType: 'USER',
          entityId: profile.userId,
          action: created ? 'UPDATE' : 'CREATE',
          before: created ? userSnapshot(existing.type, existing.profile) : null,
          after: userSnapshot(type, merged),
        });
        const audit = isEmptyAuditEntry(entry) ? {} : { audit: [entry] };
        const saved = await repos.users.saveUserProfile({ userId: profile.userId, type, profile: merged, now, ...rules.writes, ...audit });
        return { user: saved, rules };
      });
      const result: UserMonitoringResult = { userId: user.userId, executedRules: rules.executedRules, hitRules: rules.hitRules };
      const view = userView(user);
      if (view.riskScoreDetails) result.riskScoreDetails = view.riskScoreDetails;
      return result;
    },

    async getUser(userId, opts) {
      assertId(userId, 'userId');
      const user = await store.users.getUser(userId);
      if (!user || user.type === null || (opts?.type !== undefined && opts.type !== user.type)) throw notFound('USER_NOT_FOUND', 'user');
      return userView(user);
    },
  };
}
