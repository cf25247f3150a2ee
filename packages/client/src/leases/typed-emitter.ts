/** A listener of one event's payload. */
export type Listener<T> = (payload: T) => void;

/** Rethrows a listener's error on its own microtask, so it surfaces without breaking the emitter's caller. */
export function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

/**
 * A tiny typed event emitter: `on` returns its own unsubscribe function, and a throwing listener
 * never interrupts the emitter (its error is rethrown on a later microtask by default).
 * @example
 * const events = new TypedEmitter<{ lost: Error }>();
 * const off = events.on('lost', (error) => stop(error));
 */
export class TypedEmitter<Events extends { [K in keyof Events]: unknown }> {
  #listeners: Map<keyof Events, Set<Listener<never>>> | undefined;
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = rethrowLater) {
    this.#onListenerError = onListenerError;
  }

  /** Calls `listener` on every `event` until the returned function is called. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    this.#listeners ??= new Map();
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    const entry: Listener<never> = (payload) => listener(payload);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** Calls `listener` on the next `event` only. */
  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(event, (payload) => {
      off();
      listener(payload);
    });
    return off;
  }

  /** Calls every listener of `event` with `payload`, in subscription order. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners?.get(event);
    if (!set || set.size === 0) return;
    for (const listener of Array.from(set)) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#listeners?.get(event)?.size ?? 0;
  }
}
