/** The raw API calls, one resource per file (internal: the public surface wraps them). */
export { pickCallOptions, type CallOptions } from './call-options.js';
export { HeartbeatResource } from './heartbeat.js';
export { SpaceClaimsResource, type ListClaimsQuery } from './space-claims.js';
export { SpoolsResource } from './spools.js';
export { TasksResource, type TaskWriteGuard } from './tasks.js';
