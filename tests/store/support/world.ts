/**
 * The store conformance harness: a scenario runs against one store through the operations
 * interface only, in a "world" of its own accounts and keys (so many scenarios share one SQL
 * database), and records a transcript of every answer. SQL transcripts must equal the memory
 * engine's after random ids and tokens are replaced by their order of appearance.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EngineError,
  ManualClock,
  READ_PERMISSIONS,
  type Credential,
  type KeyConfig,
} from '../../../packages/server/src/engine/index.js';
import {
  MemoryStore,
  SqlStore,
  createPgDriver,
  createPgliteDriver,
  type MaybePromise,
  type Operations,
  type Store,
} from '../../../packages/server/src/store/index.js';
import { createTestDatabase } from '../../support/postgres-database.js';

/** An answer as a user sees it: the value, or the error's code, param and status. */
export type Answer<R> = { ok: true; value: R } | { ok: false; code: string; param?: string | undefined; status: number };

/** What a scenario works with. */
export interface World {
  readonly kind: 'memory' | 'pglite' | 'postgres';
  readonly store: Store;
  /** `acct_<w>` keys: admin (every permission), reader (read only), one that sees only `SPACE`. */
  readonly admin: Credential;
  readonly reader: Credential;
  readonly oneSpace: Credential;
  /** A key of a second account. */
  readonly other: Credential;
  /** The API keys, for the controls that take one. */
  readonly apiKeys: { admin: string; other: string };
  readonly accountId: string;
  readonly otherAccountId: string;
  /** Run one operation as one unit and record its answer. */
  run<R>(op: (ops: Operations) => MaybePromise<R>, options?: RunOptions): Promise<Answer<R>>;
  /** The value of a run that must succeed. */
  ok<R>(op: (ops: Operations) => MaybePromise<R>, options?: RunOptions): Promise<R>;
  /** Advance the manual clock (expiring what falls due). */
  advance(ms: number): Promise<void>;
  /** Record a value in the transcript. */
  note(value: unknown): void;
}

/** Idempotency and a pre-commit hook for one run. */
export interface RunOptions {
  idempotency?: { key: string; fingerprint: string };
  beforeCommit?: () => Promise<void>;
  /** Store this answer for replays (default: successes only, as the pipeline will decide). */
  storable?: (answer: Answer<unknown>) => boolean;
  /** Run as this credential (default: admin). */
  credential?: Credential;
}

/** A scenario: what it does with a world (it asserts as it goes). */
export type Scenario = (world: World) => Promise<void>;

export const SPACE = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
export const SPACE_B = '7a2b3c4d-5e6f-4a0b-9c1d-2e3f4a5b6c7d';
export const SCOPE = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
export const SCOPE_B = '1c2d3e4f-5a6b-4c7d-9e8f-0a1b2c3d4e5f';

function encode<R>(outcome: { ok: true; value: R } | { ok: false; error: unknown }): Answer<R> {
  if (outcome.ok) return { ok: true, value: JSON.parse(JSON.stringify(outcome.value ?? null)) as R };
  const error = outcome.error;
  if (error instanceof EngineError) return { ok: false, code: error.code, param: error.param, status: error.status };
  throw error;
}

function keysOf(world: string): { keys: KeyConfig[]; apiKeys: World['apiKeys']; accountId: string; otherAccountId: string } {
  const accountId = `acct_${world}`;
  const otherAccountId = `acct_${world}_other`;
  const keys: KeyConfig[] = [
    { apiKey: `lh_${world}_admin`, credentialId: `cred_${world}_admin`, accountId },
    { apiKey: `lh_${world}_reader`, credentialId: `cred_${world}_reader`, accountId, permissions: READ_PERMISSIONS },
    { apiKey: `lh_${world}_one`, credentialId: `cred_${world}_one`, accountId, spaces: [SPACE] },
    { apiKey: `lh_${world}_other`, credentialId: `cred_${world}_other`, accountId: otherAccountId },
  ];
  return { keys, apiKeys: { admin: `lh_${world}_admin`, other: `lh_${world}_other` }, accountId, otherAccountId };
}

async function credentialOf(store: Store, apiKey: string): Promise<Credential> {
  const auth = await store.authenticate(`Bearer ${apiKey}`);
  if (!auth.ok) throw new Error(`key ${apiKey} refused: ${auth.code}`);
  return auth.credential;
}

