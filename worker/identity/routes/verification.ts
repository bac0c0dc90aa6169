import { Hono } from "hono";
import type { AppContext, AppEnv } from "#worker/platform/http";
import { clientAddress } from "#worker/platform/rate-limit";
import { readJson } from "#worker/platform/validation";
import { resendCode, startVerification, verifyCode } from "../members";
import { parseIdentity, resendRequest, startVerificationRequest, verifyCodeRequest } from "../schemas";

/**
 * Verification (mounted at `/v1` and `/_api/iam/verification/v1`): start an email verification (`/Start` as the Wix
 * REST API names it, `/start` as the SDK sends it), check a code during authentication, and resend it.
 */
const start = async (c: AppContext) => {
  const req = parseIdentity(startVerificationRequest, await readJson(c));
  return c.json(await startVerification(c.get("ctx"), req));
};

export const verificationRoutes = new Hono<AppEnv>()
  .post("/Start", start)
  .post("/start", start)
  .post("/auth/verify", async (c) => {
    const req = parseIdentity(verifyCodeRequest, await readJson(c));
    return c.json(await verifyCode(c.get("ctx"), req, { ip: clientAddress(c.req.raw.headers) }));
  })
  .post("/auth/resend", async (c) => {
    const req = parseIdentity(resendRequest, await readJson(c));
    return c.json(await resendCode(c.get("ctx"), req));
  });
