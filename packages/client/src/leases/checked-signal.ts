import type { LeaseControl } from './lease-control.js';

/** The native accessors the checked ones delegate to. */
const nativeAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get;
const nativeReason = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'reason')?.get;
const nativeThrowIfAborted = AbortSignal.prototype.throwIfAborted;
/** The lease control a checked signal consults before answering. */
const signalCheck = Symbol('leasehold.signalCheck');

/** The shared accessors installed on every lease signal (one set of functions for all leases). */
const checkedAccessors: PropertyDescriptorMap = {
  aborted: {
    get(this: AbortSignal & { [signalCheck]?: LeaseControl }): boolean {
      this[signalCheck]?.checkDeadline();
      return nativeAborted?.call(this) as boolean;
    },
    configurable: true,
  },
  reason: {
    get(this: AbortSignal & { [signalCheck]?: LeaseControl }): unknown {
      this[signalCheck]?.checkDeadline();
      return nativeReason?.call(this);
    },
    configurable: true,
  },
  throwIfAborted: {
    value(this: AbortSignal & { [signalCheck]?: LeaseControl }): void {
      this[signalCheck]?.checkDeadline();
      nativeThrowIfAborted.call(this);
    },
    configurable: true,
    writable: true,
  },
};

/**
 * Makes a lease's signal check the lease's local deadline whenever it is read (`aborted`,
 * `reason`, `throwIfAborted()`), so a read right after an event-loop stall already sees the
 * loss. The accessors are shared by every lease; the signal only carries its lease's control.
 */
export function checkedSignal(signal: AbortSignal, control: LeaseControl): void {
  if (nativeAborted === undefined || nativeReason === undefined) return;
  Object.defineProperty(signal, signalCheck, { value: control });
  Object.defineProperties(signal, checkedAccessors);
}
