import { env, SELF } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Processor } from "#worker/events/consumer";
import type { EventEnvelope } from "#worker/events/outbox";
import { payloadSchemas, processors } from "#worker/app/registry";
import { INCOMING_EVENT_TYPES, type IncomingEventType } from "#worker/webhooks/event-types";
import { importPublicKey, JWT_CLOCK_SKEW_SECONDS, signJwt, verifyJwt } from "#worker/webhooks/signing";
import { wixClaims as outgoingWixClaims } from "#worker/webhooks/wix-format";
import { issueTokens } from "#worker/identity/tokens";
import type { Permission } from "#worker/platform/context";
import { api, merchant, unique } from "../helpers";
import { stockOf, trackedProduct } from "../orders/inventory-fixtures";
import { waitFor } from "../wait";

/**
 * Incoming webhooks at /webhooks/{source}: verified before anything is stored (Standard Webhooks HMAC or the Wix
 * RS256 JWT), validated, stored with the outbox row in one batch, and handed to processors by the real queue.
 * Signatures are made with the `standardwebhooks` package and WebCrypto here, independently of the server's code.
 */

// A test-only event type with a payload schema (numbers coerced) and a processor, like part B's inventory.updated.
const TYPE = `test.stock.updated.${unique()}`;
const received: { event: EventEnvelope; data: any }[] = [];
const schema = z.object({ items: z.array(z.object({ productId: z.string().min(1), setQuantity: z.coerce.number().int().min(0) })).min(1) });
const processor: Processor<z.output<typeof schema>> = {
  name: `test-incoming-${TYPE}`,
  types: [TYPE],
  async run(event, data) {
    received.push({ event, data });
  },
};
// Taken from outside like inventory.updated, but needing no permission beyond automations.manage.
const incoming: IncomingEventType = { type: TYPE, label: "Test stock counts", permission: null };
beforeAll(() => {
  processors.push(processor);
  payloadSchemas[TYPE] = schema;
  INCOMING_EVENT_TYPES.push(incoming);
  return () => {
    processors.splice(processors.indexOf(processor), 1);
    delete payloadSchemas[TYPE];
    INCOMING_EVENT_TYPES.splice(INCOMING_EVENT_TYPES.indexOf(incoming), 1);
  };
});

const validBody = (items: unknown = [{ productId: "p-1", setQuantity: "7" }]) =>
  JSON.stringify({ type: TYPE, timestamp: new Date().toISOString(), data: { items } });

async function createSource(body: Record<string, unknown> = {}) {
  const res = await merchant("POST", "/api/v1/webhook-sources", { name: `erp-${unique()}`, eventTypes: [TYPE], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { source: { id: string; name: string; url: string; keys: { id: string }[] }; secret?: string };
}

/** Standard Webhooks headers signed by the reference implementation. */
function signed(secret: string, body: string, opts: { id?: string; at?: Date } = {}) {
  const id = opts.id ?? `msg_${unique()}${unique()}`;
  const at = opts.at ?? new Date();
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

const post = (source: string, body: string | ReadableStream, headers: Record<string, string> = {}) =>
  SELF.fetch(`https://shop.test/webhooks/${source}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);

/** The webhooks taken (ACCEPTED or UNHANDLED); repeats and refusals are only logged (see `logged`). */
async function stored(sourceId: string) {
  const { results } = await env.DB.prepare(
    "SELECT * FROM webhook_events WHERE source_id = ? AND status IN ('ACCEPTED', 'UNHANDLED') ORDER BY received_date",
  )
    .bind(sourceId)
    .all<Record<string, any>>();
  return results;
}
/** The log rows of repeats and refused requests: an outcome and a reason, never a body. */
async function logged(sourceId: string) {
  const { results } = await env.DB.prepare(
    "SELECT status, reason, data FROM webhook_events WHERE source_id = ? AND status IN ('DUPLICATE', 'REFUSED') ORDER BY received_date",
  )
    .bind(sourceId)
    .all<Record<string, any>>();
  return results;
}
const outboxFor = async (sourceName: string) =>
  (await env.DB.prepare("SELECT * FROM outbox WHERE actor_type = 'APP' AND actor_id = ?").bind(sourceName).all<Record<string, any>>()).results;

/** Nothing was stored for the source: no webhook record and no outbox row. */
async function expectNothingStored(source: { id: string; name: string }) {
  expect(await stored(source.id)).toEqual([]);
  expect(await outboxFor(source.name)).toEqual([]);
}

afterEach(() => {
  received.length = 0;
});

describe("incoming webhook sources (merchant API)", () => {
  it("shows a generated secret once, lists the source without it, and is merchant only", async () => {
    const { source, secret } = await createSource({ description: "warehouse" });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(source.url).toBe(`https://shop.test/webhooks/${source.name}`);
    const got = await merchant("GET", `/api/v1/webhook-sources/${source.id}`);
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toContain(secret!.slice(6));
    expect(got.body.source).toMatchObject({
      id: source.id,
      name: source.name,
      format: "standard",
      description: "warehouse",
      keys: [{ id: source.keys[0].id }],
    });
    const list = await merchant("GET", "/api/v1/webhook-sources");
    expect(list.body.sources.map((s: { id: string }) => s.id)).toContain(source.id);
    expect(JSON.stringify(list.body)).not.toContain(secret!.slice(6));

    expect((await api("GET", "/api/v1/webhook-sources")).status).toBe(401);
    expect((await api("POST", "/api/v1/webhook-sources", { body: { name: `x-${unique()}` } })).status).toBe(401);
  });

  it("refuses a bad name, a taken name, a malformed secret and a wix source without a key, creating nothing", async () => {
    const { source } = await createSource();
    const before = (await merchant("GET", "/api/v1/webhook-sources")).body.sources.length;
    const taken = await merchant("POST", "/api/v1/webhook-sources", { name: source.name });
    expect(taken.status).toBe(409);
    expect(taken.body.details.applicationError.code).toBe("WEBHOOK_SOURCE_NAME_TAKEN");
    const badName = await merchant("POST", "/api/v1/webhook-sources", { name: "Not A Path!" });
    expect(badName.status).toBe(400);
    expect(badName.body.details.validationError.fieldViolations[0].field).toBe("name");
    const badSecret = await merchant("POST", "/api/v1/webhook-sources", { name: `s-${unique()}`, secret: "hunter2" });
    expect(badSecret.status).toBe(400);
    expect(badSecret.body.details.validationError.fieldViolations[0].field).toBe("secret");
    const noKey = await merchant("POST", "/api/v1/webhook-sources", { name: `w-${unique()}`, format: "wix" });
    expect(noKey.status).toBe(400);
    expect(noKey.body.details.validationError.fieldViolations[0].field).toBe("publicKey");
    expect((await merchant("GET", "/api/v1/webhook-sources")).body.sources.length).toBe(before);
  });
});

