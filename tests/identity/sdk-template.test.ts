import { env } from "cloudflare:test";
import { collections as collectionsNow } from "@wix/stores";
import { createClient as createClientNow, OAuthStrategy as OAuthStrategyNow } from "@wix/sdk";
import { describe, expect, it } from "vitest";
import { currentCart, recommendations } from "wix-ecom-1-0-943";
import { redirects } from "wix-redirects-1-0-73";
import { createClient, OAuthStrategy } from "wix-sdk-1-15";
import { collections, products } from "wix-stores-1-0-363";
import { postFlowUrlOf, redeemHandover } from "#worker/identity";
import { openDb } from "#worker/platform/db";
import { api, createProduct, merchant, unique } from "../helpers";
import { redirectWixHosts, rejection, sdkMemberTokens } from "../wix-sdk-host";
import { CLIENT_ID, createIdentity, createRestrictedClient, sessionTokenFor } from "./oauth-helpers";

/**
 * Wix's Next.js Commerce template, call for call, with the SDK generation it pins (`@wix/sdk` 1.15.11,
 * `@wix/stores` 1.0.363, `@wix/ecom` 1.0.943, `@wix/redirects` 1.0.73) and only the host redirected to the Worker:
 * catalogue, recommendations, cart and checkout hand-over.
 */

const sent = redirectWixHosts();

const STORES = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

const db = openDb(env.DB);

function template(clientId = CLIENT_ID) {
  return createClient({ modules: { products, collections, currentCart, redirects, recommendations }, auth: OAuthStrategy({ clientId }) });
}

type Template = ReturnType<typeof template>;

