import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('keeps the generated wire types identical to the server’s copy', () => {
  const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
  expect(read('./generated/openapi.ts')).toBe(read('../../server/src/generated/openapi.ts'));
});
