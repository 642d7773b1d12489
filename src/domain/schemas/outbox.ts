/**
 * The outbox's wire shapes (`GET /outbox`, `GET /outbox/consumers…`; docs/webhooks.md): a message
 * with its position, a page of messages, a consumer's state, a dead letter.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OUTBOX_MESSAGE_TYPES } from '../outbox.js';
import { defineClosedObject, defineFreeObject, defineStringEnum, IdSchema } from './common.js';

const Position = Type.Integer({ minimum: 0 });

export const OutboxMessageSchema = defineClosedObject({
  seq: Type.Integer({ minimum: 1, description: "The message's place in the outbox, in commit order; its id" }),
  type: defineStringEnum(OUTBOX_MESSAGE_TYPES),
  entityId: IdSchema,
  timestamp: Type.Number({ description: 'When the change was made (epoch ms)' }),
  data: defineFreeObject({ description: 'What changed: see docs/webhooks.md per type' }),
});

export const OutboxPageSchema = defineClosedObject({
  messages: Type.Array(OutboxMessageSchema),
  head: Type.Integer({ minimum: 0, description: 'The newest position' }),
});

export const OutboxConsumerSchema = defineClosedObject({
  name: IdSchema,
  position: Position,
  attempts: Type.Integer({ minimum: 0 }),
  nextAttemptAt: Type.Union([Type.Number(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  owner: Type.Union([Type.String(), Type.Null()]),
  leaseUntil: Type.Number(),
  deadLetters: Type.Integer({ minimum: 0 }),
});

export const OutboxDeadLetterSchema = defineClosedObject({
  consumer: IdSchema,
  seq: Type.Integer({ minimum: 1 }),
  attempts: Type.Integer({ minimum: 1 }),
  lastError: Type.String(),
  deadAt: Type.Number(),
});

export type OutboxPage = Static<typeof OutboxPageSchema>;
