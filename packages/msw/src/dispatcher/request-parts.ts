import type { Dispatcher } from 'undici';

/** The largest request body the API accepts (1 MiB); larger ones are answered 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A dispatched request's headers as the server reads them: lower-case names, repeats joined by `, `. */
export function plainHeaders(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: unknown, value: unknown) => {
    if (value === undefined || value === null) return;
    const key = String(name).toLowerCase();
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    out[key] = out[key] === undefined ? text : `${out[key]}, ${text}`;
  };
  if (headers === null || headers === undefined) return out;
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const [name, value] of headers as unknown as Array<[unknown, unknown]>) add(name, value);
    } else {
      if (headers.length % 2 !== 0) throw new TypeError('headers array must have an even length');
      for (let i = 0; i < headers.length; i += 2) add(headers[i], headers[i + 1]);
    }
    return out;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [name, value] of headers as Iterable<[unknown, unknown]>) add(name, value);
    return out;
  }
  for (const [name, value] of Object.entries(headers)) add(name, value);
  return out;
}

/** The request body, read in full; `tooLarge` past 1 MiB (the body is then dropped). */
export async function readBody(body: unknown): Promise<{ body: Uint8Array | undefined; tooLarge: boolean }> {
  const bytes = await bytesOf(body);
  if (bytes === undefined || bytes.length === 0) return { body: undefined, tooLarge: false };
  if (bytes.length > MAX_BODY_BYTES) return { body: undefined, tooLarge: true };
  return { body: bytes, tooLarge: false };
}

async function bytesOf(body: unknown): Promise<Uint8Array | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  if (typeof body === 'object' && (Symbol.asyncIterator in body || Symbol.iterator in body)) {
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<unknown>) {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      else throw new TypeError(`Unsupported request body chunk: ${typeof chunk}`);
    }
    return Buffer.concat(chunks);
  }
  throw new TypeError(`Unsupported request body: ${Object.prototype.toString.call(body)}`);
}

/** The absolute URL a dispatch targets: `origin` + `path`, plus `query` when given. */
export function targetUrl(options: Dispatcher.DispatchOptions): URL {
  if (options.origin === undefined) throw new TypeError('A dispatched request needs an origin');
  const url = new URL(String(options.origin));
  const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
  const target = new URL(url.origin + path);
  const query = (options as { query?: Record<string, unknown> }).query;
  if (query) {
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      for (const one of Array.isArray(value) ? value : [value]) target.searchParams.append(name, String(one));
    }
  }
  return target;
}
