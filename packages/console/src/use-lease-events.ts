import { useEffect, useState } from 'preact/hooks';
import type { Api, Schemas } from './api.js';
import { followLeaseEvents } from './event-stream.js';
import { noteEvent, type SessionSigns } from './session-state.js';

/** At most this many events stay in the feed. */
const FEED_SIZE = 200;

/** The lease events followed since the console opened, and what they say of each session. */
export interface LeaseEvents {
  /** The latest events, newest first (at most 200). */
  readonly events: Schemas['LeaseEvent'][];
  /** The last failure to read them (`undefined` once a read succeeds). */
  readonly error: unknown;
  /** Per holder session: when it last acted, when a lease of it last ran out (all events, not only the shown ones). */
  readonly signs: ReadonlyMap<string, SessionSigns>;
}

/** Follow the lease events (the feed, from the last 10 minutes on) for the feed and the sessions' states. */
export function useLeaseEvents(api: Api): LeaseEvents {
  const [state, setState] = useState<LeaseEvents>({ events: [], error: undefined, signs: new Map() });
  useEffect(() => {
    setState({ events: [], error: undefined, signs: new Map() });
    return followLeaseEvents(
      api,
      (batch) =>
        setState((old) => {
          const signs = new Map(old.signs);
          for (const event of batch) noteEvent(signs, event);
          return { events: [...[...batch].reverse(), ...old.events].slice(0, FEED_SIZE), error: undefined, signs };
        }),
      (error) => setState((old) => ({ ...old, error })),
    );
  }, [api]);
  return state;
}
