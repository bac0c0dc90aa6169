import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getOwnIdentity, updateOwnProfile } from "#worker/identity/members";
import type { Auth, Ctx } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { activeMember, identityRow } from "./member-fixtures";

/** The member's own profile, as the account pages change it (updateOwnProfile / getOwnIdentity). */

function ctxAs(auth: Auth): Ctx {
  return { db: openDb(env.DB), env, auth, currency: "USD", origin: "https://shop.test", waitUntil: () => {} };
}

const asMember = (identityId: string) =>
  ctxAs({ kind: "member", identityId, visitorId: crypto.randomUUID(), clientId: "test-client-id", role: "MEMBER" });

async function refusal(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected the call to be refused");
}

describe("a member's own profile", () => {
  it("changes names, phone and addresses, keeping the login email and other profile fields", async () => {
    const m = await activeMember();
    const ctx = asMember(m.id);
    await env.DB.prepare("UPDATE identities SET profile = json_set(profile, '$.company', 'Acme') WHERE id = ?").bind(m.id).run();

    const { identity } = await updateOwnProfile(ctx, {
      firstName: "Ada",
      lastName: "Lovelace",
      phones: [{ phone: "+44 20 7946 0000", tag: "MAIN" }],
      addresses: [{ address: { addressLine1: "12 Analytical Row", city: "London", postalCode: "N1 9GU", country: "gb" }, tag: "SHIPPING" }],
    });
    expect(identity.identityProfile).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      company: "Acme",
      phones: [{ phone: "+44 20 7946 0000", tag: "MAIN" }],
      addresses: [{ address: { addressLine: "12 Analytical Row", city: "London", postalCode: "N1 9GU", country: "GB" }, tag: "SHIPPING" }],
    });
    expect(identity.email.address).toBe(m.email);
    expect((await getOwnIdentity(ctx)).identity.identityProfile).toEqual(identity.identityProfile);

    // A field given as null or empty is cleared; fields not given stay; the email cannot be changed this way.
    const cleared = await updateOwnProfile(ctx, { lastName: null, addresses: [], email: "other@example.test", company: "Evil Corp" });
    expect(cleared.identity.identityProfile).toMatchObject({ firstName: "Ada", company: "Acme", addresses: [] });
    expect(cleared.identity.identityProfile).not.toHaveProperty("lastName");
    const row = await identityRow(m.email);
    expect(row!.email).toBe(m.email.toLowerCase());
    expect(JSON.parse(row!.profile).company).toBe("Acme");
  });

  it("refuses bad input with field violations and changes nothing", async () => {
    const m = await activeMember();
    const ctx = asMember(m.id);
    await updateOwnProfile(ctx, { firstName: "Grace" });
    const before = await identityRow(m.email);
    const err = await refusal(() =>
      updateOwnProfile(ctx, { firstName: "x".repeat(101), addresses: [{ address: { country: "Narnia" }, tag: "HOME" }] }),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe("INVALID_ARGUMENT");
    expect(err.fieldViolations!.map((v) => v.field)).toEqual(["profile.addresses[0].address.country", "profile.firstName"]);
    expect(await identityRow(m.email)).toEqual(before);
  });

  it("is only for the member themselves", async () => {
    expect((await refusal(() => updateOwnProfile(ctxAs({ kind: "anonymous" }), { firstName: "A" }))).status).toBe(401);
    expect(
      (await refusal(() => updateOwnProfile(ctxAs({ kind: "visitor", visitorId: crypto.randomUUID(), clientId: "c" }), { firstName: "A" }))).status,
    ).toBe(403);
    expect((await refusal(() => getOwnIdentity(ctxAs({ kind: "apiKey", keyId: "k", role: "OWNER" })))).status).toBe(403);
    // A deleted member's token no longer reaches a profile.
    const m = await activeMember();
    await env.DB.prepare("UPDATE identities SET status = 'DELETED' WHERE id = ?").bind(m.id).run();
    expect((await refusal(() => updateOwnProfile(asMember(m.id), { firstName: "A" }))).code).toBe("MEMBER_NOT_FOUND");
  });
});
