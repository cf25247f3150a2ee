// A small worker written the way a user of the published packages writes one: it imports only the
// packages' public entry points. tests/packaging/consumer.test.ts copies this folder into a fresh
// project outside the workspace, installs the packed tarballs there with npm, type-checks it under
// `moduleResolution: nodenext` and `bundler`, compiles it and runs it against `leasehold-server`.
import { Leasehold, NotFoundError, VERSION, type LeaseholdOptions, type SpaceLease } from '@leasehold/client';

export const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
export const RUN = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';

/** What one pass of the worker saw. */
export interface WorkerReport {
  version: string;
  /** The fence of the first lease on the key. */
  fence: number | null;
  /** A second holder's tryAcquire while the key was held: null. */
  contended: null | 'granted';
  /** A task worked under its claim. */
  task: { id: number; status: string; result: string };
  /** A spool message received and acked. */
  message: unknown;
  /** What reading a task that does not exist raised: the typed error's class, status and code. */
  notFound: { name: string; status: number; code: string | undefined } | undefined;
}

/** Takes a key, works a task and consumes a message, through the client's public API. */
export async function runWorker(options: Pick<LeaseholdOptions, 'baseUrl' | 'fetch' | 'dispatcher'>): Promise<WorkerReport> {
  const lh = new Leasehold({ ...options, apiKey: 'lh_test_admin', session: 'sess_consumer_1' });
  const other = new Leasehold({ ...options, apiKey: 'lh_test_admin', session: 'sess_consumer_2' });
  try {
    const run = lh.space(SPACE).run(RUN, { holder: 'consumer-1' });
    const lease: SpaceLease = await run.claim('reports/2026-11').acquire();
    const second = await other.space(SPACE).run(RUN, { holder: 'consumer-2' }).claim('reports/2026-11').tryAcquire();
    const fence = lease.fence;
    await lease.release({ done: true });

    const { task } = await lh.tasks.create({ title: 'packaged smoke test' });
    const result = await lh.tasks.work(task.id, async (ctx) => {
      await ctx.addNote('worked by the packaged client');
      return `task ${ctx.task.id} done`;
    });
    const after = await lh.tasks.get(task.id);

    await lh.spool('smoke').create();
    const queue = lh.spool('smoke').queue('jobs');
    await queue.put({ leaseTimeoutSeconds: 60 });
    await queue.send({ job: 42 });
    const received = await queue.receive();
    await received?.ack();

    let notFound: WorkerReport['notFound'];
    try {
      await lh.tasks.get(987_654);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      notFound = { name: error.name, status: error.status, code: error.code };
    }

    return {
      version: VERSION,
      fence,
      contended: second === null ? null : 'granted',
      task: { id: task.id, status: after.task.status, result },
      message: received?.message.body,
      notFound,
    };
  } finally {
    await Promise.all([lh.close(), other.close()]);
  }
}
