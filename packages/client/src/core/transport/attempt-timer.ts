/**
 * Internal: something with a deadline that the shared attempt timer expires. The fields are the
 * timer's own bookkeeping (an intrusive, unsorted doubly linked list); `expire()` is called once
 * when the deadline is reached while the entry is still listed.
 */
export interface TimedEntry {
  /** When it expires (ms on `performance.now()`); owned by the timer. */
  expiresAt: number;
  /** List links, owned by the timer (`null` when first/last or not listed). */
  prevTimed: TimedEntry | null;
  nextTimed: TimedEntry | null;
  /** Whether it is listed. */
  timed: boolean;
  /** The deadline was reached. */
  expire(): void;
}

/** The longest delay `setTimeout` accepts. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

type Handle = ReturnType<typeof setTimeout>;

let head: TimedEntry | null = null;
let pending = 0;
let handle: Handle | undefined;
/** The deadline the timer is armed for (`Infinity`: not armed). */
let armedAt = Infinity;
/** The timer functions it was armed with (so a later fake-timer install or uninstall is seen). */
let armedSet: typeof setTimeout | undefined;
let armedClear: typeof clearTimeout | undefined;
let refed = true;

/**
 * Expires `entry` after `delayMs` (a non-negative finite number), through ONE timer shared by every
 * request in flight: armed for the earliest deadline, re-armed only when a new entry expires
 * sooner, so sequential calls with the same timeout touch no timer at all. Like a per-call
 * `setTimeout`, it keeps the process alive while an entry is pending (and only then).
 */
export function startTimed(entry: TimedEntry, delayMs: number): void {
  const now = performance.now();
  const at = now + Math.min(delayMs, MAX_TIMER_DELAY_MS);
  entry.expiresAt = at;
  entry.prevTimed = null;
  entry.nextTimed = head;
  if (head !== null) head.prevTimed = entry;
  head = entry;
  entry.timed = true;
  pending += 1;
  if (handle === undefined || at < armedAt || globalThis.setTimeout !== armedSet) arm(at, now);
  else if (!refed) setRef(true);
}

/** Forgets `entry` (it settled first); a no-op when it is not listed. */
export function stopTimed(entry: TimedEntry): void {
  if (!entry.timed) return;
  entry.timed = false;
  const { prevTimed, nextTimed } = entry;
  if (prevTimed === null) head = nextTimed;
  else prevTimed.nextTimed = nextTimed;
  if (nextTimed !== null) nextTimed.prevTimed = prevTimed;
  entry.prevTimed = entry.nextTimed = null;
  pending -= 1;
  // Nothing left to expire: the armed timer must not keep the process alive any more.
  if (pending === 0 && refed) setRef(false);
}

function arm(at: number, now: number): void {
  if (handle !== undefined) armedClear?.(handle);
  armedSet = globalThis.setTimeout;
  armedClear = globalThis.clearTimeout;
  armedAt = at;
  handle = armedSet(onTimer, Math.max(0, at - now));
  refed = true;
  if (pending === 0) setRef(false);
}

function setRef(on: boolean): void {
  refed = on;
  const timer = handle as { ref?: () => unknown; unref?: () => unknown } | undefined;
  if (on) timer?.ref?.();
  else timer?.unref?.();
}

function onTimer(): void {
  // The timer's own word that `armedAt` has come (as a per-call timer would fire), even if a
  // fake clock drives the timers but not `performance.now()`.
  const now = Math.max(performance.now(), armedAt);
  handle = undefined;
  armedAt = Infinity;
  let due: TimedEntry[] | undefined;
  for (let entry = head; entry !== null; entry = entry.nextTimed) {
    if (entry.expiresAt <= now) (due ??= []).push(entry);
  }
  if (due !== undefined) {
    for (const entry of due) {
      if (!entry.timed) continue;
      stopTimed(entry);
      entry.expire();
    }
  }
  if (handle !== undefined || pending === 0) return;
  let next = Infinity;
  for (let entry = head; entry !== null; entry = entry.nextTimed) if (entry.expiresAt < next) next = entry.expiresAt;
  arm(next, now);
}
