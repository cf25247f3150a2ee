/** A report as the store keeps it. */
export interface StoredReport {
  body: string;
  /** The fence of the lease it was written under. */
  fence: number;
}

/** A write refused because a newer lease holder already wrote this key. */
export class StaleFenceError extends Error {
  constructor(key: string, fence: number, current: number) {
    super(`Refusing to write ${key} with fence ${fence}: fence ${current} already wrote it`);
    this.name = 'StaleFenceError';
  }
}

/**
 * Where finished reports go. A real store (a database row, an object's metadata) checks the
 * fence the same way, so a worker that lost its lease cannot overwrite its successor's work.
 */
export interface ReportStore {
  save(key: string, body: string, fence: number): Promise<void>;
}

/** A fenced in-memory store, for tests and the demo. */
export class MemoryReportStore implements ReportStore {
  readonly reports = new Map<string, StoredReport>();

  async save(key: string, body: string, fence: number): Promise<void> {
    const current = this.reports.get(key);
    if (current && current.fence > fence) throw new StaleFenceError(key, fence, current.fence);
    this.reports.set(key, { body, fence });
  }
}
