/** Blacklists and whitelists (`/lists`), read by R-132 and the `whitelistUsers.listIds` filter. */
import type { StoredList } from '../../domain/entities.js';
import { ListRequestSchema } from '../../domain/index.js';
import { cloneJson } from '../../domain/json.js';
import { limitExceeded, notFound } from '../../errors.js';
import { copySafeJson, createLazyValidator } from '../../validation/index.js';
import type { EngineSettings } from '../options.js';
import type { Engine } from '../types.js';
import { assertId } from './assert-id.js';

const validateListRequest = createLazyValidator(ListRequestSchema, { what: 'list', safeJson: false });

/** The list endpoints of one engine. */
export function createListService(settings: EngineSettings): Pick<Engine, 'putList' | 'getList' | 'listLists' | 'deleteList'> {
  const { repositories: repos, clock, limits } = settings;
  return {
    async putList(listId, input) {
      assertId(listId, 'listId');
      const request = validateListRequest(copySafeJson(input));
      const items = [...new Set(request.items)];
      if (items.length > limits.maxListItems) throw limitExceeded('maxListItems', limits.maxListItems, 'the items of this list', '/items');
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
      await repos.lists.putList(stored);
      return cloneJson(stored);
    },

    async getList(listId) {
      assertId(listId, 'listId');
      const list = await repos.lists.getList(listId);
      if (!list) throw notFound('LIST_NOT_FOUND', 'list');
      return cloneJson(list);
    },

    async listLists() {
      return cloneJson(await repos.lists.listLists());
    },

    async deleteList(listId) {
      assertId(listId, 'listId');
      if (!(await repos.lists.deleteList(listId))) throw notFound('LIST_NOT_FOUND', 'list');
    },
  };
}
