/**
 * The explicit resource management types `Lease` and the client implement (`await using`),
 * declared here as `@types/node` declares them, so the published typings need neither
 * `lib: esnext.disposable` nor `@types/node`: a consumer with `lib: es2022` and `types: []`
 * type-checks them (identical re-declarations merge with TypeScript's own lib).
 */
declare global {
  interface SymbolConstructor {
    /** The method `await using` calls on scope exit. */
    readonly asyncDispose: unique symbol;
  }
  /** An object `await using` can dispose of. */
  interface AsyncDisposable {
    [Symbol.asyncDispose](): PromiseLike<void>;
  }
}

export {};
