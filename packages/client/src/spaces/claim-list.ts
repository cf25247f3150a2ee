import { LeaseholdError } from '../core/errors/leasehold-error.js';
import type { Claim, ClaimList } from '../resources/wire-types.js';

/** Fetches one page for a cursor. */
type PageFetcher = (cursor: string | undefined) => Promise<ClaimList>;

/**
 * One page of held claims. Iterating it (`for await`) yields its claims and then every claim of
 * the following pages, fetched lazily.
 * @example
 * let page = await space.claims.list({ limit: 100 });
 * while (page.hasNextPage()) page = await page.getNextPage();
 */
export class ClaimPage implements AsyncIterable<Claim> {
  /** This page's claims, in key order. */
  readonly data: Claim[];
  /** The cursor of the next page; `null` on the last page. */
  readonly nextCursor: string | null;
  readonly #fetch: PageFetcher;

  /** @internal */
  constructor(list: ClaimList, fetch: PageFetcher) {
    this.data = list.data;
    this.nextCursor = list.nextCursor;
    this.#fetch = fetch;
  }

  /** Whether another page follows. */
  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /** Fetches the next page (rejects with a `LeaseholdError` when there is none). */
  async getNextPage(): Promise<ClaimPage> {
    if (this.nextCursor === null) throw new LeaseholdError('This is the last page of claims: check hasNextPage() first.');
    return new ClaimPage(await this.#fetch(this.nextCursor), this.#fetch);
  }

  /** This page, then each following page. */
  async *iterPages(): AsyncGenerator<ClaimPage, void, undefined> {
    let page: ClaimPage = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  /** Every claim from this page on. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Claim, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * The answer of `claims.list()`: `await` it for the first {@link ClaimPage}, or iterate it with
 * `for await` for every claim of every page. Nothing is fetched until one of the two happens.
 * @example
 * for await (const claim of lh.space(spaceId).claims.list({ prefix: 'reports/' })) console.log(claim.key);
 */
export class ClaimListPromise implements PromiseLike<ClaimPage>, AsyncIterable<Claim> {
  readonly #fetch: PageFetcher;
  readonly #cursor: string | undefined;
  #first: Promise<ClaimPage> | undefined;

  /** @internal */
  constructor(fetch: PageFetcher, cursor: string | undefined) {
    this.#fetch = fetch;
    this.#cursor = cursor;
  }

  /** The first page (fetched once, on first use). */
  firstPage(): Promise<ClaimPage> {
    this.#first ??= this.#fetch(this.#cursor).then((list) => new ClaimPage(list, this.#fetch));
    return this.#first;
  }

  /** Resolves with the first page. */
  then<R1 = ClaimPage, R2 = never>(
    onfulfilled?: ((page: ClaimPage) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  /** Every claim of every page, in key order. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Claim, void, undefined> {
    yield* await this.firstPage();
  }
}
