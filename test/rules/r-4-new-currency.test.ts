import { describe, expect, it } from 'vitest';
import { T0 } from '../helpers.js';
import { engineWith, hits, send } from './kits/newness-fixtures.js';

describe('R-4 Transaction including a new currency', () => {
  it('hits a sender using a currency it never sent in, after enough history', async () => {
    const engine = await engineWith('R-4', 2);
    await engine.createTransaction(send(T0, 'FR', 'EUR'));
    await engine.createTransaction(send(T0 + 1, 'FR', 'EUR'));
    expect(hits(await engine.createTransaction(send(T0 + 2, 'FR', 'EUR')), 'R-4')).toEqual([]);
    expect(hits(await engine.createTransaction(send(T0 + 3, 'FR', 'USD')), 'R-4')).toEqual(['ORIGIN', 'DESTINATION']);
    expect(hits(await engine.createTransaction(send(T0 + 4, 'FR', 'USD')), 'R-4')).toEqual([]);
  });
});
