import { Hono } from "hono";
import { z } from "zod";
import { ApiError } from "#worker/platform/errors";
import { pathId, type AppContext, type AppEnv } from "#worker/platform/http";
import { clientAddress } from "#worker/platform/rate-limit";
import { parseWith, readJson } from "#worker/platform/validation";
import {
  approveMember,
  blockMember,
  changePassword,
  getMember,
  listMembers,
  login,
  register,
  signOn,
  signOutEverywhere,
  unblockMember,
  verifyCode,
} from "../members";
import {
  changePasswordRequest,
  emailSchema,
  factorVerifyRequest,
  identitySettingsRequest,
  loginRequest,
  parseIdentity,
  registerRequest,
  signOnRequest,
  withoutValidationShape,
} from "../schemas";
import { accessTokenOf } from "../api-keys";
import { readIdentitySettings, updateIdentitySettings } from "../settings";

/**
 * Authentication (mounted at `/` and `/_api/iam/authentication`): register, login, change-password, sign-on and the
 * factor verify call, plus the owner's member approval and identity settings (merchant extensions under /api/v1).
 */

const client = (c: AppContext) => ({ ip: clientAddress(c.req.raw.headers) });

const membersQuery = z.object({
  status: z.enum(["PENDING", "ACTIVE", "DELETED", "BLOCKED", "OFFLINE"]).optional(),
  /** Part of the email, first or last name. */
  q: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

export const authenticationRoutes = new Hono<AppEnv>()
  .post("/v2/register", async (c) => {
    const req = parseIdentity(registerRequest, await readJson(c));
    return c.json(await register(c.get("ctx"), req, client(c)));
  })
  .post("/v2/login", async (c) => {
    try {
      const req = parseIdentity(loginRequest, await readJson(c));
      return c.json(await login(c.get("ctx"), req, client(c)));
    } catch (err) {
      throw withoutValidationShape(err);
    }
  })
  .post("/v2/change-password", async (c) => {
    const req = parseIdentity(changePasswordRequest, await readJson(c));
    return c.json(await changePassword(c.get("ctx"), req, { accessToken: accessTokenOf(c.req.header("authorization")) }));
  })
  .post("/v2/sign-on", async (c) => {
    const req = parseIdentity(signOnRequest, await readJson(c));
    return c.json(await signOn(c.get("ctx"), req));
  })
  .post("/v2/validate-email", async (c) => {
    // The SDK's validateEmail: format only (whether an account exists is never revealed here).
    const body = (await readJson(c)) as { email?: unknown };
    const ok = emailSchema.safeParse(body?.email).success;
    return c.json(ok ? { valid: true, formatInvalid: false } : { valid: false, formatInvalid: true });
  })
  .post("/v2/:factorType/verify", async (c) => {
    const factorType = c.req.param("factorType").toUpperCase();
    if (factorType !== "EMAIL") {
      throw new ApiError(400, "UNSUPPORTED_FACTOR", `Factor type ${factorType} is not supported; this store verifies by email code`, {
        data: { factorType },
        message: "Unsupported factor",
      });
    }
    const req = parseIdentity(factorVerifyRequest, await readJson(c));
    return c.json(await verifyCode(c.get("ctx"), req, client(c)));
  })
  // Merchant extensions: the owner approves, blocks and unblocks members, and sets the sign-up rules.
  .get("/api/v1/members", async (c) => {
    const q = parseWith(membersQuery, c.req.query());
    return c.json(await listMembers(c.get("ctx"), q));
  })
  .get("/api/v1/members/:id", async (c) => c.json(await getMember(c.get("ctx"), pathId(c))))
  .post("/api/v1/members/:id/approve", async (c) => c.json(await approveMember(c.get("ctx"), pathId(c))))
  .post("/api/v1/members/:id/block", async (c) => c.json(await blockMember(c.get("ctx"), pathId(c))))
  .post("/api/v1/members/:id/unblock", async (c) => c.json(await unblockMember(c.get("ctx"), pathId(c))))
  // The calling member ends their sessions on every other device (their own session goes on).
  .post("/api/v1/members/me/sign-out-everywhere", async (c) =>
    c.json(await signOutEverywhere(c.get("ctx"), { accessToken: accessTokenOf(c.req.header("authorization")) })),
  )
  .get("/api/v1/identity-settings", async (c) => c.json(await readIdentitySettings(c.get("ctx"))))
  .patch("/api/v1/identity-settings", async (c) => {
    const req = parseWith(identitySettingsRequest, await readJson(c));
    return c.json(await updateIdentitySettings(c.get("ctx"), req.settings));
  });
