import { describe, expect, it } from 'vitest';
import {
  bundledSpec,
  listOperations,
  resolveRef,
  schemaErrors,
  type MediaType,
  type Parameter,
  type Response,
} from '../support/spec-validator.js';

const requiredOperationIds = [
  'heartbeatClaims',
  'listSpaceClaims', 'acquireSpaceClaim', 'getSpaceClaim', 'renewSpaceClaim', 'releaseSpaceClaim', 'cancelScope',
  'createTask', 'getTask', 'updateTask', 'addTaskNote', 'claimTask', 'renewTaskClaim', 'releaseTaskClaim', 'completeTask',
  'createSpool', 'putQueue', 'sendMessage', 'receiveMessage', 'renewSpoolLease', 'ackMessage', 'nackMessage', 'discardMessage',
];

const operations = listOperations();
const productionOperations = operations.filter(({ operation }) => !operation.tags?.includes('Testing'));

function examplesOf(media: MediaType): unknown[] {
  if (media.examples) return Object.values(media.examples).map((e) => e.value);
  return 'example' in media ? [media.example] : [];
}

describe('the bundled spec', () => {
  it('is OpenAPI 3.1 and holds every required operationId exactly once', () => {
    expect(bundledSpec.openapi).toBe('3.1.0');
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(requiredOperationIds));
  });

  it('keeps the test controls under their own Testing tag, outside /v1, with no security', () => {
    const controls = operations.filter(({ path }) => path.startsWith('/_control'));
    expect(controls.length).toBeGreaterThanOrEqual(8);
    for (const { operation } of controls) {
      expect(operation.tags).toEqual(['Testing']);
      expect(operation.description).toContain('not part of the production API');
      expect(operation.security).toEqual([]);
    }
    for (const { path } of productionOperations) expect(path.startsWith('/v1/')).toBe(true);
  });

  describe.each(productionOperations.map((o) => [o.operation.operationId, o] as const))('%s', (_id, { operation }) => {
    it('has a summary, a description naming its permission, and a bearer security requirement', () => {
      expect(operation.summary).toBeTruthy();
      expect(operation.description?.length).toBeGreaterThan(120);
      const permission = operation['x-permission'] as string;
      expect(permission).toMatch(/^(coordination_(read|write)|tasks:(read|update|admin)|spools:(read|write))$/);
      expect(operation.description).toContain(`Key permission: \`${permission}\``);
      expect(operation.security).toEqual([{ bearerAuth: [permission] }]);
    });

    it('answers every error with the canonical envelope and declares Request-Id on every response', () => {
      expect(operation.responses.default).toBeDefined();
      for (const status of ['400', '401', '402', '403', '429', '500', '503']) {
        expect(operation.responses[status], `missing ${status}`).toBeDefined();
      }
      for (const [status, ref] of Object.entries(operation.responses)) {
        const response = resolveRef<Response>(ref);
        expect(response.headers?.['Request-Id'], `${status} lacks Request-Id`).toBeDefined();
        if (status === 'default' || Number(status) >= 400) {
          expect(resolveRef(response.content?.['application/json']?.schema as never)).toBe(
            bundledSpec.components.schemas!.ErrorEnvelope,
          );
        }
      }
      expect(resolveRef<Response>(operation.responses['429']!).headers?.['Retry-After']).toBeDefined();
    });
  });
});

describe('examples of every operation, the test controls included', () => {
  const all = operations.map((o) => [o.operation.operationId, o.operation] as const);
  it.each(all)('%s: a request example and one per 2xx answer, each valid against its schema', (_id, operation) => {
    const media = operation.requestBody?.content['application/json'];
    if (media) {
      const examples = examplesOf(media);
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(schemaErrors(media.schema, example)).toEqual([]);
    }
    for (const [status, ref] of Object.entries(operation.responses)) {
      const response = resolveRef<Response>(ref);
      const eventStream = response.content?.['text/event-stream'];
      if (eventStream) {
        // Server-sent events (`streamLeaseEvents`): a text example, valid against its schema.
        expect(examplesOf(eventStream).length, `${status} has no example`).toBeGreaterThan(0);
        for (const example of examplesOf(eventStream)) expect(schemaErrors(eventStream.schema, example), status).toEqual([]);
        continue;
      }
      const answer = response.content?.['application/json'];
      if (!answer) {
        if (status.startsWith('2')) expect(['204', '202']).toContain(status);
        continue;
      }
      const examples = examplesOf(answer);
      expect(examples.length, `${status} has no example`).toBeGreaterThan(0);
      for (const example of examples) expect(schemaErrors(answer.schema, example), status).toEqual([]);
    }
    for (const ref of operation.parameters ?? []) {
      const parameter = resolveRef<Parameter>(ref);
      if (parameter.example === undefined) continue;
      const example =
        parameter.name === 'taskId' ? Number(parameter.example)
        : parameter.name === 'key' ? decodeURIComponent(String(parameter.example)) // shown percent-encoded
        : parameter.example;
      expect(schemaErrors(parameter.schema, example), parameter.name).toEqual([]);
    }
  });
});

describe('the heartbeat ttl', () => {
  const ttl = bundledSpec.components.schemas!.Ttl;
  // Any JSON number is a duration (a negative one counts as 0, then clamped) and null renews each
  // lease for its own term (the heartbeat page's `number | string | any`).
  it.each([[30], [2.5], [-1], [null], ['30'], ['30s'], ['5m'], ['1h'], ['1500ms'], ['1m30s'], ['PT30S'], ['PT1M30S'], ['PT1H']])(
    'accepts %j',
    (value) => expect(schemaErrors(ttl, value)).toEqual([]),
  );
  it.each([['abc'], [''], ['30x'], ['PT'], ['P1D'], [true], [{}], ['5 m']])('rejects %j', (value) =>
    expect(schemaErrors(ttl, value)).not.toEqual([]),
  );
  it('reports the seed statuses exactly', () => {
    expect((bundledSpec.components.schemas!.LeaseStatus as { enum: string[] }).enum).toEqual(['held', 'queued', 'lost']);
  });
});
