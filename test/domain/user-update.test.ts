import { describe, expect, it } from 'vitest';
import { applyUserUpdate, seenUser, type StoredUser } from '../../src/domain/index.js';

const T = 1_700_000_000_000;
const withProfile: StoredUser = {
  ...seenUser('alice', T - 1),
  type: 'CONSUMER',
  profile: { userId: 'alice', createdTimestamp: T - 1 },
  craScore: 40,
  craRiskLevel: 'MEDIUM',
};

describe('applyUserUpdate', () => {
  it('folds a transaction risk score into the CRA as a moving average, and picks its level', () => {
    expect(applyUserUpdate(withProfile, { userId: 'alice', craObservation: 90 }, T)).toMatchObject({ craScore: 65, craRiskLevel: 'HIGH', updatedAt: T });
  });

  it('starts a user without a record as a seen party, its CRA the first score', () => {
    expect(applyUserUpdate(null, { userId: 'bob', craObservation: 10 }, T)).toEqual({ ...seenUser('bob', T), craScore: 10, craRiskLevel: 'VERY_LOW' });
  });

  it('sets state and KYC status on a user with a profile only', () => {
    const update = { userId: 'alice', userStateDetails: { state: 'BLOCKED' }, kycStatusDetails: { status: 'FAILED' } };
    expect(applyUserUpdate(withProfile, update, T).profile).toMatchObject({ userStateDetails: { state: 'BLOCKED' }, kycStatusDetails: { status: 'FAILED' } });
    expect(applyUserUpdate(null, { ...update, userId: 'bob' }, T).profile).toBeNull();
  });

  it('returns a new record and leaves the given one as it was', () => {
    const before = structuredClone(withProfile);
    applyUserUpdate(withProfile, { userId: 'alice', craObservation: 0, userStateDetails: { state: 'BLOCKED' } }, T);
    expect(withProfile).toEqual(before);
  });
});
