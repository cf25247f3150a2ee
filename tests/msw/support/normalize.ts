/**
 * Replaces what differs between runs by design — ids, tokens, leases, handles, request ids,
 * ETags — with placeholders numbered by first appearance, so two transcripts compare equal
 * exactly when they have the same shape AND the same references (a `request_id` in a body
 * must match its `Request-Id` header, a released claim must be the one acquired, ...).
 */
const FIXED = new Set(['6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a', '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c']);
const OPAQUE = [
  /^[a-z]{2,4}_[A-Za-z0-9_-]{6,}$/, // clm_…, lht_…, req_…, msg_…, sl_…
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // task tokens
  /^(W\/)?"[^"]*"$/, // ETags
];

/** A normalizer with its own numbering; use one per transcript. */
export function normalizer(): (value: unknown) => unknown {
  const seen = new Map<string, string>();
  const placeholder = (text: string) => {
    let name = seen.get(text);
    if (name === undefined) {
      const kind = /^([a-z]{2,4})_/.exec(text)?.[1] ?? (text.includes('"') ? 'etag' : 'uuid');
      name = `<${kind}#${seen.size + 1}>`;
      seen.set(text, name);
    }
    return name;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return !FIXED.has(value) && OPAQUE.some((re) => re.test(value)) ? placeholder(value) : value;
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
    }
    return value;
  };
  return walk;
}

/** A transcript with its opaque values replaced. */
export function normalize<T>(transcript: T): T {
  return normalizer()(transcript) as T;
}
