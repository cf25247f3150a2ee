// The consumer project's vitest config: its suite is test/*.spec.ts (out/ holds tsc's output).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/**/*.spec.ts'], testTimeout: 30_000 },
});
