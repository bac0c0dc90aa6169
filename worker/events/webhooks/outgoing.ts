import type { JobHandler, Processor } from "../consumer";

// Placeholder while outgoing webhooks are being built in this change.
export const webhookProcessors: Processor<any>[] = [];
export const webhookJobs: Record<string, JobHandler> = {};
