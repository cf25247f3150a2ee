// A task worker: work every claimable task — Todo, or stalled (InProgress whose worker died) —
// claim it, mark it InProgress, run the work under the renewed claim, complete it with a note;
// list again until nothing is claimable, then exit. Killed (kill -9) mid-task, its task stalls
// when the claim expires (15 min) and the next run of this worker picks it up.
// Run: LEASEHOLD_URL=http://127.0.0.1:4010 pnpm start
import { AttemptsExhaustedError, ConflictError, Leasehold, PreconditionFailedError } from '@leasehold/client';

const lh = new Leasehold({
  baseUrl: process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4010',
  apiKey: process.env.LEASEHOLD_API_KEY ?? 'lh_test_admin',
});
// How long each task's work takes (a stand-in for real work; 0 by default).
const workMs = Number(process.env.TASK_WORK_MS ?? 0);

let worked = 0;
try {
  for (;;) {
    const claimable: number[] = [];
    for await (const task of lh.tasks.list({ claimable: true })) claimable.push(task.id);
    if (claimable.length === 0) break;
    for (const id of claimable) {
      try {
        const result = await lh.tasks.work(
          id,
          async (ctx) => {
            console.log(`task ${id}: working (attempt ${ctx.task.attempts})`);
            // Real work watches ctx.lease.signal: it aborts if the claim is lost.
            if (workMs > 0) await new Promise((resolve) => setTimeout(resolve, workMs));
            ctx.lease.signal.throwIfAborted();
            return `rebuilt "${ctx.task.title}"`;
          },
          { note: (value) => value, maxAttempts: 5 },
        );
        worked++;
        console.log(`task ${id}: ${result}`);
      } catch (error) {
        // Another worker took it first (task_claimed / a changed ETag), or it was given up on.
        if (error instanceof AttemptsExhaustedError) console.log(`task ${id}: blocked after ${error.attempts} attempts`);
        else if (!(error instanceof ConflictError || error instanceof PreconditionFailedError)) throw error;
      }
    }
  }
} finally {
  await lh.close();
}
console.log(`done: ${worked} tasks`);
