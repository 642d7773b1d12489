/** Users (`POST /consumer/users`, `POST /business/users` and their reads). */
import type { StoredUser, UserType } from '../../domain/entities.js';
import { BusinessUserSchema, ConsumerUserSchema } from '../../domain/index.js';
import { cloneJson } from '../../domain/json.js';
import { invalidField, notFound } from '../../errors.js';
import { copySafeJson, createLazyValidator } from '../../validation/index.js';
import type { EngineSettings } from '../options.js';
import type { Engine, UserMonitoringResult, UserView } from '../types.js';
import { assertId } from './assert-id.js';

const validateConsumer = createLazyValidator(ConsumerUserSchema, { what: 'consumer user', safeJson: false });
const validateBusiness = createLazyValidator(BusinessUserSchema, { what: 'business user', safeJson: false });

/** A stored user as returned: the profile, its type, and its risk when known. */
export function userView(user: StoredUser): UserView {
  const view = { ...cloneJson(user.profile), type: user.type } as UserView;
  if (user.craScore !== null || user.craRiskLevel !== null) {
    view.riskScoreDetails = {
      ...(user.craScore !== null ? { craRiskScore: user.craScore } : {}),
      ...(user.craRiskLevel !== null ? { craRiskLevel: user.craRiskLevel } : {}),
    };
  }
  return view;
}

/** The user endpoints of one engine. */
export function createUserService(settings: EngineSettings): Pick<Engine, 'createUser' | 'getUser'> {
  const { repositories: repos, clock } = settings;
  return {
    async createUser(input, opts) {
      const requested = opts?.type;
      if (requested !== undefined && requested !== 'CONSUMER' && requested !== 'BUSINESS') {
        throw invalidField('', 'enum', 'user type must be CONSUMER or BUSINESS');
      }
      const type: UserType = requested ?? (typeof input === 'object' && input !== null && 'legalEntity' in input ? 'BUSINESS' : 'CONSUMER');
      const copy = copySafeJson(input);
      const profile = type === 'BUSINESS' ? validateBusiness(copy) : validateConsumer(copy);
      // One intent-level write: the repository keeps the user's risk state (a concurrent
      // transaction may be moving its CRA right now).
      const user = await repos.users.saveUserProfile({ userId: profile.userId, type, profile, now: clock.now() });
      const result: UserMonitoringResult = { userId: user.userId, executedRules: [], hitRules: [] };
      const view = userView(user);
      if (view.riskScoreDetails) result.riskScoreDetails = view.riskScoreDetails;
      return result;
    },

    async getUser(userId, opts) {
      assertId(userId, 'userId');
      const user = await repos.users.getUser(userId);
      if (!user || user.type === null || (opts?.type !== undefined && opts.type !== user.type)) throw notFound('USER_NOT_FOUND', 'user');
      return userView(user);
    },
  };
}
