import { Hono } from "hono";
import type { AppEnv } from "#worker/platform/http";
import { readJson } from "#worker/platform/validation";
import { createRedirectSession } from "../redirects";

/** Redirect sessions: /v1/redirect-session and the SDK's /_api/redirects-api/v1/redirect-session. */
export const redirectsRoutes = new Hono<AppEnv>().post("/redirect-session", async (c) =>
  c.json(await createRedirectSession(c.get("ctx"), await readJson(c), c.req.header("authorization"), c.req.header("origin"))),
);