/** Run `scenario` on `store` in a fresh world named `name`; answers the transcript. */
export async function runScenario(
  kind: World['kind'],
  store: Store,
  name: string,
  scenario: Scenario,
): Promise<unknown[]> {
  const transcript: unknown[] = [];
  const { apiKeys, accountId, otherAccountId } = keysOf(name);
  const admin = await credentialOf(store, apiKeys.admin);
  const world: World = {
    kind,
    store,
    admin,
    reader: await credentialOf(store, `lh_${name}_reader`),
    oneSpace: await credentialOf(store, `lh_${name}_one`),
    other: await credentialOf(store, apiKeys.other),
    apiKeys,
    accountId,
    otherAccountId,
    async run<R>(op: (ops: Operations) => MaybePromise<R>, options: RunOptions = {}): Promise<Answer<R>> {
      const storable = options.storable ?? ((answer: Answer<unknown>) => answer.ok);
      const result = await store.execute(
        {
          credential: options.credential ?? admin,
          operationId: 'conformance',
          idempotency: options.idempotency,
          beforeCommit: options.beforeCommit,
          isStorable: storable as (a: Answer<R>) => boolean,
        },
        op,
        (outcome) => encode<R>(outcome),
      );
      transcript.push({ ...result.answer, replayed: result.replayed });
      return result.answer;
    },
    async ok(op, options) {
      const answer = await world.run(op, options);
      if (!answer.ok) throw new Error(`expected success, got ${answer.code} (${answer.param ?? ''})`);
      return answer.value;
    },
    async advance(ms) {
      transcript.push({ advanced: await store.controls.advanceClock(ms) });
    },
    note(value) {
      transcript.push(JSON.parse(JSON.stringify(value ?? null)));
    },
  };
  await scenario(world);
  return transcript;
}

const RANDOM = [
  /lht_[A-Za-z0-9]+_[A-Za-z0-9_-]+/g,
  /sl_[A-Za-z0-9]+_[A-Za-z0-9_-]+/g,
  /(clm|msg|hdl|note|evt)_[A-Za-z0-9]+/g,
  /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g,
];

/** A transcript with every random id and token replaced by `#n`, n its order of first appearance. */
export function normalize(transcript: unknown[]): unknown {
  let text = JSON.stringify(transcript);
  const seen = new Map<string, string>();
  const all = RANDOM.map((re) => new RegExp(re.source, 'g'));
  const combined = new RegExp(all.map((re) => `(?:${re.source})`).join('|'), 'g');
  text = text.replace(combined, (match) => {
    let id = seen.get(match);
    if (id === undefined) {
      id = `#${seen.size}`;
      seen.set(match, id);
    }
    return id;
  });
  return JSON.parse(text);
}

/** The stores of a conformance file: memory per scenario, one PGlite and one PostgreSQL database per file. */
export function describeStores(title: string, scenarios: Record<string, Scenario>, options: { sqlOnly?: string[] } = {}): void {
  const names = Object.keys(scenarios);
  const allKeys = names.flatMap((name) => keysOf(worldName(name)).keys);
  const memoryFor = (startTime: number) => new MemoryStore({ clock: new ManualClock(startTime), keys: allKeys });

  describe(`${title} — memory`, () => {
    for (const name of names) {
      if (options.sqlOnly?.includes(name)) continue;
      it(name, async () => {
        await runScenario('memory', memoryFor(Date.UTC(2026, 0, 1)), worldName(name), scenarios[name] as Scenario);
      });
    }
  });

  for (const kind of ['pglite', 'postgres'] as const) {
    describe(`${title} — ${kind}`, () => {
      let store: SqlStore;
      let drop: (() => Promise<void>) | undefined;
      beforeAll(async () => {
        if (kind === 'pglite') {
          store = await SqlStore.open(await createPgliteDriver(), { clock: 'manual', keys: allKeys, sweepIntervalMs: 0 });
        } else {
          const db = await createTestDatabase();
          drop = db.drop;
          store = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 4 }), { clock: 'manual', keys: allKeys, sweepIntervalMs: 0 });
        }
      }, 60_000);
      afterAll(async () => {
        await store?.close();
        await drop?.();
      });
      for (const name of names) {
        it(name, async () => {
          const start = await store.now();
          const sql = await runScenario(kind, store, worldName(name), scenarios[name] as Scenario);
          if (options.sqlOnly?.includes(name)) return;
          const memory = await runScenario('memory', memoryFor(start), worldName(name), scenarios[name] as Scenario);
          expect(normalize(sql)).toEqual(normalize(memory));
        });
      }
    });
  }
}

/** A short, unique world name per scenario (and per run, so a database can be reused). */
const RUN = randomBytes(3).toString('hex');
function worldName(scenario: string): string {
  let hash = 0;
  for (const ch of scenario) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `w${RUN}${hash.toString(36)}`;
}
