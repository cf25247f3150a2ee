import { TOMBSTONE_MS } from './lease-record.js';

/** The length of one queue sample: 10 seconds. */
export const SAMPLE_MS = 10_000;
/** How many samples a queue's statistics show: the last 10 minutes. */
export const SAMPLE_COUNT = TOMBSTONE_MS / SAMPLE_MS;

/** One interval of a queue's history (wire `QueueSample`). */
export interface QueueSample {
  at: number;
  messages: number;
  sent: number;
  processed: number;
}

/** What one interval counted: sends, removals (acks and discards) and discards. */
export interface SampleCounts {
  sent: number;
  removed: number;
  discarded: number;
}

/** The 10-second bucket an instant falls in. */
export function bucketOf(at: number): number {
  return Math.floor(at / SAMPLE_MS);
}

/**
 * The samples of the last 10 minutes, oldest first, from the counts per bucket and the number of
 * messages stored now: the messages at the end of an interval are today's minus what was sent
 * since, plus what was removed since. Also answers the discards of those intervals.
 */
export function samplesOf(counts: ReadonlyMap<number, SampleCounts>, messagesNow: number, now: number): { samples: QueueSample[]; discarded: number } {
  const current = bucketOf(now);
  const samples: QueueSample[] = [];
  let messages = messagesNow;
  let discarded = 0;
  for (let bucket = current; bucket > current - SAMPLE_COUNT; bucket--) {
    const c = counts.get(bucket);
    samples.push({ at: (bucket + 1) * SAMPLE_MS, messages: Math.max(0, messages), sent: c?.sent ?? 0, processed: c === undefined ? 0 : c.removed - c.discarded });
    if (c !== undefined) {
      messages -= c.sent - c.removed;
      discarded += c.discarded;
    }
  }
  return { samples: samples.reverse(), discarded };
}

/** A queue's counts per 10-second bucket over the last 10 minutes (the memory store's history). */
export class QueueHistory {
  readonly #counts = new Map<number, SampleCounts>();

  /** A message was sent at `now`. */
  sent(now: number): void {
    this.#at(now).sent++;
  }

  /** A message left the queue at `now` (acknowledged, or discarded when `discarded`). */
  removed(now: number, discarded: boolean): void {
    const counts = this.#at(now);
    counts.removed++;
    if (discarded) counts.discarded++;
  }

  /** The counts per bucket (the old ones forgotten by `now`). */
  counts(now: number): ReadonlyMap<number, SampleCounts> {
    this.#prune(bucketOf(now));
    return this.#counts;
  }

  #at(now: number): SampleCounts {
    const bucket = bucketOf(now);
    let counts = this.#counts.get(bucket);
    if (counts === undefined) {
      this.#prune(bucket);
      counts = { sent: 0, removed: 0, discarded: 0 };
      this.#counts.set(bucket, counts);
    }
    return counts;
  }

  #prune(current: number): void {
    for (const bucket of this.#counts.keys()) if (bucket <= current - SAMPLE_COUNT) this.#counts.delete(bucket);
  }
}
