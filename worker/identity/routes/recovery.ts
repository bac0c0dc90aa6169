import { Hono } from "hono";
import { requirePermission } from "#worker/platform/context";
import type { AppEnv } from "#worker/platform/http";
import { clientAddress } from "#worker/platform/rate-limit";
import { readJson } from "#worker/platform/validation";
import { recover, sendActivationEmail, sendRecoveryEmail } from "../members";
import { activationEmailRequest, parseIdentity, recoverRequest, sendRecoveryEmailRequest } from "../schemas";

/** Recovery (mounted at `/v1` and `/_api/iam/recovery/v1`): recovery and activation emails, and setting the new password. */
export const recoveryRoutes = new Hono<AppEnv>()
  .post("/send-email", async (c) => {
    const req = parseIdentity(sendRecoveryEmailRequest, await readJson(c));
    return c.json(await sendRecoveryEmail(c.get("ctx"), req, { ip: clientAddress(c.req.raw.headers) }));
  })
  .post("/activation-email", async (c) => {
    // The caller is checked before the body: a refused call gets 401/403, not a validation error.
    requirePermission(c.get("ctx"), "settings.manage");
    const req = parseIdentity(activationEmailRequest, await readJson(c));
    return c.json(await sendActivationEmail(c.get("ctx"), req));
  })
  .post("/recover", async (c) => {
    const req = parseIdentity(recoverRequest, await readJson(c));
    const { redirectUrl: _internal, ...result } = await recover(c.get("ctx"), req);
    return c.json(result);
  });
