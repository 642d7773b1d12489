/**
 * Comment requests (user, case and alert comments alike) and the upload request
 * (`POST /pre-signed-url`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { SCHEMA_LIMITS, TimestampSchema, defineOpenObject } from './common.js';

/**
 * A file name: 1..{@link SCHEMA_LIMITS.FILENAME_MAX_LENGTH} characters, no `/` or `\`, no control
 * characters, not `.` or `..` — so a storage adapter can never be steered outside its folder.
 */
export const FilenameSchema = Type.String({
  minLength: 1,
  maxLength: SCHEMA_LIMITS.FILENAME_MAX_LENGTH,
  pattern: '^(?!\\.{1,2}$)[^/\\\\\\u0000-\\u001F\\u007F]*$',
  'x-pattern-message': 'must be a file name without path separators or control characters',
});

/** A file size in bytes: a non-negative safe integer (the configured maximum is checked by the engine). */
export const FileSizeSchema = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

const FileKeySchema = Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.FILE_KEY_MAX_LENGTH });

/**
 * A file attached to a comment: the `s3Key` (or its alias `key`) returned by the upload call, the
 * file name and the size. At least one of `s3Key` / `key` is required; the engine checks that the
 * key was issued to the same tenant (`UNKNOWN_FILE_KEY`).
 */
export const CommentFileSchema = defineOpenObject(
  {
    s3Key: Type.Optional(FileKeySchema),
    key: Type.Optional(FileKeySchema),
    filename: FilenameSchema,
    size: FileSizeSchema,
  },
  { anyOf: [{ required: ['s3Key'] }, { required: ['key'] }] },
);
/** A file attached to a comment. */
export type CommentFile = Static<typeof CommentFileSchema>;

/** Request body of `POST /users/{userId}/comments`, `/cases/{caseId}/comments`, `/alerts/{alertId}/comments`. */
export const CommentRequestSchema = defineOpenObject({
  body: Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.COMMENT_BODY_MAX_LENGTH }),
  files: Type.Optional(Type.Array(CommentFileSchema, { maxItems: SCHEMA_LIMITS.MAX_COMMENT_FILES })),
  createdTimestamp: Type.Optional(TimestampSchema),
});
/** A comment request. */
export type CommentRequest = Static<typeof CommentRequestSchema>;

/** Request body of `POST /pre-signed-url`. */
export const PresignedUrlRequestSchema = defineOpenObject({
  filename: FilenameSchema,
  fileSize: FileSizeSchema,
});
/** An upload request. */
export type PresignedUrlRequest = Static<typeof PresignedUrlRequestSchema>;
