/** The server's `Date` header in epoch ms (second resolution), if it sent a valid one. */
export function serverDateMs(headers: Readonly<Record<string, string>>): number | undefined {
  const raw = headers.date;
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Time left on a grant by the server's own clock: `expiresAtMs` minus the response's `Date`
 * (plus one second for the header's resolution, so it never overestimates). `undefined` when
 * either is missing. Used for idempotent replays, whose grant is older than the request.
 */
export function serverRemainingMs(expiresAtMs: number | null | undefined, headers: Readonly<Record<string, string>>): number | undefined {
  const now = serverDateMs(headers);
  if (expiresAtMs === null || expiresAtMs === undefined || now === undefined) return undefined;
  return Math.max(0, expiresAtMs - (now + 1000));
}

/**
 * The duration to register a grant with, counted from when its request was sent: the nominal
 * duration, cut (for a replayed answer) to what the server's clock says is left.
 */
export function grantDurationMs(
  nominalMs: number | null,
  expiresAtMs: number | null | undefined,
  headers: Readonly<Record<string, string>>,
  replayed: boolean,
): number | null {
  if (!replayed || nominalMs === null) return nominalMs;
  const left = serverRemainingMs(expiresAtMs, headers);
  return left === undefined ? nominalMs : Math.min(nominalMs, left);
}
