import { Hono } from "hono";
import { z } from "zod";
import { pathId, type AppEnv } from "#worker/platform/http";
import { parseWith } from "#worker/platform/validation";
import { runSweeps } from "./sweeps";
import { requirePermission } from "#worker/platform/context";
import { listFailures, replayAllFailures, replayFailure } from "#worker/events";
import { INCOMING_EVENT_TYPES } from "#worker/webhooks";

/**
 * Merchant calls at /api/v1 for the event pipeline (the console shows and replays failures through them):
 *
 *   GET  /api/v1/events/failures?state=DEAD|RETRYING|REPLAYED&type=&limit=&offset=  → {failures:[…], metadata:{count, offset, total}}
 *   POST /api/v1/events/failures/{id}/replay                                  → {failure}   (409 unless DEAD)
 *   POST /api/v1/events/failures/replay-all?type=                             → {replayed, remaining} (of that type, if given)
 *   POST /api/v1/events/sweep                                                 → what the sweeps did
 *        (runs the cron sweeps now: outbox re-flush, abandoned-cart detection, due recovery emails, expiries)
 */
export const eventRoutes = new Hono<AppEnv>();

const listQuery = z.object({
  state: z.enum(["RETRYING", "DEAD", "REPLAYED"]).optional(),
  type: z.string().trim().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

eventRoutes.get("/events/failures", async (c) => c.json(await listFailures(c.get("ctx"), parseWith(listQuery, c.req.query()))));
const replayAllQuery = z.object({ type: z.string().trim().min(1).max(200).optional() });
eventRoutes.post("/events/failures/replay-all", async (c) =>
  c.json(await replayAllFailures(c.get("ctx"), INCOMING_EVENT_TYPES, 100, parseWith(replayAllQuery, c.req.query()))),
);
eventRoutes.post("/events/failures/:id/replay", async (c) => c.json(await replayFailure(c.get("ctx"), INCOMING_EVENT_TYPES, pathId(c))));

eventRoutes.post("/events/sweep", async (c) => {
  const ctx = c.get("ctx");
  requirePermission(ctx, "automations.manage");
  return c.json(await runSweeps(ctx.env, { waitUntil: ctx.waitUntil }));
});
