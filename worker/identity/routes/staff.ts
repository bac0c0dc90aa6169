import { Hono, type MiddlewareHandler } from "hono";
import { requireOwner } from "#worker/platform/context";
import { pathId, type AppEnv } from "#worker/platform/http";
import { readBody } from "#worker/platform/validation";
import { ensureDemoShopper, ensureOwner } from "../owner";
import {
  blockStaff,
  createApiKey,
  createApiKeyRequest,
  inviteStaff,
  inviteStaffRequest,
  listApiKeys,
  listStaff,
  resendActivation,
  revokeApiKey,
  unblockStaff,
  updateApiKeyPermissions,
  updateApiKeyRequest,
  updateStaffPermissions,
  updateStaffRequest,
} from "../staff";

/**
 * Merchant extensions at /api/v1 (not Wix calls): the owner's account, staff and API keys. Managing staff and keys
 * is the owner's (an OWNER key or the owner's token), checked before the body is read; any merchant may list them.
 */
export const staffRoutes = new Hono<AppEnv>();

/** The one guard of the owner's calls: only the owner gets past it, and before the body is read. */
const ownerOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireOwner(c.get("ctx"));
  await next();
};

// Creates the owner's account from OWNER_EMAIL / OWNER_PASSWORD if it does not exist yet (`npm start` calls it).
staffRoutes.post("/bootstrap", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ owner: await ensureOwner(ctx), demoShopper: await ensureDemoShopper(ctx) });
});

staffRoutes.post("/staff", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ staffMember: await inviteStaff(ctx, await readBody(c, inviteStaffRequest)) });
});

staffRoutes.get("/staff", async (c) => c.json({ staff: await listStaff(c.get("ctx")) }));

staffRoutes.post("/staff/:id/activation-email", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ staffMember: await resendActivation(ctx, pathId(c)) });
});

staffRoutes.patch("/staff/:id", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ staffMember: await updateStaffPermissions(ctx, pathId(c), await readBody(c, updateStaffRequest)) });
});

staffRoutes.delete("/staff/:id", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ staffMember: await blockStaff(ctx, pathId(c)) });
});
// Lets a removed staff member back in (ACTIVE, or PENDING when they never set a password).
staffRoutes.post("/staff/:id/unblock", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ staffMember: await unblockStaff(ctx, pathId(c)) });
});

staffRoutes.post("/api-keys", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json(await createApiKey(ctx, await readBody(c, createApiKeyRequest)));
});

staffRoutes.get("/api-keys", async (c) => c.json({ apiKeys: await listApiKeys(c.get("ctx")) }));

// Sets a STAFF key's permissions.
staffRoutes.patch("/api-keys/:id", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ apiKey: await updateApiKeyPermissions(ctx, pathId(c), await readBody(c, updateApiKeyRequest)) });
});

staffRoutes.delete("/api-keys/:id", ownerOnly, async (c) => {
  const ctx = c.get("ctx");
  return c.json({ apiKey: await revokeApiKey(ctx, pathId(c)) });
});
