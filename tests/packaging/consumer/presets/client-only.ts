// A client-only module as users of common tsconfig presets write it: tests/packaging/consumer.test.ts
// type-checks it (and the package's .d.ts, never skipLibCheck) under each presets/tsconfig.*.json.
// Only the client's public entry point and the web platform's AbortController: nothing here needs
// @types/node, so the `lib: es2022`, `types: []` preset checks that the package's types stand alone.
import { Leasehold, LeaseLostError, type CallOptions, type SpaceLease } from '@leasehold/client';

/** Takes a key under a lease, runs `work` with its fence and signal, and gives it back. */
export async function withKey(baseUrl: string, work: (fence: number, signal: AbortSignal) => Promise<string>): Promise<string | null> {
  const lh = new Leasehold({ baseUrl, apiKey: 'lh_test_admin', maxRetries: 3 });
  const shutdown = new AbortController();
  const options: CallOptions = { signal: shutdown.signal, operationId: 'presets:with-key' };
  try {
    const lease: SpaceLease | null = await lh.space('6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a').run('0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c', { holder: 'presets' }).claim('k').tryAcquire(options);
    if (lease === null) return null;
    try {
      return await work(lease.fence ?? 0, lease.signal);
    } catch (error) {
      if (error instanceof LeaseLostError) return `lost: ${error.reason}`;
      throw error;
    } finally {
      // What `await using` calls, spelled out (a preset's lib may not have the syntax's own types).
      await lease[Symbol.asyncDispose]();
    }
  } finally {
    await lh[Symbol.asyncDispose]();
  }
}
