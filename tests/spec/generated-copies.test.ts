import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';

// The generated wire types have one copy, @leasehold/protocol's: every package imports it from there.
it('keeps one copy of the generated wire types: @leasehold/protocol’s', () => {
  const exists = (path: string) => existsSync(new URL(path, import.meta.url));
  expect(exists('../../packages/protocol/src/generated/openapi.ts')).toBe(true);
  for (const pkg of ['client', 'server', 'msw']) expect(exists(`../../packages/${pkg}/src/generated/openapi.ts`), pkg).toBe(false);
});
