import { LeaseholdError } from '../core/errors/leasehold-error.js';

/**
 * `tasks.work({ maxAttempts })` found the task already tried `attempts` times (every claim is one;
 * its earlier workers crashed, lost the claim or failed): it did not claim it again but moved it
 * to `Blocked` with a note saying why. An operator requeues it (`lh.tasks.requeue`) to retry.
 */
export class AttemptsExhaustedError extends LeaseholdError {
  override name = 'AttemptsExhaustedError';
  /** The task given up on. */
  readonly taskId: number;
  /** Its attempts so far. */
  readonly attempts: number;
  /** The `maxAttempts` it reached. */
  readonly maxAttempts: number;

  constructor(taskId: number, attempts: number, maxAttempts: number) {
    super(`Task ${taskId} was tried ${attempts} times (maxAttempts ${maxAttempts}): it is now Blocked, not claimed again. Requeue it to retry.`);
    this.taskId = taskId;
    this.attempts = attempts;
    this.maxAttempts = maxAttempts;
  }
}
