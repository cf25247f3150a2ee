import type { BaseUrl } from '@leasehold/protocol';

/** Base URLs are `@leasehold/protocol`'s: one owner of normalization and of what lies beneath a base. */
export { isUnderBase, parseBaseUrl, pathUnderBase, type BaseUrl } from '@leasehold/protocol';

/**
 * A RegExp over MSW's clean URL (origin + path, no query) matching exactly what
 * `isUnderBase` takes. MSW tests RegExp paths as given, so nothing in the base is read as a
 * path parameter or a wildcard, and the match is case-sensitive like the server's router.
 */
export function baseUrlPattern(base: BaseUrl): RegExp {
  return new RegExp(`^${escapeRegExp(base.href)}(?:/.*)?$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
