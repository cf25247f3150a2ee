// A task worker: work every task that is `Todo` — claim it, mark it InProgress, run the work
// under the renewed claim, complete it with a note — one at a time, then exit.
// Run: LEASEHOLD_URL=http://127.0.0.1:4010 pnpm start
import { Leasehold } from '@leasehold/client';

const lh = new Leasehold({
  baseUrl: process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4010',
  apiKey: process.env.LEASEHOLD_API_KEY ?? 'lh_test_admin',
});

let worked = 0;
try {
  const todo: number[] = [];
  for await (const task of lh.tasks.list({ status: 'Todo' })) todo.push(task.id);
  for (const id of todo) {
    const result = await lh.tasks.work(
      id,
      async (ctx) => {
        // Real work watches ctx.lease.signal: it aborts if the claim is lost.
        ctx.lease.signal.throwIfAborted();
        return `rebuilt "${ctx.task.title}"`;
      },
      { note: (value) => value },
    );
    worked++;
    console.log(`task ${id}: ${result}`);
  }
} finally {
  await lh.close();
}
console.log(`done: ${worked} tasks`);
