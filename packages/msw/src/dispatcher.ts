/**
 * `@leasehold/msw/dispatcher`: an undici `Dispatcher` over the Leasehold reference server, for
 * code that sends through undici (the client's default transport), which MSW does not see.
 */
export { LeaseholdDispatcher, LeaseholdDispatcherError, type LeaseholdDispatcherOptions } from './dispatcher/leasehold-dispatcher.js';
export { createLeaseholdMockServer, type LeaseholdMockServerOptions } from './mock-server.js';
export { LeaseholdScenario, leaseholdScenario } from './scenario.js';
