import { LeaseholdError } from '../core/errors/leasehold-error.js';
import type { Message as WireMessage } from '../resources/wire-types.js';

/**
 * A runtime schema of message bodies, as the Standard Schema spec (v1) defines it — zod, valibot,
 * arktype and others implement it (`schema['~standard']`). Declared here structurally, as the
 * spec suggests, so the client depends on no schema library.
 * @see https://standardschema.dev
 */
export interface MessageSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/** What a Standard Schema's `validate` answers: the value, or the issues. */
export type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> };

/** One problem a schema found. */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The body type a schema validates to. */
export type SchemaOutput<S extends MessageSchema> = S extends MessageSchema<infer O> ? O : unknown;

/** A queue message whose `body` is a `T` (the wire `Message` itself when `T` is `unknown`). */
export type Message<T = unknown> = unknown extends T ? WireMessage : Omit<WireMessage, 'body'> & { body: T };

/**
 * A received message's body did not pass its queue's schema (`queue(name, { schema })`): the
 * handler is not called, and the message takes the consume failure path (nacked with backoff,
 * dead-lettered after `maxDeliveries`), reported to `onError` with this error.
 * @example
 * await lh.spool('billing').queue('invoices', { schema: invoiceSchema }).consume((message) => charge(message.body), { onError: (error) => { if (error instanceof MessageSchemaError) console.error(error.issues); } });
 */
export class MessageSchemaError extends LeaseholdError {
  override name = 'MessageSchemaError';
  /** The message whose body was refused. */
  readonly messageId: string;
  /** What the schema found wrong (paths and messages; never the body itself). */
  readonly issues: ReadonlyArray<{ message: string; path: string | undefined }>;

  constructor(messageId: string, issues: ReadonlyArray<SchemaIssue>) {
    const shown = issues.map((issue) => ({ message: issue.message, path: pathOf(issue) }));
    const first = shown[0];
    super(`Message ${messageId} does not match its queue's schema: ${first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid'}${shown.length > 1 ? ` (and ${shown.length - 1} more)` : ''}.`);
    this.messageId = messageId;
    this.issues = Object.freeze(shown);
  }
}

function pathOf(issue: SchemaIssue): string | undefined {
  if (!issue.path || issue.path.length === 0) return undefined;
  return issue.path.map((part) => String(typeof part === 'object' && part !== null ? part.key : part)).join('.');
}

/** The message with its body validated by `schema` (its output replaces the body); throws `MessageSchemaError`. */
export async function validateMessage<T>(schema: MessageSchema<T>, message: WireMessage): Promise<Message<T>> {
  const result = await schema['~standard'].validate(message.body);
  if (result.issues !== undefined) throw new MessageSchemaError(message.id, result.issues);
  return { ...message, body: result.value } as Message<T>;
}
