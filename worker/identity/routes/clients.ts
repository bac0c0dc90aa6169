import { Hono } from "hono";
import { requireOwner, requirePermission } from "#worker/platform/context";
import { pathId, type AppEnv } from "#worker/platform/http";
import { readBody, readJson } from "#worker/platform/validation";
import { createOAuthClient, listOAuthClients, updateClientRequest, updateOAuthClient } from "../clients";

/**
 * OAuth clients at /api/v1/oauth-clients (merchant extensions): any merchant lists them, the owner registers one
 * for a headless site, and settings.manage sets a server client's visitor-token budget. Each write checks its
 * permission before the body is read.
 */
export const clientRoutes = new Hono<AppEnv>()
  .get("/oauth-clients", async (c) => c.json({ clients: await listOAuthClients(c.get("ctx")) }))
  .post("/oauth-clients", async (c) => {
    requireOwner(c.get("ctx"));
    const body = await readJson(c);
    const client = body && typeof body === "object" && "client" in body ? (body as { client: { name: string } }).client : { name: "" };
    return c.json({ client: await createOAuthClient(c.get("ctx"), client) });
  })
  .patch("/oauth-clients/:id", async (c) => {
    requirePermission(c.get("ctx"), "settings.manage");
    return c.json({ client: await updateOAuthClient(c.get("ctx"), pathId(c), await readBody(c, updateClientRequest)) });
  });
