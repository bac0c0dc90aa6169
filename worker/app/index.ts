/** The composition root: the API host, the queue's registry, the sweep list and the sweeper, for the Worker entry. */
export { apiHost, decodablePath, isApiPath, type PageHandler } from "./host";
export { eventRegistry, jobs, payloadSchemas, processors } from "./registry";
export { runSweeps, type SweepOptions } from "./sweeps";
export { armSweeper, Sweeper, SWEEP_INTERVAL_MS } from "./sweeper";
