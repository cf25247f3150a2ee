import { describe, expect, it } from 'vitest';
import * as validators from '../../packages/server/src/generated/zod.js';
import { listOperations, resolveRef, type MediaType, type Response } from '../support/spec-validator.js';

type Schema = { safeParse(value: unknown): { success: boolean; error?: unknown } };
/** The generated schemas by name, built (each export is a function that builds its schema on first use). */
const schemas: Record<string, Schema | undefined> = Object.fromEntries(
  Object.entries(validators as unknown as Record<string, () => Schema>).map(([name, build]) => [name, build()]),
);
const pascal = (id: string) => id[0]!.toUpperCase() + id.slice(1);
const examplesOf = (media: MediaType) =>
  media.examples ? Object.values(media.examples).map((e) => e.value) : [media.example];

describe('generated zod validators agree with the spec examples', () => {
  it.each(listOperations().map((o) => [o.operation.operationId, o] as const))('%s', (id, { operation }) => {
    const media = operation.requestBody?.content['application/json'];
    if (media) {
      const body = schemas[`z${pascal(id)}Body`];
      expect(body, `z${pascal(id)}Body`).toBeDefined();
      for (const example of examplesOf(media)) expect(body!.safeParse(example).success).toBe(true);
    }
    const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    for (const [, ref] of success) {
      const answer = resolveRef<Response>(ref).content?.['application/json'];
      if (!answer) continue;
      const response = schemas[`z${pascal(id)}Response`];
      expect(response, `z${pascal(id)}Response`).toBeDefined();
      for (const example of examplesOf(answer)) {
        const result = response!.safeParse(example);
        expect(result.success, JSON.stringify(result.error)).toBe(true);
      }
    }
  });

  it('reject what the spec rejects', () => {
    expect(schemas.zAcquireSpaceClaimBody!.safeParse({ key: '', scopeId: 'x', holder: 'w', holderSession: 's' }).success).toBe(false);
    expect(schemas.zHeartbeatClaimsBody!.safeParse({ ttl: 'soon' }).success).toBe(false);
    expect(schemas.zHeartbeatClaimsBody!.safeParse({ ttl: '5m' }).success).toBe(true);
    expect(schemas.zRenewSpoolLeaseHeaders!.safeParse({ 'Spooler-Lease': 'short' }).success).toBe(false);
  });
});
