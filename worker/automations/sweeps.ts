import type { Db } from "../platform/db";

// Placeholder while the automations are being built in this change (abandoned-cart detection, due recovery emails).
export async function runAutomationSweeps(_env: Env, _db: Db, _now: Date, _waitUntil: (p: Promise<unknown>) => void): Promise<Record<string, number>> {
  return {};
}
