/**
 * Comments on users, cases and alerts, and the files attached to them: upload slots
 * (`POST /pre-signed-url`), the bytes stored through their signed URL (once), and signed download
 * links. A file attached to a comment is evidence: it must be uploaded, as described, and is never
 * replaced.
 */
import type { Comment, CommentFileLink, CommentTarget } from '../../domain/entities.js';
import { CommentRequestSchema, PresignedUrlRequestSchema } from '../../domain/index.js';
import { TxmonError, conflict, invalidField, notFound } from '../../errors.js';
import type { FileRecord, Repositories } from '../repositories.js';
import { copySafeJson, createLazyValidator } from '../../validation/index.js';
import type { EngineSettings } from '../options.js';
import type { ChangeOptions, CommentView, Engine, SignedFileAccess } from '../types.js';
import { assertId } from './assert-id.js';
import { actorOf, auditEntryOf } from './audit.js';

const validateComment = createLazyValidator(CommentRequestSchema, { what: 'comment', safeJson: false });
const validateUpload = createLazyValidator(PresignedUrlRequestSchema, { what: 'upload request', safeJson: false });

type CommentAndFileMethods = Pick<
  Engine,
  'createUserComment' | 'createCaseComment' | 'createAlertComment' | 'createUpload' | 'putUploadContent' | 'getFileContent'
>;

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** What the comment endpoints and the workflow's status changes share: signed download links, views, attached files. */
export interface CommentFiles {
  /** A comment as returned: each file with a signed download link, valid `urlTtlMs` from now. */
  commentView(comment: Comment): Promise<CommentView>;
  /**
   * The file entries of a request (at `pathPrefix`, e.g. `/files`), each an uploaded file of the
   * stated size.
   * @throws TxmonError `UNKNOWN_FILE_KEY` for a key not issued or not uploaded; `VALIDATION_FAILED` for a size mismatch
   */
  attachedFiles(
    requested: readonly { s3Key?: string; key?: string; filename: string; size: number }[],
    files?: Repositories['files'],
  ): Promise<Comment['files']>;
}

/** The {@link CommentFiles} of one engine. */
export function createCommentFiles(settings: EngineSettings): CommentFiles {
  const { repositories: repos, clock } = settings;
  const { signer, urlTtlMs, publicBaseUrl } = settings.files;

  async function downloadLink(key: string): Promise<string> {
    const expiresAt = clock.now() + urlTtlMs;
    const signature = await signer.sign('download', key, expiresAt);
    return `${publicBaseUrl}/files/${encodeURIComponent(key)}?expires=${expiresAt}&signature=${signature}`;
  }

  return {
    async commentView(comment) {
      const files: CommentFileLink[] = [];
      for (const f of comment.files) files.push({ ...f, downloadLink: await downloadLink(f.s3Key) });
      return {
        commentId: comment.commentId,
        body: comment.body,
        files,
        createdTimestamp: comment.createdTimestamp,
        updatedTimestamp: comment.updatedTimestamp,
      };
    },
    async attachedFiles(requested, fileRepository = repos.files) {
      const files: Comment['files'] = [];
      for (let i = 0; i < requested.length; i++) {
        const f = requested[i] as (typeof requested)[number];
        const key = f.s3Key ?? f.key;
        const record = key === undefined ? null : await fileRepository.getFile(key);
        const keyPath = `/files/${i}/${f.s3Key !== undefined ? 's3Key' : 'key'}`;
        if (!record || key === undefined) throw invalidField(keyPath, 'unknown-file-key', 'was not issued by POST /pre-signed-url', 'UNKNOWN_FILE_KEY');
        if (!record.uploaded) throw invalidField(keyPath, 'not-uploaded', 'names a file whose bytes were not uploaded yet', 'UNKNOWN_FILE_KEY');
        if (record.size !== f.size) throw invalidField(`/files/${i}/size`, 'size-mismatch', 'must equal the number of bytes uploaded');
        files.push({ s3Key: key, filename: f.filename, size: f.size });
      }
      return files;
    },
  };
}