describe("Standard Webhooks source", () => {
  it("accepts a signed event: stored with its outbox row, answered 200, processed once with its schema applied", async () => {
    const { source, secret } = await createSource();
    const body = validBody();
    const res = await post(source.name, body, signed(secret!, body, { id: "msg_first" }));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: string; status: string };
    expect(answer.status).toBe("ACCEPTED");

    const [record] = await stored(source.id);
    expect(record).toMatchObject({ id: answer.id, webhook_id: "msg_first", type: TYPE, status: "ACCEPTED" });
    const [row] = await outboxFor(source.name);
    expect(row).toMatchObject({ id: answer.id, type: TYPE, actor_type: "APP", actor_id: source.name });
    expect(JSON.parse(row.data)).toEqual({ items: [{ productId: "p-1", setQuantity: "7" }] });

    // The real queue hands it to the processor, with the payload schema applied (the string "7" became 7).
    const got = await waitFor(() => received.find((r) => r.event.id === answer.id), "the processor");
    expect(got.event).toMatchObject({ id: answer.id, type: TYPE, actor: { type: "APP", id: source.name } });
    expect(got.data).toEqual({ items: [{ productId: "p-1", setQuantity: 7 }] });
  });

  it("acknowledges a repeated webhook-id without processing it again", async () => {
    const { source, secret } = await createSource();
    const body = validBody();
    const headers = signed(secret!, body, { id: "msg_repeat" });
    const first = (await (await post(source.name, body, headers)).json()) as { id: string; status: string };
    await waitFor(() => received.find((r) => r.event.id === first.id), "the first delivery");
    // The sender retries (same id, fresh signature) and replays the very same request.
    const retry = await post(source.name, body, signed(secret!, body, { id: "msg_repeat" }));
    const replay = await post(source.name, body, headers);
    for (const res of [retry, replay]) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id: first.id, status: "DUPLICATE" });
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(received.filter((r) => r.event.type === TYPE)).toHaveLength(1);
    expect(await stored(source.id)).toHaveLength(1);
    expect(await outboxFor(source.name)).toHaveLength(1);
    // Each repeat is logged for the merchant, with the sender's id and no body.
    const repeats = await logged(source.id);
    expect(repeats.map((r) => r.status)).toEqual(["DUPLICATE", "DUPLICATE"]);
    expect(repeats.map((r) => JSON.parse(r.data))).toEqual([{ webhookId: "msg_repeat" }, { webhookId: "msg_repeat" }]);
  });

  it("refuses a bad, missing, stale or future signature with 401 and stores nothing", async () => {
    const { source, secret } = await createSource();
    const other = new Webhook(`whsec_${btoa("another secret of thirty-two byte")}`);
    const body = validBody();
    const cases: Record<string, string>[] = [
      // Signed with another secret.
      {
        "webhook-id": "msg_a",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": other.sign("msg_a", new Date(), body),
      },
      // No signature header at all.
      { "webhook-id": "msg_b", "webhook-timestamp": String(Math.floor(Date.now() / 1000)) },
      // Right secret, but over another body.
      signed(secret!, validBody([{ productId: "p-2", setQuantity: 1 }]), { id: "msg_c" }),
      // Right secret, six minutes old or six minutes ahead.
      signed(secret!, body, { id: "msg_d", at: new Date(Date.now() - 6 * 60_000) }),
      signed(secret!, body, { id: "msg_e", at: new Date(Date.now() + 6 * 60_000) }),
      // A signature of the wrong version.
      {
        ...signed(secret!, body, { id: "msg_f" }),
        "webhook-signature": signed(secret!, body, { id: "msg_f" })["webhook-signature"].replace("v1,", "v1a,"),
      },
    ];
    for (const headers of cases) {
      const res = await post(source.name, body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(((await res.json()) as any).details.applicationError.code).toBe("WEBHOOK_SIGNATURE_INVALID");
    }
    // Within the five minutes it is fine.
    expect((await post(source.name, body, signed(secret!, body, { at: new Date(Date.now() - 4 * 60_000) }))).status).toBe(200);
    expect(await stored(source.id)).toHaveLength(1);
    // Each refusal is logged with its reason and the id the sender claimed, never the unverified body.
    const refusals = await logged(source.id);
    expect(refusals.map((r) => r.status)).toEqual(Array(cases.length).fill("REFUSED"));
    expect(refusals[0].reason).toBe("401 webhook-signature does not match any of the source's secrets");
    expect(refusals[3].reason).toBe("401 webhook-timestamp is not within 5 minutes of now");
    expect(refusals.map((r) => JSON.parse(r.data))).toEqual(cases.map((c) => ({ webhookId: c["webhook-id"] })));
  });

  it("rotates with an overlap: the old key verifies until its expiry, then is refused; without overlap it stops at once", async () => {
    const { source, secret: oldSecret } = await createSource();
    const body = validBody();
    const rotated = await merchant("POST", `/api/v1/webhook-sources/${source.id}/rotate`, { overlapMinutes: 60 });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const [old, fresh] = rotated.body.source.keys;
    expect(Date.parse(old.expiresDate) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(fresh).toMatchObject({ id: rotated.body.keyId, expiresDate: null });
    expect(JSON.stringify(rotated.body.source)).not.toContain(oldSecret);
    expect((await post(source.name, body, signed(oldSecret!, body))).status).toBe(200);
    expect((await post(source.name, body, signed(rotated.body.secret, body))).status).toBe(200);
    // Again with no overlap: the previous key (and the first, whose hour is not over) stop now; expired keys are dropped.
    const again = await merchant("POST", `/api/v1/webhook-sources/${source.id}/rotate`, { overlapMinutes: 0 });
    expect(again.status).toBe(200);
    expect((await post(source.name, body, signed(rotated.body.secret, body))).status).toBe(401);
    expect((await post(source.name, body, signed(oldSecret!, body))).status).toBe(401);
    expect((await post(source.name, body, signed(again.body.secret, body))).status).toBe(200);
    const third = await merchant("POST", `/api/v1/webhook-sources/${source.id}/rotate`, {});
    expect(third.body.source.keys.map((k: { id: string }) => k.id)).toEqual([again.body.keyId, third.body.keyId]);
    expect((await merchant("POST", `/api/v1/webhook-sources/${source.id}/rotate`, { overlapMinutes: -1 })).status).toBe(400);
  });

  it("verifies with either key during a rotation, and only the new one after the old is removed", async () => {
    const { source, secret: oldSecret } = await createSource();
    const added = await merchant("POST", `/api/v1/webhook-sources/${source.id}/keys`, {});
    expect(added.status).toBe(200);
    const newSecret = added.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(added.body.source.keys).toHaveLength(2);

    const body = validBody();
    // The sender signs with both while switching over (two signatures in one header), then with the new one alone.
    const both = signed(oldSecret!, body, { id: "msg_both" });
    both["webhook-signature"] =
      `${new Webhook(newSecret).sign("msg_both", new Date(Number(both["webhook-timestamp"]) * 1000), body)} ${both["webhook-signature"]}`;
    expect((await post(source.name, body, both)).status).toBe(200);
    expect((await post(source.name, body, signed(newSecret, body))).status).toBe(200);
    expect((await post(source.name, body, signed(oldSecret!, body))).status).toBe(200);

    const oldKeyId = source.keys[0].id;
    const removed = await merchant("DELETE", `/api/v1/webhook-sources/${source.id}/keys/${oldKeyId}`);
    expect(removed.status).toBe(200);
    expect(removed.body.source.keys.map((k: { id: string }) => k.id)).toEqual([added.body.keyId]);
    expect((await post(source.name, body, signed(oldSecret!, body))).status).toBe(401);
    expect((await post(source.name, body, signed(newSecret, body))).status).toBe(200);
    // The last key cannot be removed.
    const last = await merchant("DELETE", `/api/v1/webhook-sources/${source.id}/keys/${added.body.keyId}`);
    expect(last.status).toBe(409);
    expect(await stored(source.id)).toHaveLength(4);
  });

  it("refuses malformed envelopes and payloads with 400 and field violations, storing nothing", async () => {
    const { source, secret } = await createSource();
    const cases: [string, string[]][] = [
      ["{not json", ["body"]],
      [JSON.stringify({ timestamp: new Date().toISOString(), data: {} }), ["type"]],
      [JSON.stringify({ type: TYPE, timestamp: "yesterday", data: {} }), ["timestamp"]],
      [JSON.stringify({ type: TYPE, timestamp: new Date().toISOString(), data: [1, 2] }), ["data"]],
      [
        JSON.stringify({ type: TYPE, timestamp: new Date().toISOString(), data: { items: [{ productId: "p", setQuantity: 1 }] }, extra: 1 }),
        ["extra"],
      ],
      [validBody([{ productId: "", setQuantity: -1 }]), ["data.items[0].productId", "data.items[0].setQuantity"]],
      [validBody([]), ["data.items"]],
    ];
    for (const [body, fields] of cases) {
      const res = await post(source.name, body, signed(secret!, body));
      expect(res.status, body).toBe(400);
      const err = (await res.json()) as any;
      expect(err.details.validationError.fieldViolations.map((v: { field: string }) => v.field)).toEqual(fields);
    }
    await expectNothingStored(source);
  });

  it("answers 413 to a body over the queue's 128 KB limit, declared or streamed, and stores nothing", async () => {
    const { source, secret } = await createSource();
    const body = validBody([{ productId: "p".repeat(130_000), setQuantity: 1 }]);
    const declared = await post(source.name, body, signed(secret!, body));
    expect(declared.status).toBe(413);
    // Streamed in chunks without a length: refused once 128 KB have arrived. Nothing past the limit is kept; the rest
    // is read and thrown away (worker/platform/body.ts) so the sender gets its 413 on a connection that stays usable.
    const chunk = new TextEncoder().encode("x".repeat(16_384));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 40) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const streamed = await post(source.name, stream, signed(secret!, body));
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as any).details.applicationError.code).toBe("PAYLOAD_TOO_LARGE");
    await expectNothingStored(source);
  });

  it("refuses an event of an unknown type with 403 and stores nothing (only allowed types are taken)", async () => {
    const { source, secret } = await createSource();
    const body = JSON.stringify({ type: "com.example.unknown", timestamp: new Date().toISOString(), data: { anything: true } });
    const res = await post(source.name, body, signed(secret!, body, { id: "msg_unknown" }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).details.applicationError).toMatchObject({
      code: "WEBHOOK_EVENT_TYPE_NOT_ALLOWED",
      data: { type: "com.example.unknown", allowed: [TYPE] },
    });
    await expectNothingStored(source);
    // The merchant sees the refusal, with the type it claimed and why.
    const listed = await merchant("GET", `/api/v1/webhook-sources/${source.id}/events?status=REFUSED`);
    expect(listed.body.events).toMatchObject([{ type: "com.example.unknown", status: "REFUSED", webhookId: "msg_unknown" }]);
    expect(listed.body.events[0].reason).toBe(`403 This source may not send com.example.unknown: it may send ${TYPE}`);
  });

  it("does not echo an incoming event to outgoing subscriptions of its type", async () => {
    const sub = await merchant("POST", "/api/v1/webhook-subscriptions", { url: "http://127.0.0.1:9/echo", eventTypes: [TYPE] });
    try {
      const { source, secret } = await createSource();
      const body = validBody();
      const { id } = (await (await post(source.name, body, signed(secret!, body))).json()) as { id: string };
      await waitFor(() => received.find((r) => r.event.id === id), "the processor");
      await waitFor(
        async () =>
          (await env.DB.prepare("SELECT 1 FROM processed_events WHERE event_id = ? AND processor = 'webhooks:outgoing'").bind(id).first()) !== null,
        "the outgoing processor",
      );
      expect((await merchant("GET", `/api/v1/webhook-subscriptions/${sub.body.subscription.id}/deliveries`)).body.deliveries).toEqual([]);
    } finally {
      await merchant("DELETE", `/api/v1/webhook-subscriptions/${sub.body.subscription.id}`);
    }
  });

  it("follows a rename and stops answering once the source is deleted", async () => {
    const { source, secret } = await createSource();
    const renamed = await merchant("PATCH", `/api/v1/webhook-sources/${source.id}`, { name: `${source.name}-2` });
    expect(renamed.body.source).toMatchObject({ name: `${source.name}-2`, url: `https://shop.test/webhooks/${source.name}-2` });
    const body = validBody();
    expect((await post(source.name, body, signed(secret!, body))).status).toBe(404);
    expect((await post(`${source.name}-2`, body, signed(secret!, body))).status).toBe(200);
    expect((await merchant("DELETE", `/api/v1/webhook-sources/${source.id}`)).status).toBe(200);
    expect((await post(`${source.name}-2`, body, signed(secret!, body))).status).toBe(404);
    expect((await merchant("GET", `/api/v1/webhook-sources/${source.id}`)).status).toBe(404);
  });

  it("answers 404 for a source that does not exist", async () => {
    const body = validBody();
    const res = await post(`nobody-${unique()}`, body, signed(`whsec_${btoa("x".repeat(32))}`, body));
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).details.applicationError.code).toBe("WEBHOOK_SOURCE_NOT_FOUND");
  });
});

