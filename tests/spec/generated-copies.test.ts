import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// The client keeps its own copy of the generated wire types until it imports @leasehold/protocol.
it('keeps the client’s generated wire types identical to the protocol’s copy', () => {
  const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
  expect(read('../../packages/client/src/generated/openapi.ts')).toBe(read('../../packages/protocol/src/generated/openapi.ts'));
});