/** The comment and file endpoints of one engine. */
export function createCommentAndFileService(settings: EngineSettings): CommentAndFileMethods {
  const { repositories: repos, clock, ids } = settings;
  const { signer, urlTtlMs, publicBaseUrl, maxUploadBytes } = settings.files;
  const { commentView, attachedFiles } = createCommentFiles(settings);

  async function addComment(
    target: CommentTarget,
    targetExists: () => Promise<boolean>,
    input: unknown,
    options: ChangeOptions | undefined,
  ): Promise<CommentView> {
    assertId(target.id, `${target.kind} id`);
    const actor = actorOf(options);
    const request = validateComment(copySafeJson(input));
    if (!(await targetExists())) {
      throw notFound(target.kind === 'user' ? 'USER_NOT_FOUND' : target.kind === 'case' ? 'CASE_NOT_FOUND' : 'ALERT_NOT_FOUND', target.kind);
    }
    const files = await attachedFiles(request.files ?? []);
    const created = request.createdTimestamp ?? clock.now();
    const comment: Comment = { commentId: ids.next('comment'), body: request.body, files, createdTimestamp: created, updatedTimestamp: created };
    const entry = auditEntryOf(settings, actor, {
      entityType: 'COMMENT',
      entityId: comment.commentId,
      action: 'CREATE',
      before: null,
      after: { target: { kind: target.kind, id: target.id }, body: comment.body, files: comment.files, createdTimestamp: comment.createdTimestamp },
    });
    await repos.comments.addComment(target, comment, { audit: [entry] });
    return commentView(comment);
  }

  /** The slot a signed URL names, once its signature holds for `purpose`. */
  async function checkedFile(access: SignedFileAccess, purpose: 'upload' | 'download'): Promise<FileRecord> {
    const ok =
      typeof access === 'object' &&
      access !== null &&
      typeof access.key === 'string' &&
      typeof access.signature === 'string' &&
      (await signer.verify(purpose, access.key, Number(access.expiresAt), access.signature, clock.now()));
    if (!ok) throw new TxmonError('UNAUTHORIZED', 'The file URL is invalid or expired');
    const record = await repos.files.getFile(access.key);
    if (!record) throw notFound('FILE_NOT_FOUND', 'file');
    return record;
  }

  return {
    createUserComment: (userId, input, options) =>
      addComment({ kind: 'user', id: userId }, async () => (await repos.users.getUser(userId)) !== null, input, options),
    createCaseComment: (caseId, input, options) =>
      addComment({ kind: 'case', id: caseId }, async () => (await repos.cases.getCase(caseId)) !== null, input, options),
    createAlertComment: (alertId, input, options) =>
      addComment({ kind: 'alert', id: alertId }, async () => (await repos.cases.getAlert(alertId)) !== null, input, options),

    async createUpload(input) {
      const request = validateUpload(copySafeJson(input));
      if (request.fileSize > maxUploadBytes) throw invalidField('/fileSize', 'maximum', `must be at most ${maxUploadBytes}`);
      const key = ids.next('file');
      const now = clock.now();
      const expiresAt = now + urlTtlMs;
      await repos.files.putFile({ key, filename: request.filename, fileSize: request.fileSize, createdAt: now, expiresAt, uploaded: false });
      const signature = await signer.sign('upload', key, expiresAt);
      return {
        key,
        url: `${publicBaseUrl}/uploads/${encodeURIComponent(key)}?expires=${expiresAt}&signature=${signature}`,
        method: 'PUT',
        expiresAt,
        fields: { key },
      };
    },

    async putUploadContent(access, content, opts) {
      const bytes = content instanceof Uint8Array;
      if (!bytes && !(typeof content === 'object' && content !== null && Symbol.asyncIterator in content)) {
        throw invalidField('', 'type', 'must be a Uint8Array or an async iterable of them');
      }
      const record = await checkedFile(access, 'upload');
      if (record.uploaded) throw conflict('FILE_ALREADY_UPLOADED', 'The upload URL was used already');
      const announced = bytes ? content.byteLength : opts?.declaredBytes;
      if (announced !== undefined && announced > record.fileSize) throw new TxmonError('PAYLOAD_TOO_LARGE', 'The upload is larger than the fileSize announced');
      await repos.files.putFileContent(record.key, bytes ? oneChunk(content) : content, record.fileSize);
    },

    async getFileContent(access) {
      const record = await checkedFile(access, 'download');
      const content = await repos.files.getFileContent(record.key);
      if (!content) throw notFound('FILE_NOT_FOUND', 'file content');
      return { filename: record.filename, bytes: content };
    },
  };
}