async function createCollection(name: string, productIds: string[]) {
  const res = await merchant("POST", "/v1/collections", { collection: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const collection = res.body.collection as { id: string; slug: string; name: string };
  expect((await merchant("POST", `/v1/collections/${collection.id}/productIds`, { productIds })).status).toBe(200);
  return collection;
}

async function createShirt(tag: string) {
  return createProduct({
    name: `Template Shirt ${tag}`,
    priceData: { price: 30 },
    manageVariants: true,
    stock: { trackInventory: true, quantity: 5 },
    productOptions: [
      {
        name: "Size",
        optionType: "drop_down",
        choices: [
          { value: "S", description: "S" },
          { value: "L", description: "L" },
        ],
      },
    ],
  });
}

/** Adds a shirt (by variant, as the template does) and a mug to the client's cart, then places it in a checkout. */
async function fillAndCheckOut(client: Template, tag: string) {
  const shirt = await createShirt(tag);
  const mug = await createProduct({ name: `Template Mug ${tag}`, priceData: { price: 9 } });
  const [found] = (await client.products.queryProducts().eq("slug", shirt.slug).limit(1).find()).items;
  const large = found.variants!.find((v) => v.choices?.Size === "L")!;
  const { cart } = await client.currentCart.addToCurrentCart({
    lineItems: [
      { catalogReference: { appId: STORES, catalogItemId: shirt.id, options: { variantId: large._id } }, quantity: 1 },
      { catalogReference: { appId: STORES, catalogItemId: mug.id }, quantity: 2 },
    ],
  });
  const { checkoutId } = await client.currentCart.createCheckoutFromCurrentCart({ channelType: currentCart.ChannelType.OTHER_PLATFORM });
  expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/ecom/v1/carts/current/create-checkout" });
  return { cart: cart!, checkoutId: checkoutId!, shirt, mug };
}

/** The credential in a redirect session's URL. */
const handoverOf = (fullUrl: string) => new URL(fullUrl).searchParams.get("handover") ?? "";

describe("the template's catalogue calls", () => {
  it("reads products with their variants although this SDK cannot ask for them", async () => {
    const tag = unique();
    const shirt = await createShirt(tag);
    const result = await template().products.queryProducts().startsWith("name", `Template Shirt ${tag}`).ascending("price").limit(100).find();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/stores-reader/v1/products/query-platformized" });
    expect(JSON.parse(sent.at(-1)!.body)).not.toHaveProperty("includeVariants");
    expect(result.items).toHaveLength(1);
    const [p] = result.items;
    expect(p._id).toBe(shirt.id);
    expect(p.manageVariants).toBe(true);
    expect(p.variants!.map((v) => v.choices)).toEqual(expect.arrayContaining([{ Size: "S" }, { Size: "L" }]));
    expect(p.variants![0].variant?.priceData?.price).toBe(30);

    // A caller that says includeVariants: false gets none.
    const without = await api("POST", "/stores-reader/v1/products/query-platformized", {
      body: { query: { filter: { id: shirt.id } }, includeVariants: false },
    });
    expect(without.body.products[0]).not.toHaveProperty("variants");
  });

  it("queries collections and reads one by slug and by id under /stores-reader/v2", async () => {
    const tag = unique();
    const shirt = await createShirt(tag);
    const made = await createCollection(`Template Tops ${tag}`, [shirt.id]);
    const client = template();

    const all = await client.collections.queryCollections().limit(100).find();
    expect(sent.at(-1)!.path).toBe("/stores-reader/v2/collections/query");
    expect(all.items.map((c) => c._id)).toContain(made.id);

    const bySlug = await client.collections.getCollectionBySlug(made.slug);
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: `/stores-reader/v2/collections/slug/${made.slug}` });
    expect(bySlug.collection).toMatchObject({ _id: made.id, name: made.name, slug: made.slug, numberOfProducts: 1 });

    const byId = await client.collections.getCollection(made.id);
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: `/stores-reader/v2/collections/${made.id}` });
    expect(byId.name).toBe(made.name);

    const inIt = await client.products.queryProducts().hasSome("collectionIds", [made.id]).find();
    expect(inIt.items.map((p) => p._id)).toEqual([shirt.id]);

    // The POST form of the query answers the same.
    const posted = await api("POST", "/stores-reader/v2/collections/query", { body: { query: { filter: { id: made.id } } } });
    expect(posted.body.collections.map((c: { id: string }) => c.id)).toEqual([made.id]);
  });

  it("reports a missing collection slug as applicationError.code 404 in both SDK generations", async () => {
    const missing = `no-such-collection-${unique()}`;
    const old = await rejection(template().collections.getCollectionBySlug(missing));
    expect(old.details.applicationError.code).toBe(404);
    const now = createClientNow({ modules: { collections: collectionsNow }, auth: OAuthStrategyNow({ clientId: CLIENT_ID }) });
    const current = await rejection(now.collections.getCollectionBySlug(missing));
    expect(sent.at(-1)).toMatchObject({ path: `/v2/collections/slug/${missing}` });
    expect(current.details.applicationError.code).toBe(404);
    const raw = await api("GET", `/stores-reader/v2/collections/slug/${missing}`);
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({ message: `Collection with slug "${missing}" not found`, details: {} });
    // Other misses keep their named code.
    const byId = await rejection(template().collections.getCollection(`nope-${unique()}`));
    expect(byId.details.applicationError.code).toBe("COLLECTION_NOT_FOUND");
  });

  it("recommends products for a product page with the template's algorithms, then reads them", async () => {
    const tag = unique();
    const shirt = await createShirt(tag);
    const others = [];
    for (const name of ["Cap", "Socks", "Scarf"]) others.push(await createProduct({ name: `Template ${name} ${tag}`, priceData: { price: 12 } }));
    await createCollection(`Template Outfit ${tag}`, [shirt.id, ...others.map((o) => o.id)]);
    const client = template();
    // The template's own list: frequently viewed together (not run here), best sellers (no paid orders yet), then
    // products from the same categories, which find the three.
    const { recommendation } = await client.recommendations.getRecommendation(
      [
        { _id: "5dd69f67-9ab9-478e-ba7c-10c6c6e7285f", appId: STORES },
        { _id: "ba491fd2-b172-4552-9ea6-7202e01d1d3c", appId: STORES },
        { _id: "68ebce04-b96a-4c52-9329-08fc9d8c1253", appId: STORES },
      ],
      { items: [{ catalogItemId: shirt.id, appId: STORES }], minimumRecommendedItems: 3 },
    );
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/v1/recommendations/get" });
    expect(JSON.parse(sent.at(-1)!.body).algorithms[0]).toEqual({ id: "5dd69f67-9ab9-478e-ba7c-10c6c6e7285f", appId: STORES });
    expect(recommendation!.algorithm).toEqual({ _id: "68ebce04-b96a-4c52-9329-08fc9d8c1253", appId: STORES });
    const ids = recommendation!.items!.map((item) => item.catalogItemId!);
    expect(new Set(ids)).toEqual(new Set(others.map((o) => o.id)));
    const { items } = await client.products.queryProducts().in("_id", ids).find();
    expect(items.map((p) => p.name).sort()).toEqual(others.map((o) => o.name).sort());

    const { availableAlgorithms } = await client.recommendations.listAvailableAlgorithms();
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: "/v1/recommendations/algorithms" });
    expect(availableAlgorithms.map((a) => a.config?.algorithmId)).toContain("68ebce04-b96a-4c52-9329-08fc9d8c1253");
  });
});

