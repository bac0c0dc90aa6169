import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OWNER_KEY, outboxRows } from "../helpers";
import { createIdentity, memberTokens, tokenCall, visitorTokens } from "../identity/oauth-helpers";
import { cartCalls, cartRow, createPlain, createTee, item, lineRows, MOUNTS } from "./cart-fixtures";

/** Logging in merges the visitor's cart into the member's (no item lost, quantities combined, visitor cart closed). */

const lineSummary = (cart: any) =>
  cart.lineItems
    .map((l: any) => ({ id: l.id, catalogItemId: l.catalogReference.catalogItemId, quantity: l.quantity }))
    .sort((a: any, b: any) => a.catalogItemId.localeCompare(b.catalogItemId));

describe("member merge at login", () => {
  it("the authorization_code login combines the visitor's cart with the member's existing cart", async () => {
    const tee = await createTee();
    const mug = await createPlain(5);
    const cup = await createPlain(7);
    const navyM = { options: { Size: "M", Color: "Navy" } };
    const member = await createIdentity();

    // The member's cart from an earlier session on another device.
    const earlier = await memberTokens(member.id);
    const memberCart = (await cartCalls(earlier.access_token).add({ lineItems: [item(tee.id, 1, navyM), item(cup.id, 1)] })).body.cart;
    const memberTeeLine = memberCart.lineItems[0].id;

    // A visitor fills a cart, then logs in through the real round trip (redirect session → authorize → code grant).
    const visitor = await visitorTokens();
    const v = cartCalls(visitor.access_token, MOUNTS[1]);
    const visitorCart = (await v.add({ lineItems: [item(tee.id, 2, navyM), item(mug.id, 3)] })).body.cart;
    const visitorMugLine = visitorCart.lineItems[1].id;
    await v.patch({ cartInfo: { buyerInfo: { email: "visitor@example.com" }, contactInfo: { address: { country: "US", city: "Austin" } } } });

    const tokens = await memberTokens(member.id, visitor.access_token);
    const merged = (await cartCalls(tokens.access_token).get()).body.cart;
    expect(merged.id).toBe(memberCart.id);
    expect(merged.buyerInfo).toEqual({ memberId: member.id, email: "visitor@example.com" });
    expect(merged.contactInfo).toEqual({ address: { country: "US", city: "Austin" } });
    expect(lineSummary(merged)).toEqual(
      [
        { id: memberTeeLine, catalogItemId: tee.id, quantity: 3 },
        { id: memberCart.lineItems[1].id, catalogItemId: cup.id, quantity: 1 },
        // A line only the visitor had moves over with its id.
        { id: visitorMugLine, catalogItemId: mug.id, quantity: 3 },
      ].sort((a, b) => a.catalogItemId.localeCompare(b.catalogItemId)),
    );
    expect(merged.lineItems.at(-1).id).toBe(visitorMugLine);

    // The visitor's cart is closed and empty; the visitor token has no current cart any more.
    expect(await cartRow(visitorCart.id)).toMatchObject({ status: "CLOSED" });
    expect(await lineRows(visitorCart.id)).toEqual([]);
    expect((await v.get()).status).toBe(404);

    // Events: the member's cart updated (by the member), the visitor's deleted (merged).
    const memberEvents = await outboxRows(memberCart.id);
    expect(memberEvents.at(-1)).toMatchObject({ type: "wix.ecom.v1.cart_updated", actor_type: "MEMBER", actor_id: member.id });
    expect(memberEvents.at(-1)!.data.updatedEvent.currentEntity.lineItems).toHaveLength(3);
    const visitorEvents = await outboxRows(visitorCart.id);
    expect(visitorEvents.at(-1)).toMatchObject({
      type: "wix.ecom.v1.cart_deleted",
      data: { entityId: visitorCart.id, deletedEvent: {}, mergedIntoCartId: memberCart.id },
    });

    // Exactly one ACTIVE cart for the member.
    const active = await env.DB.prepare("SELECT count(*) AS n FROM carts WHERE owner_id = ? AND status = 'ACTIVE'").bind(member.id).first("n");
    expect(active).toBe(1);

    // Logging in again from the same browser finds nothing more to merge.
    const again = await memberTokens(member.id, tokens.access_token);
    expect(lineSummary((await cartCalls(again.access_token).get()).body.cart)).toEqual(lineSummary(merged));
  });

  it("a member without a cart gets the visitor's items in a new cart", async () => {
    const mug = await createPlain(5);
    const member = await createIdentity();
    const visitor = await visitorTokens();
    const v = cartCalls(visitor.access_token);
    const visitorCart = (await v.add({ lineItems: [item(mug.id, 2)] })).body.cart;

    const tokens = await memberTokens(member.id, visitor.access_token);
    const cart = (await cartCalls(tokens.access_token).get()).body.cart;
    expect(cart.id).not.toBe(visitorCart.id);
    expect(cart.buyerInfo).toEqual({ memberId: member.id });
    expect(cart.lineItems.map((l: any) => [l.id, l.quantity])).toEqual([[visitorCart.lineItems[0].id, 2]]);
    expect((await outboxRows(cart.id)).map((e) => e.type)).toEqual(["wix.ecom.v1.cart_created"]);
    expect(await cartRow(visitorCart.id)).toMatchObject({ status: "CLOSED" });
  });

  it("getMemberTokensForExternalLogin (authorized_client with the visitor's token) merges too", async () => {
    const mug = await createPlain(5);
    const member = await createIdentity();
    const visitor = await visitorTokens();
    const visitorCart = (await cartCalls(visitor.access_token).add({ lineItems: [item(mug.id, 4)] })).body.cart;

    const res = await tokenCall(
      { grant_type: "authorized_client", scope: "offline_access", member_id: member.id },
      { authorization: `${visitor.access_token},${OWNER_KEY}` },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cart = (await cartCalls(res.body.access_token).get()).body.cart;
    expect(cart.lineItems.map((l: any) => [l.catalogReference.catalogItemId, l.quantity])).toEqual([[mug.id, 4]]);
    expect(await cartRow(visitorCart.id)).toMatchObject({ status: "CLOSED" });
  });

  it("quantities combine up to the per-line limit, and a visitor with no cart changes nothing", async () => {
    const mug = await createPlain(1);
    const member = await createIdentity();
    const earlier = await memberTokens(member.id);
    const memberCart = (await cartCalls(earlier.access_token).add({ lineItems: [item(mug.id, 9000)] })).body.cart;

    const emptyHanded = await visitorTokens();
    await memberTokens(member.id, emptyHanded.access_token);
    expect((await cartRow(memberCart.id))!.revision).toBe(1);

    const visitor = await visitorTokens();
    await cartCalls(visitor.access_token).add({ lineItems: [item(mug.id, 2000)] });
    const tokens = await memberTokens(member.id, visitor.access_token);
    expect((await cartCalls(tokens.access_token).get()).body.cart.lineItems.map((l: any) => l.quantity)).toEqual([9999]);
  });

  it("an empty visitor cart is closed without creating a member cart", async () => {
    const mug = await createPlain(1);
    const member = await createIdentity();
    const visitor = await visitorTokens();
    const v = cartCalls(visitor.access_token);
    const visitorCart = (await v.add({ lineItems: [item(mug.id)] })).body.cart;
    await v.remove([visitorCart.lineItems[0].id]);

    const tokens = await memberTokens(member.id, visitor.access_token);
    expect((await cartCalls(tokens.access_token).get()).status).toBe(404);
    expect(await cartRow(visitorCart.id)).toMatchObject({ status: "CLOSED" });
  });
});
