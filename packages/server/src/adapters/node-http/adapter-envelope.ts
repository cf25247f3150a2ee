import { randomBytes } from 'node:crypto';
import type { ErrorCode } from '@leasehold/protocol';
import { errorEnvelope } from '@leasehold/protocol';

/**
 * An error answer an adapter writes itself, where the pipeline never ran (Node's parser refused
 * the request, or answering failed): the same envelope the pipeline builds (`errorEnvelope`),
 * under a request id of its own. No `doc_url`: nothing says which server's reference to link.
 */
export function adapterErrorAnswer(status: number, code: ErrorCode, message: string): { requestId: string; body: string } {
  const requestId = `req_${randomBytes(12).toString('base64url')}`;
  return { requestId, body: JSON.stringify(errorEnvelope({ status, code, message }, { requestId })) };
}
