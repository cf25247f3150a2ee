import { listen, type LeaseholdServer, type NodeListener, type PlainRequest, type PlainResponse, type Store } from '../../../packages/server/src/index.js';

/** One request the listener answered (or dropped), as the HTTP layer saw it. */
export interface Exchange {
  method: string;
  /** Path without the query. */
  path: string;
  request: PlainRequest;
  response: PlainResponse;
  /** `Idempotent-Replayed: true`: the server replayed a stored answer. */
  replayed: boolean;
  /** The server cut the connection instead of answering (an injected "commit then drop"). */
  dropped: boolean;
  /** Time spent in the server's pipeline (injected latency included), ms. */
  durationMs: number;
}

/** What the listener does with each exchange: observe it, and optionally hold the answer back. */
export interface ExchangeObserver {
  /** Called after the server answered (the write, if any, is committed). */
  onExchange?(exchange: Exchange): void;
  /**
   * Called before the answer is written; a promise that never settles holds the answer (the
   * client sees a request that committed but never answered). Resolve to `'drop'` to cut the
   * connection instead.
   */
  hold?(exchange: Exchange): Promise<'answer' | 'drop'> | undefined;
}

/** A `node:http` listener in front of a server's pipeline that sees every exchange. */
export interface ObservedListener {
  url: string;
  listener: NodeListener;
  /** Every exchange so far (only when `keep` was asked). */
  exchanges: Exchange[];
  /** Answers `'drop'` to every held request and closes the listener. */
  close(): Promise<void>;
}

/**
 * Serves `server` on 127.0.0.1 (a free port) through a wrapper of its `handlePlain`, so a test
 * can count replays, drops and answers at the HTTP layer, and hold answers back.
 */
export async function observedListener(server: LeaseholdServer<Store>, observer: ExchangeObserver = {}, keep = false): Promise<ObservedListener> {
  const exchanges: Exchange[] = [];
  const releases = new Set<(verdict: 'answer' | 'drop') => void>();
  const listener = await listen(
    {
      handlePlain: async (request) => {
        const started = performance.now();
        const response = await server.handlePlain(request);
        const queryAt = request.url.indexOf('?');
        const exchange: Exchange = {
          method: request.method,
          path: queryAt === -1 ? request.url : request.url.slice(0, queryAt),
          request,
          response,
          replayed: response.headers['Idempotent-Replayed'] === 'true',
          dropped: response.drop === true,
          durationMs: performance.now() - started,
        };
        if (keep) exchanges.push(exchange);
        observer.onExchange?.(exchange);
        const held = observer.hold?.(exchange);
        if (held) {
          const verdict = await new Promise<'answer' | 'drop'>((resolve) => {
            const settle = (value: 'answer' | 'drop') => {
              releases.delete(settle);
              resolve(value);
            };
            releases.add(settle);
            held.then(settle, () => settle('drop'));
          });
          if (verdict === 'drop') return { status: 0, headers: {}, body: undefined, drop: true };
        }
        return response;
      },
    },
    { port: 0 },
  );
  return {
    url: listener.url,
    listener,
    exchanges,
    async close() {
      for (const release of releases) release('drop');
      releases.clear();
      await listener.close();
    },
  };
}
