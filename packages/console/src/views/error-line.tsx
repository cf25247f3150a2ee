import { ApiError } from '../api.js';

/** One line saying why the last refresh failed (nothing when it did not). */
export function ErrorLine(props: { error: unknown }) {
  const { error } = props;
  if (error === undefined) return null;
  const text =
    error instanceof ApiError ? error.describe()
    : error instanceof Error ? error.message
    : String(error);
  return <p class="error" role="alert">{text}</p>;
}
