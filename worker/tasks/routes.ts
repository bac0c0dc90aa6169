import { Hono } from "hono";
import { z } from "zod";
import { pathId, type AppEnv } from "#worker/platform/http";
import { parseWith } from "#worker/platform/validation";
import { completeTask, listTasks } from "./tasks";

/**
 * Merchant tasks at /api/v1 (merchant only):
 *
 *   GET  /api/v1/tasks?status=OPEN|DONE&kind=&limit=&offset=  → {tasks:[…], metadata:{count, offset, total}}
 *   POST /api/v1/tasks/{id}/complete                          → {task}
 */
export const taskRoutes = new Hono<AppEnv>();

const listQuery = z.object({
  status: z.enum(["OPEN", "DONE"]).optional(),
  kind: z.string().trim().min(1).max(50).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

taskRoutes.get("/tasks", async (c) => c.json(await listTasks(c.get("ctx"), parseWith(listQuery, c.req.query()))));
taskRoutes.post("/tasks/:id/complete", async (c) => c.json(await completeTask(c.get("ctx"), pathId(c))));
