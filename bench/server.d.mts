/** Types for bench/server.mjs (used by tests/node/hostile.test.ts). */
export function startServer(opts?: {
  build?: boolean;
  state?: string;
  vars?: Record<string, string>;
}): Promise<{ base: string; stop: () => void; ownerKey: string; clientId: string; state: string }>;
export function roundTrips(res: Response): string;
export function usage(res: Response): {
  d1Trips: number;
  d1RowsRead: number;
  d1RowsWritten: number;
  kvReads: number;
  kvWrites: number;
  queueMessages: number;
};
