import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, merchant, OWNER_KEY, staffWith } from "../helpers";
import { CLIENT_ID } from "./oauth-helpers";

/**
 * The visitor-token limit, keyed by client and address: a headless site's server (one address minting tokens for
 * all its shoppers) runs on the budget the merchant gave its client, while one abusive address is still stopped.
 */

const mint = (clientId: string, ip: string) =>
  api("POST", "/oauth2/token", { body: { clientId, grantType: "anonymous" }, headers: { "cf-connecting-ip": ip } });

const randomIp = (prefix: string) => `${prefix}.${Math.floor(Math.random() * 250) + 1}`;

/** Starts the window of a client and address as if `count` tokens had been minted just now (rather than minting them). */
async function alreadyMinted(clientId: string, ip: string, count: number) {
  await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, ?)")
    .bind(`anon-token:${clientId}:ip:${ip}`, Math.floor(Date.now() / 1000), count)
    .run();
}

/** Mints `count` tokens, a few at a time; answers the statuses in order. */
async function mintMany(clientId: string, ip: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => mint(clientId, ip)));
    statuses.push(...batch.map((r) => r.status));
  }
  return statuses;
}

async function registerServerClient(budget: number) {
  const created = await merchant("POST", "/api/v1/oauth-clients", {
    client: { name: "Next.js site", redirectUris: ["https://headless.example/cart"] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.client.id as string;
  const set = await merchant("PATCH", `/api/v1/oauth-clients/${id}`, { client: { visitorTokenBudget: budget } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body.client.visitorTokenBudget).toBe(budget);
  return id;
}

describe("visitor tokens per client and address", () => {
  it("lets a registered server mint past the default for its shoppers, up to its budget", async () => {
    const server = await registerServerClient(320);
    const ip = randomIp("192.0.2");
    await alreadyMinted(server, ip, 290);
    const statuses = await mintMany(server, ip, 31);
    // Past the default of 300, up to 320.
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
    const over = await mint(server, ip);
    expect(over.body.details.applicationError.code).toBe("TOO_MANY_REQUESTS");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("still stops one abusive address on the default client, without touching the server or other shoppers", async () => {
    const server = await registerServerClient(1000);
    const abuser = randomIp("198.51.100");
    await alreadyMinted(CLIENT_ID, abuser, 290);
    const statuses = await mintMany(CLIENT_ID, abuser, 11);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    // The abuser's address is refused, a shopper elsewhere and the headless server are not.
    expect((await mint(CLIENT_ID, abuser)).status).toBe(429);
    expect((await mint(CLIENT_ID, randomIp("203.0.113"))).status).toBe(200);
    expect((await mint(server, randomIp("192.0.2"))).status).toBe(200);
  });

  it("lists clients with their budgets, and only settings.manage changes one, within bounds", async () => {
    const server = await registerServerClient(500);
    const list = await api("GET", "/api/v1/oauth-clients", { key: OWNER_KEY });
    expect(list.status).toBe(200);
    expect(list.body.clients.find((c: { id: string }) => c.id === server)).toMatchObject({
      name: "Next.js site",
      redirectUris: ["https://headless.example/cart"],
      visitorTokenBudget: 500,
    });
    expect(list.body.clients[0]).toMatchObject({ id: CLIENT_ID, isDefault: true, visitorTokenBudget: null });

    const staff = await staffWith(["catalog.write"]);
    const refused = await api("PATCH", `/api/v1/oauth-clients/${server}`, { key: staff.token, body: { client: { visitorTokenBudget: 9 } } });
    expect(refused.status).toBe(403);
    expect(refused.body.details.applicationError.code).toBe("PERMISSION_DENIED");
    expect((await api("PATCH", `/api/v1/oauth-clients/${server}`, { body: { client: { visitorTokenBudget: 9 } } })).status).toBe(401);

    for (const bad of [0, 100_001, 2.5, "lots"]) {
      const res = await merchant("PATCH", `/api/v1/oauth-clients/${server}`, { client: { visitorTokenBudget: bad } });
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0].field).toBe("client.visitorTokenBudget");
    }
    const missing = await merchant("PATCH", "/api/v1/oauth-clients/no-such-client", { client: { visitorTokenBudget: 10 } });
    expect(missing.status).toBe(404);
    // Nothing changed, and null goes back to the default.
    const after = await api("GET", "/api/v1/oauth-clients", { key: OWNER_KEY });
    expect(after.body.clients.find((c: { id: string }) => c.id === server).visitorTokenBudget).toBe(500);
    const reset = await merchant("PATCH", `/api/v1/oauth-clients/${server}`, { client: { visitorTokenBudget: null } });
    expect(reset.body.client.visitorTokenBudget).toBeNull();
  });
});
