/** Users (`POST /consumer/users`, `POST /business/users` and their reads). */
import type { StoredUser } from '../../domain/entities.js';
import { cloneJson } from '../../domain/json.js';
import { notFound } from '../../errors.js';
import type { EngineSettings } from '../options.js';
import { checkUserInput } from '../pipeline/intake.js';
import type { Engine, UserMonitoringResult, UserView } from '../types.js';
import { assertId } from './assert-id.js';

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
      const { type, profile } = checkUserInput(input, opts?.type);
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