describe("Wix-format source (RS256 JWT)", () => {
  const enc = new TextEncoder();
  const b64url = (bytes: ArrayBuffer | Uint8Array) =>
    btoa(String.fromCharCode(...new Uint8Array(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  const RS = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };

  async function rsaPair() {
    const pair = (await crypto.subtle.generateKey({ ...RS, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const spki = new Uint8Array((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
    const pem = `-----BEGIN PUBLIC KEY-----\n${btoa(String.fromCharCode(...spki))
      .match(/.{1,64}/g)!
      .join("\n")}\n-----END PUBLIC KEY-----\n`;
    return { privateKey: pair.privateKey, pem };
  }

  /** The Wix envelope: JWT payload {data: JSON({data: JSON(payload), instanceId, eventType, identity: JSON})}. */
  function wixClaims(eventType: string, payload: unknown, extra: Record<string, unknown> = {}) {
    const identity = JSON.stringify({ identityType: "APP", appId: "erp" });
    return {
      data: JSON.stringify({ data: JSON.stringify(payload), instanceId: "inst-1", eventType, identity }),
      iat: Math.floor(Date.now() / 1000),
      ...extra,
    };
  }

  async function jwt(claims: Record<string, unknown>, key: CryptoKey, alg = "RS256") {
    const head = b64url(enc.encode(JSON.stringify({ alg, typ: "JWT" })));
    const body = b64url(enc.encode(JSON.stringify(claims)));
    const sig =
      alg === "RS256"
        ? await crypto.subtle.sign(RS, key, enc.encode(`${head}.${body}`))
        : await crypto.subtle.sign("HMAC", key, enc.encode(`${head}.${body}`));
    return `${head}.${body}.${b64url(sig)}`;
  }

  let keys: { privateKey: CryptoKey; pem: string };
  let source: { id: string; name: string };
  beforeAll(async () => {
    keys = await rsaPair();
    // The public key given as base64 of the PEM (the one-line form the Wix SDK also takes).
    source = (await createSource({ format: "wix", publicKey: btoa(keys.pem) })).source;
  });
  const postJwt = (token: string) => post(source.name, token, { "content-type": "text/plain" });

  it("accepts a JWT signed with the configured key, unwrapping the JSON-in-JSON envelope", async () => {
    const got = await merchant("GET", `/api/v1/webhook-sources/${source.id}`);
    expect(got.body.source.keys[0].publicKey).toBe(keys.pem);
    const token = await jwt(
      wixClaims(TYPE, { items: [{ productId: "w-1", setQuantity: 3 }] }, { exp: Math.floor(Date.now() / 1000) + 300 }),
      keys.privateKey,
    );
    const res = await postJwt(token);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: string; status: string };
    expect(answer.status).toBe("ACCEPTED");
    const processed = await waitFor(() => received.find((r) => r.event.id === answer.id), "the processor");
    expect(processed.event).toMatchObject({
      type: TYPE,
      actor: { type: "APP", id: source.name },
      data: { items: [{ productId: "w-1", setQuantity: 3 }] },
    });
    // The same token again is a repeat, whatever (unsigned) headers come with it.
    expect(await (await postJwt(token)).json()).toEqual({ id: answer.id, status: "DUPLICATE" });
    expect(await (await post(source.name, token, { "content-type": "text/plain", "webhook-id": "another-id" })).json()).toEqual({
      id: answer.id,
      status: "DUPLICATE",
    });
  });

  it("refuses a wrong key, HS256, an expired or not-yet-valid token, and a non-JWT with 401", async () => {
    const count = (await stored(source.id)).length;
    const stranger = await rsaPair();
    const hmac = await crypto.subtle.importKey("raw", enc.encode(keys.pem), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const now = Math.floor(Date.now() / 1000);
    const payload = { items: [{ productId: "w-2", setQuantity: 1 }] };
    const tokens = [
      await jwt(wixClaims(TYPE, payload), stranger.privateKey),
      // HS256 keyed with the public key's text (the classic algorithm-confusion attack).
      await jwt(wixClaims(TYPE, payload), hmac, "HS256"),
      await jwt(wixClaims(TYPE, payload, { exp: now - 60 }), keys.privateKey),
      await jwt(wixClaims(TYPE, payload, { nbf: now + 600 }), keys.privateKey),
      "not-a-jwt",
    ];
    for (const token of tokens) {
      const res = await postJwt(token);
      expect(res.status, token.slice(0, 40)).toBe(401);
    }
    expect(await stored(source.id)).toHaveLength(count);
  });

  it("requires freshness: an exp not past, or an iat within five minutes; an old token without exp is refused", async () => {
    const count = (await stored(source.id)).length;
    const now = Math.floor(Date.now() / 1000);
    const payload = () => ({ items: [{ productId: `w-${unique()}`, setQuantity: 1 }] });
    const noIat = (extra: Record<string, unknown>) => {
      const { iat: _, ...claims } = wixClaims(TYPE, payload(), extra);
      return claims;
    };
    const refused: [string, Record<string, unknown>, string][] = [
      ["issued in 2020, no exp", wixClaims(TYPE, payload(), { iat: 1_577_836_800 }), "the JWT needs an exp claim, or an iat within 5 minutes of now"],
      ["neither iat nor exp", noIat({}), "the JWT needs an exp claim, or an iat within 5 minutes of now"],
      [
        "issued ten minutes ago, no exp",
        wixClaims(TYPE, payload(), { iat: now - 600 }),
        "the JWT needs an exp claim, or an iat within 5 minutes of now",
      ],
      [
        "issued in the future",
        wixClaims(TYPE, payload(), { iat: now + 600, exp: now + 900 }),
        "the JWT was issued in the future (its iat is ahead of now)",
      ],
      ["exp as text", wixClaims(TYPE, payload(), { exp: String(now + 300) }), "the JWT's exp claim must be a number (seconds)"],
      ["expired a minute ago", wixClaims(TYPE, payload(), { iat: now - 120, exp: now - 60 }), "the JWT has expired"],
    ];
    for (const [what, claims, reason] of refused) {
      const res = await postJwt(await jwt(claims, keys.privateKey));
      expect(res.status, what).toBe(401);
      expect(((await res.json()) as any).details.applicationError.description, what).toBe(reason);
    }
    expect(await stored(source.id)).toHaveLength(count);
    // Fresh enough: an iat of four minutes ago, an exp ahead without iat, and one a few seconds past (clock skew).
    for (const claims of [
      wixClaims(TYPE, payload(), { iat: now - 240 }),
      noIat({ exp: now + 300 }),
      wixClaims(TYPE, payload(), { iat: now - 60, exp: now - 5 }),
    ]) {
      const res = await postJwt(await jwt(claims, keys.privateKey));
      expect(res.status, JSON.stringify(claims)).toBe(200);
    }
    expect(await stored(source.id)).toHaveLength(count + 3);
  });

  it("takes the shop's own outgoing wix-format tokens (iat now, exp ten minutes on) for as long as they are valid", async () => {
    const event: EventEnvelope = {
      id: crypto.randomUUID(),
      type: TYPE,
      entityId: "w-9",
      eventTime: new Date().toISOString(),
      actor: { type: "APP", id: "erp" },
      data: { items: [{ productId: "w-9", setQuantity: 2 }] },
    };
    const now = Math.floor(Date.now() / 1000);
    const claims = outgoingWixClaims(event, "inst-1", now);
    expect(claims).toMatchObject({ iat: now, exp: now + 600 });
    const token = await signJwt(keys.privateKey, claims);
    const publicKey = (await importPublicKey(keys.pem))!.key;
    expect(await verifyJwt(token, [publicKey], now + 599, 300)).toMatchObject({ ok: true });
    expect(await verifyJwt(token, [publicKey], now + 600 + JWT_CLOCK_SKEW_SECONDS, 300)).toEqual({ ok: false, reason: "the JWT has expired" });
    const res = await postJwt(token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("ACCEPTED");
  });

  it("refuses a signed token of an internal event type with 403, storing nothing", async () => {
    const count = (await stored(source.id)).length;
    const payload = { productId: "p-1", variants: [{ variantId: "v-1", inStock: true, oldValue: { inStock: false } }] };
    const res = await postJwt(
      await jwt(
        wixClaims("wix.stores.catalog.v3.inventory_item_stock_status_updated", payload, { exp: Math.floor(Date.now() / 1000) + 300 }),
        keys.privateKey,
      ),
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).details.applicationError.code).toBe("WEBHOOK_EVENT_TYPE_NOT_ALLOWED");
    expect(await stored(source.id)).toHaveLength(count);
    expect((await outboxFor(source.name)).filter((r) => r.type !== TYPE)).toEqual([]);
  });

  it("refuses a malformed envelope or payload with 400", async () => {
    const count = (await stored(source.id)).length;
    const iat = Math.floor(Date.now() / 1000);
    const objectData = await jwt({ data: { eventType: TYPE, data: "{}" }, iat }, keys.privateKey);
    const noType = await jwt({ data: JSON.stringify({ data: "{}" }), iat }, keys.privateKey);
    const badPayload = await jwt(wixClaims(TYPE, { items: [{ setQuantity: 1 }] }), keys.privateKey);
    const expected: [string, string][] = [
      [objectData, "data"],
      [noType, "data.eventType"],
      [badPayload, "data.items[0].productId"],
    ];
    for (const [token, field] of expected) {
      const res = await postJwt(token);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).details.validationError.fieldViolations[0].field).toBe(field);
    }
    expect(await stored(source.id)).toHaveLength(count);
  });
});

describe("the event types a source may send", () => {
  const STOCK_STATUS = "wix.stores.catalog.v3.inventory_item_stock_status_updated";

  it("defaults to inventory.updated and takes only types the shop accepts from outside (400 for internal or unknown ones)", async () => {
    const created = await merchant("POST", "/api/v1/webhook-sources", { name: `wh-${unique()}` });
    expect(created.status).toBe(200);
    expect(created.body.source).toMatchObject({ eventTypes: ["inventory.updated"], configuredBy: { type: "API_KEY", id: "owner", role: "OWNER" } });
    const before = (await merchant("GET", "/api/v1/webhook-sources")).body.sources.length;
    const cases: [unknown, string, RegExp][] = [
      [[STOCK_STATUS], "eventTypes[0]", /is an internal event type/],
      [["inventory.updated", "com.wix.ecommerce.catalog.api.v1.ProductCreated"], "eventTypes[1]", /is an internal event type/],
      [["com.wix.ecommerce.cart.abandonment.api.v1.CartAbandonedEvent"], "eventTypes[0]", /is an internal event type/],
      [["webhook.test"], "eventTypes[0]", /is not an event type the shop takes from a webhook/],
      [["com.example.whatever"], "eventTypes[0]", /is not an event type the shop takes from a webhook \(allowed: inventory\.updated/],
      [[], "eventTypes", /./],
    ];
    for (const [eventTypes, field, description] of cases) {
      const res = await merchant("POST", "/api/v1/webhook-sources", { name: `wh-${unique()}`, eventTypes });
      expect(res.status, JSON.stringify(eventTypes)).toBe(400);
      const [violation] = res.body.details.validationError.fieldViolations;
      expect(violation.field).toBe(field);
      expect(violation.description).toMatch(description);
      // The same rule when the types are changed later.
      const patched = await merchant("PATCH", `/api/v1/webhook-sources/${created.body.source.id}`, { eventTypes });
      expect(patched.status, JSON.stringify(eventTypes)).toBe(400);
    }
    expect((await merchant("GET", "/api/v1/webhook-sources")).body.sources.length).toBe(before);
    expect((await merchant("GET", `/api/v1/webhook-sources/${created.body.source.id}`)).body.source.eventTypes).toEqual(["inventory.updated"]);
    const narrowed = await merchant("PATCH", `/api/v1/webhook-sources/${created.body.source.id}`, { eventTypes: [TYPE] });
    expect(narrowed.body.source.eventTypes).toEqual([TYPE]);
  });

  it("refuses a signed internal event (a fake back-in-stock signal) with 403 before anything is stored", async () => {
    // The default source: inventory.updated only.
    const created = await merchant("POST", "/api/v1/webhook-sources", { name: `wh-${unique()}` });
    const { source, secret } = created.body as { source: { id: string; name: string }; secret: string };
    const data = { productId: "p-1", variants: [{ variantId: "v-1", inStock: true, oldValue: { inStock: false } }] };
    for (const type of [STOCK_STATUS, TYPE, "com.wix.ecommerce.catalog.api.v1.ProductChanged"]) {
      const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
      const res = await post(source.name, body, signed(secret, body));
      expect(res.status, type).toBe(403);
      expect(((await res.json()) as any).details.applicationError).toMatchObject({
        code: "WEBHOOK_EVENT_TYPE_NOT_ALLOWED",
        data: { type, allowed: ["inventory.updated"] },
      });
    }
    await expectNothingStored(source);
    const refused = await logged(source.id);
    expect(refused.map((r) => r.status)).toEqual(["REFUSED", "REFUSED", "REFUSED"]);
    expect(refused[0].reason).toBe(`403 This source may not send ${STOCK_STATUS}: it may send inventory.updated`);
  });
});

describe("what a source may do is bounded by whoever configured it", () => {
  /** An ACTIVE staff identity with these permissions, and an access token for it. */
  async function staffWith(permissions: Permission[]) {
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO identities (id, email, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'STAFF', ?, 1, ?, ?)",
    )
      .bind(id, `staff-${unique()}@example.com`, JSON.stringify(permissions), now, now)
      .run();
    const tokens = await issueTokens(env, { role: "member", clientId: "test-client", visitorId: crypto.randomUUID(), identityId: id });
    return { id, token: tokens.access_token };
  }
  const as = (token: string, method: string, path: string, body?: unknown) =>
    api(method, path, { key: token, ...(body === undefined ? {} : { body }) });
  const setStock = (secret: string, sourceName: string, productId: string, quantity: number) => {
    const body = JSON.stringify({
      type: "inventory.updated",
      timestamp: new Date().toISOString(),
      data: { items: [{ productId, setQuantity: quantity }] },
    });
    return post(sourceName, body, signed(secret, body));
  };

  it("staff with automations.manage but not inventory.write can neither create nor re-key nor widen a stock-changing source", async () => {
    const staff = await staffWith(["automations.manage"]);
    const before = (await merchant("GET", "/api/v1/webhook-sources")).body.sources.length;
    // The exploit: a source of their own, signing inventory.updated with setQuantity 777.
    for (const body of [
      { name: `wh-${unique()}` },
      { name: `wh-${unique()}`, eventTypes: ["inventory.updated"] },
      { name: `wh-${unique()}`, eventTypes: [TYPE, "inventory.updated"] },
    ]) {
      const res = await as(staff.token, "POST", "/api/v1/webhook-sources", body);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.details.applicationError.description).toMatch(/inventory\.write/);
    }
    expect((await merchant("GET", "/api/v1/webhook-sources")).body.sources.length).toBe(before);
    // The owner's stock source: no new key, no rotation, no re-enabling by this staff member.
    const owned = (await merchant("POST", "/api/v1/webhook-sources", { name: `wh-${unique()}` })).body.source;
    expect((await as(staff.token, "POST", `/api/v1/webhook-sources/${owned.id}/keys`, {})).status).toBe(403);
    expect((await as(staff.token, "POST", `/api/v1/webhook-sources/${owned.id}/rotate`, {})).status).toBe(403);
    expect((await as(staff.token, "PATCH", `/api/v1/webhook-sources/${owned.id}`, { enabled: false })).status).toBe(200);
    expect((await as(staff.token, "PATCH", `/api/v1/webhook-sources/${owned.id}`, { enabled: true })).status).toBe(403);
    const theirs = await as(staff.token, "POST", "/api/v1/webhook-sources", { name: `wh-${unique()}`, eventTypes: [TYPE] });
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    expect((await as(staff.token, "PATCH", `/api/v1/webhook-sources/${theirs.body.source.id}`, { eventTypes: ["inventory.updated"] })).status).toBe(
      403,
    );
    const after = (await merchant("GET", `/api/v1/webhook-sources/${owned.id}`)).body.source;
    expect(after.keys.map((k: { id: string }) => k.id)).toEqual(owned.keys.map((k: { id: string }) => k.id));
    expect(after.configuredBy).toMatchObject({ type: "API_KEY", id: "owner" });
    expect((await merchant("GET", `/api/v1/webhook-sources/${theirs.body.source.id}`)).body.source.eventTypes).toEqual([TYPE]);
  });

  it("applies stock events only while the configurer holds inventory.write; refusals are logged for the merchant", async () => {
    const staff = await staffWith(["automations.manage", "inventory.write"]);
    const product = await trackedProduct(0);
    const created = await as(staff.token, "POST", "/api/v1/webhook-sources", { name: `wh-${unique()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { source, secret } = created.body as { source: { id: string; name: string; configuredBy: unknown }; secret: string };
    expect(source.configuredBy).toMatchObject({
      type: "MEMBER",
      id: staff.id,
      role: "STAFF",
      permissions: ["inventory.write", "automations.manage"],
    });

    const first = await setStock(secret, source.name, product.id, 5);
    expect(first.status).toBe(200);
    await waitFor(async () => ((await stockOf(product.id))?.quantity === 5 ? true : undefined), "the stock to be set");

    // The owner takes inventory.write away: the next event is refused, and stock stays.
    await env.DB.prepare("UPDATE identities SET permissions = ? WHERE id = ?")
      .bind(JSON.stringify(["automations.manage"]), staff.id)
      .run();
    const refused = await setStock(secret, source.name, product.id, 777);
    expect(refused.status).toBe(403);
    const err = (await refused.json()) as any;
    expect(err.details.applicationError.code).toBe("WEBHOOK_SOURCE_NOT_AUTHORISED");
    expect(err.details.applicationError.description).toBe(
      `Not applied: inventory.updated needs inventory.write, which staff member ${staff.id}, who configured this source, no longer holds: someone with inventory.write must rotate its key or save its event types to take it on`,
    );
    // The merchant sees it on the source, before any event comes.
    const shown = (await merchant("GET", `/api/v1/webhook-sources/${source.id}`)).body.source;
    expect(shown.refusing).toEqual([{ type: "inventory.updated", reason: err.details.applicationError.description.slice("Not applied: ".length) }]);
    // Removed altogether: refused as well.
    await env.DB.prepare("UPDATE identities SET status = 'DELETED', permissions = ? WHERE id = ?")
      .bind(JSON.stringify(["automations.manage", "inventory.write"]), staff.id)
      .run();
    expect((await setStock(secret, source.name, product.id, 777)).status).toBe(403);
    const events = (await merchant("GET", `/api/v1/webhook-sources/${source.id}/events?status=REFUSED`)).body.events;
    expect(events.map((e: any) => e.type)).toEqual(["inventory.updated", "inventory.updated"]);
    expect(events[0].reason).toMatch(/^403 Not applied: .* is no longer staff or was revoked/);
    expect(events[1].reason).toMatch(/^403 Not applied: .* no longer holds/);
    expect(await stored(source.id)).toHaveLength(1);
    expect((await stockOf(product.id))?.quantity).toBe(5);

    // The owner rotates the key: the source acts for the owner from then on.
    const rotated = await merchant("POST", `/api/v1/webhook-sources/${source.id}/rotate`, { overlapMinutes: 0 });
    expect(rotated.body.source.configuredBy).toMatchObject({ type: "API_KEY", id: "owner" });
    expect((await merchant("GET", `/api/v1/webhook-sources/${source.id}/events`)).body.source.refusing).toEqual([]);
    expect((await setStock(rotated.body.secret, source.name, product.id, 9)).status).toBe(200);
    await waitFor(async () => ((await stockOf(product.id))?.quantity === 9 ? true : undefined), "the stock to be set by the owner's source");
  });

  it("refuses stock events from a source nobody is recorded as having configured, or whose API key was revoked", async () => {
    const { source, secret } = (await merchant("POST", "/api/v1/webhook-sources", { name: `wh-${unique()}` })).body;
    const product = await trackedProduct(1);
    await env.DB.prepare("UPDATE webhook_sources SET configured_by = NULL WHERE id = ?").bind(source.id).run();
    const res = await setStock(secret, source.name, product.id, 777);
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).details.applicationError.description).toMatch(/nobody is recorded as having configured this source/);

    const keyId = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO api_keys (id, name, key_hash, role, created_date, revoked_date) VALUES (?, 'old', ?, 'OWNER', ?, ?)")
      .bind(keyId, `hash-${keyId}`, new Date().toISOString(), new Date().toISOString())
      .run();
    const configurer = {
      kind: "apiKey",
      id: keyId,
      role: "OWNER",
      permissions: ["inventory.write", "automations.manage"],
      date: new Date().toISOString(),
    };
    await env.DB.prepare("UPDATE webhook_sources SET configured_by = ? WHERE id = ?").bind(JSON.stringify(configurer), source.id).run();
    const revoked = await setStock(secret, source.name, product.id, 777);
    expect(revoked.status).toBe(403);
    expect(((await revoked.json()) as any).details.applicationError.description).toMatch(
      new RegExp(`API key ${keyId}, who configured this source, is no longer staff or was revoked`),
    );
    expect(await stored(source.id)).toEqual([]);
    expect((await stockOf(product.id))?.quantity).toBe(1);
  });
});
