import type { ApiHandlers } from '../handler.js';
import { activityHandlers } from './activity.js';
import { claimHandlers } from './claims.js';
import { spoolHandlers } from './spools.js';
import { taskHandlers } from './tasks.js';

/** Every API operation's handler (a missing one fails to compile here). */
export const apiHandlers: ApiHandlers = { ...claimHandlers, ...taskHandlers, ...spoolHandlers, ...activityHandlers };
export { controlHandlers } from './control.js';