describe("the template's cart and checkout hand-over", () => {
  it("adds by variant, changes a quantity, removes a line and makes a checkout", async () => {
    const client = template();
    const { cart, shirt, mug } = await fillAndCheckOut(client, unique());
    const shirtLine = cart.lineItems!.find((l) => l.catalogReference?.catalogItemId === shirt.id)!;
    const mugLine = cart.lineItems!.find((l) => l.catalogReference?.catalogItemId === mug.id)!;
    expect(shirtLine.descriptionLines?.map((d) => d.plainText?.original ?? d.colorInfo?.original)).toEqual(["L"]);

    const changed = await client.currentCart.updateCurrentCartLineItemQuantity([{ _id: mugLine._id!, quantity: 3 }]);
    expect(changed.cart!.lineItems!.find((l) => l._id === mugLine._id)!.quantity).toBe(3);
    const removed = await client.currentCart.removeLineItemsFromCurrentCart([shirtLine._id!]);
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/ecom/v1/carts/current/remove-line-items" });
    expect(removed.cart!.lineItems!.map((l) => l._id)).toEqual([mugLine._id]);
    const after = await client.currentCart.getCurrentCart();
    expect(after.lineItems!.map((l) => [l.catalogReference?.catalogItemId, l.quantity])).toEqual([[mug.id, 3]]);
  });

  it("the checkout redirect session carries a single-use credential that starts the shopper's session", async () => {
    const client = template();
    const { checkoutId } = await fillAndCheckOut(client, unique());
    const postFlowUrl = "https://headless.example/cart";
    const { redirectSession } = await client.redirects.createRedirectSession({ ecomCheckout: { checkoutId }, callbacks: { postFlowUrl } });
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/_api/redirects-api/v1/redirect-session" });
    const url = new URL(redirectSession!.fullUrl!);
    expect(url.origin + url.pathname).toBe("https://shop.test/checkout");
    expect(url.searchParams.get("checkoutId")).toBe(checkoutId);
    expect(url.searchParams.get("postFlowUrl")).toBe(postFlowUrl);
    const credential = handoverOf(redirectSession!.fullUrl!);
    expect(credential).toMatch(/^[A-Za-z0-9_-]{40,}$/);

    // Another checkout's id, then the right one: the wrong try burns it (a credential is tried once).
    expect(await redeemHandover(env, db, credential, { intent: "checkout", checkoutId: crypto.randomUUID() })).toBeNull();
    const again = await client.redirects.createRedirectSession({ ecomCheckout: { checkoutId }, callbacks: { postFlowUrl } });
    const second = handoverOf(again.redirectSession!.fullUrl!);
    const started = await redeemHandover(env, db, second, { intent: "checkout", checkoutId });
    expect(started).not.toBeNull();
    // The new session is the same shopper: it sees the template's cart and checkout.
    const theirs = await api("GET", "/ecom/v1/carts/current", { key: started!.tokens.access_token });
    expect(theirs.body.cart.id).toBe((await client.currentCart.getCurrentCart())._id);
    const checkout = await api("GET", `/ecom/v1/checkouts/${checkoutId}`, { key: started!.tokens.access_token });
    expect(checkout.status).toBe(200);
    expect(await postFlowUrlOf(env, checkoutId)).toBe(postFlowUrl);
    // Never twice.
    expect(await redeemHandover(env, db, second, { intent: "checkout", checkoutId })).toBeNull();
  });

  it("a member's checkout hands over the member, and a stale credential is refused", async () => {
    const client = template();
    const member = await createIdentity();
    client.auth.setTokens((await sdkMemberTokens(client.auth, await sessionTokenFor(member.id), "https://headless.example/callback")).tokens);
    const { checkoutId } = await fillAndCheckOut(client, unique());
    const { redirectSession } = await client.redirects.createRedirectSession({ ecomCheckout: { checkoutId } });
    const started = await redeemHandover(env, db, handoverOf(redirectSession!.fullUrl!), { intent: "checkout", checkoutId });
    const me = await api("GET", `/ecom/v1/checkouts/${checkoutId}`, { key: started!.tokens.access_token });
    expect(me.body.checkout.buyerInfo.memberId).toBe(member.id);

    const later = await client.redirects.createRedirectSession({ ecomCheckout: { checkoutId } });
    const credential = handoverOf(later.redirectSession!.fullUrl!);
    await env.DB.prepare("UPDATE one_time_tokens SET expires_at = ? WHERE kind = 'handover'")
      .bind(new Date(Date.now() - 1000).toISOString())
      .run();
    expect(await redeemHandover(env, db, credential, { intent: "checkout", checkoutId })).toBeNull();
  });

  it("refuses a post-flow URL the template's client does not list", async () => {
    const clientId = await createRestrictedClient(["https://headless.example/cart"]);
    const client = template(clientId);
    const { checkoutId } = await fillAndCheckOut(client, unique());
    const ok = await client.redirects.createRedirectSession({
      ecomCheckout: { checkoutId },
      callbacks: { postFlowUrl: "https://headless.example/cart" },
    });
    expect(handoverOf(ok.redirectSession!.fullUrl!)).not.toBe("");
    const refused = await rejection(
      client.redirects.createRedirectSession({ ecomCheckout: { checkoutId }, callbacks: { postFlowUrl: "https://evil.example/" } }),
    );
    // The SDK names the field by its own argument path.
    expect(refused.details.validationError.fieldViolations[0].field).toMatch(/(^|\.)callbacks\.postFlowUrl$/);
  });

  it("the login redirect session hands the visitor over, and the member login keeps the template's cart", async () => {
    const client = template();
    await fillAndCheckOut(client, unique());
    const visitorCart = await client.currentCart.getCurrentCart();
    const cartId = visitorCart._id;
    const { redirectSession } = await client.redirects.createRedirectSession({
      login: {},
      callbacks: { postFlowUrl: "https://headless.example/account" },
    });
    const url = new URL(redirectSession!.fullUrl!);
    expect(url.pathname).toBe("/login");
    const started = await redeemHandover(env, db, handoverOf(url.href), { intent: "login" });
    expect(started).not.toBeNull();
    expect((await api("GET", "/ecom/v1/carts/current", { key: started!.tokens.access_token })).body.cart.id).toBe(cartId);
    expect(await postFlowUrlOf(env, started!.continueKey!)).toBe("https://headless.example/account");
    // A login credential never opens a checkout, and is gone once used.
    expect(await redeemHandover(env, db, handoverOf(url.href), { intent: "login" })).toBeNull();

    // The template's member login (the auth redirect session through getAuthUrl) works with this generation too.
    const member = await createIdentity();
    const { tokens, authUrl } = await sdkMemberTokens(client.auth, await sessionTokenFor(member.id), "https://headless.example/callback");
    expect(sent.some((s) => s.path === "/_api/redirects-api/v1/redirect-session")).toBe(true);
    expect(new URL(authUrl).pathname).toBe("/oauth2/authorize");
    client.auth.setTokens(tokens);
    // The visitor's lines move into the member's cart.
    const memberCart = await client.currentCart.getCurrentCart();
    expect(memberCart.buyerInfo).toEqual({ memberId: member.id });
    expect(memberCart.lineItems!.map((l) => l.quantity)).toEqual(visitorCart.lineItems!.map((l) => l.quantity));
  });
});
