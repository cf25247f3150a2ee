import type { Operations } from '../operations.js';
import { sqlActivity } from './activity.js';
import { sqlHeartbeat } from './heartbeat.js';
import { sqlSpaceClaims } from './space-claims.js';
import { sqlSpools } from './spools.js';
import type { UnitContext } from './sql-support.js';
import { listTasks } from './task-list.js';
import { sqlTasks } from './tasks.js';

/** The operations of one unit, each domain built when first used. */
export class LazyOperations implements Operations {
  #claims: Operations['claims'] | undefined;
  #tasks: Operations['tasks'] | undefined;
  #spools: Operations['spools'] | undefined;
  #heartbeat: Operations['heartbeat'] | undefined;
  #activity: Operations['activity'] | undefined;

  constructor(private readonly unit: UnitContext) {}

  get claims(): Operations['claims'] {
    return (this.#claims ??= sqlSpaceClaims(this.unit));
  }

  get tasks(): Operations['tasks'] {
    return (this.#tasks ??= { ...sqlTasks(this.unit), list: (params) => listTasks(this.unit.tx, params) });
  }

  get spools(): Operations['spools'] {
    return (this.#spools ??= sqlSpools(this.unit));
  }

  get activity(): Operations['activity'] {
    return (this.#activity ??= sqlActivity(this.unit));
  }

  heartbeat(request: Parameters<Operations['heartbeat']>[0]): ReturnType<Operations['heartbeat']> {
    return (this.#heartbeat ??= sqlHeartbeat(this.unit))(request);
  }
}
