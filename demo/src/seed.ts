import type { Leasehold } from '@leasehold/client';

/** The work the fleet shares: task ids, message ids and claim keys. */
export interface Workload {
  taskIds: number[];
  messageIds: string[];
  keys: string[];
  spool: string;
  queue: string;
}

/** Creates the tasks, the spool queue with its messages, and names the contended keys. */
export async function seedWorkload(
  lh: Leasehold,
  sizes: { tasks: number; messages: number; keys: number },
  options: { spool: string; queue: string; leaseTimeoutSeconds: number },
): Promise<Workload> {
  const taskIds: number[] = [];
  for (let i = 0; i < sizes.tasks; i++) {
    const { task } = await lh.tasks.create({ title: `Rebuild report ${i + 1}`, description: 'Demo task.' });
    taskIds.push(task.id);
  }
  const spool = lh.spool(options.spool);
  await spool.create();
  const queue = spool.queue(options.queue);
  await queue.put({ leaseTimeoutSeconds: options.leaseTimeoutSeconds });
  const messageIds: string[] = [];
  for (let i = 0; i < sizes.messages; i++) {
    const message = await queue.send({ invoice: `inv_${i + 1}` });
    messageIds.push(message.id);
  }
  const keys = Array.from({ length: sizes.keys }, (_, i) => `reports/${String(i + 1).padStart(3, '0')}`);
  return { taskIds, messageIds, keys, spool: options.spool, queue: options.queue };
}
