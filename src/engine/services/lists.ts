/** Blacklists and whitelists (`/lists`), read by R-132 and the `whitelistUsers.listIds` filter. */
import type { StoredList } from '../../domain/entities.js';
import { listItemChanges } from '../../domain/audit.js';
import { ListRequestSchema } from '../../domain/index.js';
import { cloneJson } from '../../domain/json.js';
import { limitExceeded, notFound } from '../../errors.js';
import { copySafeJson, createLazyValidator } from '../../validation/index.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import { inStoreUnit } from '../concurrency/store-units.js';
import type { EngineSettings } from '../options.js';
import type { Repositories } from '../repositories.js';
import type { Engine } from '../types.js';
import { assertId } from './assert-id.js';
import { actorOf, auditEntryOf } from './audit.js';

const validateListRequest = createLazyValidator(ListRequestSchema, { what: 'list', safeJson: false });

/** A list as its audit entries compare it: every field but the items (their changes are listed apart). */
function listSnapshot(list: StoredList): Record<string, unknown> {
  const { items: _items, ...rest } = list;
  return rest;
}

/**
 * The list endpoints of one engine. A list write runs under the list's key (`list:<id>`, in this
 * process and as one unit of a shared store), so the list it replaces, read for its audit entry, is
 * the one it replaces.
 */
export function createListService(settings: EngineSettings, withLocks: KeyedLock): Pick<Engine, 'putList' | 'getList' | 'listLists' | 'deleteList'> {
  const { repositories: store, clock, limits } = settings;
  const inListUnit = <T>(listId: string, work: (repos: Repositories) => Promise<T>): Promise<T> => {
    const keys = [`list:${listId}`];
    return withLocks(keys, () => inStoreUnit(store, keys, work));
  };
  return {
    async putList(listId, input, options) {
      assertId(listId, 'listId');
      const actor = actorOf(options);
      const request = validateListRequest(copySafeJson(input));
      const items = [...new Set(request.items)];
      if (items.length > limits.maxListItems) throw limitExceeded('maxListItems', limits.maxListItems, 'the items of this list', '/items');
      return inListUnit(listId, async (repos) => {
        const now = clock.now();
        const existing = await repos.lists.getList(listId);
        if (existing === null && (await repos.lists.listLists()).length + 1 > limits.maxLists) throw limitExceeded('maxLists', limits.maxLists, 'the lists');
        const stored: StoredList = {
          listId,
          listType: request.listType,
          subtype: request.subtype,
          ...(request.name !== undefined ? { name: request.name } : {}),
          ...(request.description !== undefined ? { description: request.description } : {}),
          items,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        };
        const entry = auditEntryOf(settings, actor, {
          entityType: 'LIST',
          entityId: listId,
          action: existing === null ? 'CREATE' : 'UPDATE',
          before: existing === null ? null : listSnapshot(existing),
          after: listSnapshot(stored),
          extra: listItemChanges(existing?.items ?? [], items),
        });
        await repos.lists.putList(stored, { audit: [entry] });
        return cloneJson(stored);
      });
    },

    async getList(listId) {
      assertId(listId, 'listId');
      const list = await store.lists.getList(listId);
      if (!list) throw notFound('LIST_NOT_FOUND', 'list');
      return cloneJson(list);
    },

    async listLists() {
      return cloneJson(await store.lists.listLists());
    },

    async deleteList(listId, options) {
      assertId(listId, 'listId');
      const actor = actorOf(options);
      await inListUnit(listId, async (repos) => {
        const existing = await repos.lists.getList(listId);
        if (existing === null) throw notFound('LIST_NOT_FOUND', 'list');
        const entry = auditEntryOf(settings, actor, {
          entityType: 'LIST',
          entityId: listId,
          action: 'DELETE',
          before: listSnapshot(existing),
          after: null,
          extra: listItemChanges(existing.items, []),
        });
        if (!(await repos.lists.deleteList(listId, { audit: [entry] }))) throw notFound('LIST_NOT_FOUND', 'list');
      });
    },
  };
}
