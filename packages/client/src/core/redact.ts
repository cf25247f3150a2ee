/** The text that replaces a secret wherever one would have been shown. */
export const REDACTED = '[REDACTED]';

/** Header names whose values are always secret, whatever they contain (lowercase). */
export const SECRET_HEADER_NAMES: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'spooler-lease',
  'x-task-claim',
]);

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** Rewrites applied to every text, before and regardless of any registered secret. */
const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // Authorization: Bearer <credential>
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // JSON members that carry secrets: "token": "...", "leaseToken": "...", "apiKey": "..."
  [
    /("(?:[A-Za-z]*[Tt]oken|api_?[Kk]ey|[Ss]pooler-?[Ll]ease|[Aa]uthorization|lease)"\s*:\s*")(?:[^"\\]|\\.)*"/g,
    `$1${REDACTED}"`,
  ],
  // Secret headers written as text: "Spooler-Lease: abc", "x-task-claim=..."
  [/\b(spooler-lease|x-task-claim)(["']?\s*[:=]\s*["']?)[A-Za-z0-9_-]+/gi, `$1$2${REDACTED}`],
  // Leasehold claim tokens, spool leases and API keys recognisable by their prefix.
  [/\blht_[A-Za-z0-9_-]+/g, `lht_${REDACTED}`],
  [/\bsl_[A-Za-z0-9_-]{8,}/g, `sl_${REDACTED}`],
  [/\blh_(test|live)_[A-Za-z0-9_-]+/g, `lh_$1_${REDACTED}`],
  // A task-claim token (a UUID) shortly after the word "token": "token 2222…", "token=2222…".
  [new RegExp(`(\\btokens?\\b[^A-Za-z0-9\\n]{0,6}(?:(?:is|was|of|value)\\s+)?["']?)${UUID}`, 'gi'), `$1${REDACTED}`],
  // token=<anything> / token: <anything> in free text.
  [/(\btoken\b\s*[:=]\s*["']?)(?!\[REDACTED\])[^\s"',;}&]+/gi, `$1${REDACTED}`],
];

/** Secrets shorter than this are not registered: masking them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 6;

/** Options of a {@link Redactor}. */
export interface RedactorOptions {
  /** Secrets known from the start, e.g. the API key. */
  secrets?: Iterable<string | undefined | null>;
  /** How many learned secrets to remember; the oldest are forgotten first. Default 10 000. */
  maxSecrets?: number;
}

/**
 * Masks secrets in text: the API key, every lease token the client has learned, and any
 * `Bearer …`, `lht_…`, `sl_…`, `lh_test_…`/`lh_live_…` or token-looking value.
 * (Internal to the client: it shares one per client; the type appears in `ApiErrorInit`.)
 */
export class Redactor {
  readonly #secrets = new Set<string>();
  readonly #maxSecrets: number;

  constructor(options: RedactorOptions = {}) {
    this.#maxSecrets = options.maxSecrets ?? 10_000;
    for (const secret of options.secrets ?? []) this.add(secret);
  }

  /** Registers a secret value (ignored when empty or shorter than 6 characters). */
  add(secret: string | undefined | null): void {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) return;
    this.#secrets.delete(secret);
    this.#secrets.add(secret);
    if (this.#secrets.size > this.#maxSecrets) {
      const oldest = this.#secrets.values().next().value;
      if (oldest !== undefined) this.#secrets.delete(oldest);
    }
  }

  /** Forgets a secret, e.g. the token of a released lease. */
  forget(secret: string): void {
    this.#secrets.delete(secret);
  }

  /** Whether a value is registered as a secret. */
  has(secret: string): boolean {
    return this.#secrets.has(secret);
  }

  /** The text with every registered secret and every secret-looking pattern masked. */
  redact(text: string): string {
    return redact(text, this.#secrets);
  }

  /** A copy of a header record with secret headers masked and the other values redacted. */
  redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      out[name] = SECRET_HEADER_NAMES.has(name.toLowerCase()) ? REDACTED : this.redact(value);
    }
    return out;
  }

  /** A deep copy of a JSON-like value with every string redacted (for log fields). */
  redactValue(value: unknown): unknown {
    return redactValue(value, this, 0);
  }
}

function redactValue(value: unknown, redactor: Redactor, depth: number): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return redactor.redact(`${value.name}: ${value.message}`);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_HEADER_NAMES.has(key.toLowerCase()) || /token$/i.test(key) || /^api_?key$/i.test(key)
      ? REDACTED
      : redactValue(item, redactor, depth + 1);
  }
  return out;
}

/** Masks the given secrets and every secret-looking pattern in a text; never throws. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = String(text);
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
