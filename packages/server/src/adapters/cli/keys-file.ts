import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ALL_PERMISSIONS, type KeyConfig } from '../../engine/index.js';

const keySchema = z.strictObject({
  apiKey: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'apiKey must be 1–200 printable ASCII characters without spaces'),
  credentialId: z.string().min(1).optional(),
  accountId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  permissions: z.array(z.enum(ALL_PERMISSIONS as [string, ...string[]])).optional(),
  spaces: z.union([z.literal('*'), z.array(z.uuid())]).optional(),
  blocked: z.boolean().optional(),
  expired: z.boolean().optional(),
  expiresAt: z.int().nonnegative().nullable().optional(),
  rateLimitPerSecond: z.int().positive().nullable().optional(),
});

const fileSchema = z.union([z.array(keySchema).min(1), z.strictObject({ keys: z.array(keySchema).min(1) })]);

/**
 * Reads a keys file: a JSON array of keys, or `{ "keys": [...] }`. Each key sets its account,
 * permissions, spaces, `blocked`, `expired`/`expiresAt` and `rateLimitPerSecond`.
 */
export function loadKeysFile(path: string): KeyConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
  const result = fileSchema.safeParse(parsed);
  if (!result.success) throw new Error(`${path}: ${z.prettifyError(result.error)}`);
  const keys = Array.isArray(result.data) ? result.data : result.data.keys;
  return keys as KeyConfig[];
}
