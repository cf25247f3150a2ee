// TypeDoc plugin of the SDK reference: puts every export of @leasehold/client into one of its
// groups (Client; Handles and leases; Errors; Stores) and every export of @leasehold/msw into
// Testing (and names the two modules for their packages), so the index reads by purpose instead of A–Z (twenty error classes before `Leasehold`).
// The table below is the one place that says which name goes where; an export of the client that
// it does not name fails the build, so a new export has to be placed.
import { Comment, CommentTag, Converter, ReflectionKind } from 'typedoc';

/** The groups of @leasehold/client, in the order the index shows them. */
export const CLIENT_GROUPS = {
  Client: ['Leasehold', 'LeaseholdOptions', 'CallOptions', 'Logger', 'VERSION', 'Wire'],
  'Handles and leases': ['Lease', 'SpaceLease', 'TaskLease', 'SpoolLease'],
  Errors: [/Error$/],
  Stores: ['IdempotencyStore', 'MemoryIdempotencyStore', 'FileIdempotencyStore'],
};
/** @leasehold/msw's exports, all in one group. */
export const TESTING_GROUP = 'Testing';

/** The group of one client export, or `undefined` when the table does not place it. */
function clientGroupOf(name) {
  for (const [group, names] of Object.entries(CLIENT_GROUPS)) {
    if (names.some((entry) => (typeof entry === 'string' ? entry === name : entry.test(name)))) return group;
  }
  return undefined;
}

/**
 * The openapi-typescript maps of the whole spec. Rendered in full they are pages of tens of
 * megabytes (every path's every answer, expanded): the reference shows what each one is and
 * links to the HTTP API reference, which documents the same types from the spec itself.
 */
export const WIRE_MAPS = {
  paths: 'Every path of the API and its operations, keyed by URL template.',
  operations: 'Every operation of the API (parameters, request body, responses), keyed by operationId.',
  components: 'Every schema, response, parameter and header of the spec.',
};

/** Replaces a wire map's members (thousands of generated lines) with a one-paragraph summary. */
function summariseWireMap(project, reflection) {
  for (const member of [...(reflection.children ?? [])]) project.removeReflection(member);
  const text = `${WIRE_MAPS[reflection.name]} Generated from the OpenAPI spec by openapi-typescript: index it by key (\`${reflection.name}['…']\`). Its members are documented in the [API reference](https://leasehold.invalid/api-reference) and not repeated here (rendered in full, they run to tens of megabytes).`;
  reflection.comment = new Comment([{ kind: 'text', text }]);
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of context.project.getReflectionsByKind(ReflectionKind.Interface | ReflectionKind.TypeAlias)) {
      if (Object.hasOwn(WIRE_MAPS, reflection.name)) summariseWireMap(context.project, reflection);
    }
    const unplaced = [];
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      // The modules are named for their folders (client/src, msw/src): name them for their packages.
      const testing = module.name.includes('msw');
      module.name = testing ? '@leasehold/msw' : '@leasehold/client';
      for (const child of module.children ?? []) {
        const group = testing ? TESTING_GROUP : clientGroupOf(child.name);
        if (group === undefined) {
          unplaced.push(child.name);
          continue;
        }
        child.comment ??= new Comment();
        child.comment.blockTags = child.comment.blockTags.filter((tag) => tag.tag !== '@group');
        child.comment.blockTags.push(new CommentTag('@group', [{ kind: 'text', text: group }]));
      }
    }
    if (unplaced.length > 0) app.logger.error(`docs/typedoc-groups.mjs places no group for: ${unplaced.join(', ')}`);
  });
}
