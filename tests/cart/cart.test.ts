import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { advanceClock, resetClock } from "#worker/platform/clock";
import { api, merchant, OWNER_KEY, outboxRows } from "../helpers";
import {
  cartCalls,
  cartRow,
  createPlain,
  createTee,
  item,
  lineRows,
  MOUNTS,
  newVisitor,
  ownerSnapshot,
  roundTrips,
  setVariantStock,
  STORES,
  variantOf,
} from "./cart-fixtures";

/** The current cart: the nine calls on both mounts, for the caller's own cart only. */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const money = (amount: string, formatted: string) => ({
  amount,
  convertedAmount: amount,
  formattedAmount: formatted,
  formattedConvertedAmount: formatted,
});

describe.each(MOUNTS)("the current cart at %s", (mount) => {
  it("a visitor adds, reads, changes, estimates, checks out and deletes their cart", async () => {
    const tee = await createTee({ price: 25 });
    const mug = await createPlain(8.5);
    const { token, visitorId } = await newVisitor();
    const cart = cartCalls(token, mount);

    // No cart yet: 404 like Wix, and reading creates nothing.
    const none = await cart.get();
    expect(none.status).toBe(404);
    expect(none.body.details.applicationError.code).toBe("OWNED_CART_NOT_FOUND");
    expect(await env.DB.prepare("SELECT count(*) AS n FROM carts WHERE owner_id = ?").bind(visitorId).first("n")).toBe(0);

    // add-to-cart creates it: one line by choices, one by variantId-less plain product.
    const added = await cart.add({ lineItems: [item(tee.id, 2, { options: { Size: "M", Color: "Navy" } }), item(mug.id, 1)] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const c = added.body.cart;
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.createdDate).toMatch(ISO);
    expect(c.updatedDate).toMatch(ISO);
    expect(c).toMatchObject({ currency: "USD", weightUnit: "KG", buyerInfo: { visitorId }, appliedDiscounts: [] });
    expect(c.lineItems).toHaveLength(2);
    const [teeLine, mugLine] = c.lineItems;
    const navyM = variantOf(tee, { Size: "M", Color: "Navy" });
    expect(teeLine).toMatchObject({
      quantity: 2,
      catalogReference: { appId: STORES, catalogItemId: tee.id, options: { options: { Size: "M", Color: "Navy" }, variantId: navyM } },
      productName: { original: tee.name, translated: tee.name },
      url: { relativePath: `/products/${tee.slug}`, url: `https://shop.test/products/${tee.slug}` },
      price: money("25.00", "$25.00"),
      fullPrice: money("25.00", "$25.00"),
      priceBeforeDiscounts: money("25.00", "$25.00"),
      lineItemPrice: money("50.00", "$50.00"),
      descriptionLines: [
        { name: { original: "Size" }, plainText: { original: "M" }, lineItemPart: "CATALOG" },
        { name: { original: "Color" }, colorInfo: { original: "Navy", code: "#1F3A5F" }, lineItemPart: "CATALOG" },
      ],
      image: { id: expect.any(String), url: "https://images.example/tee.jpg", width: 1000, height: 800, altText: "A tee" },
      availability: { status: "AVAILABLE", quantityAvailable: 10 },
      physicalProperties: { weight: 0.3, sku: "TEE", shippable: true },
      itemType: { preset: "PHYSICAL" },
      paymentOption: "FULL_PAYMENT_ONLINE",
      customLineItem: false,
    });
    expect(teeLine.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(mugLine).toMatchObject({ quantity: 1, price: money("8.50", "$8.50"), availability: { status: "AVAILABLE" }, descriptionLines: [] });
    expect(mugLine.availability).not.toHaveProperty("quantityAvailable");
    expect(mugLine.catalogReference).toEqual({ appId: STORES, catalogItemId: mug.id });

    // The same item again (now by variantId) merges into its line.
    const again = await cart.add({ lineItems: [item(tee.id, 1, { variantId: navyM })] });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.cart.lineItems.map((l: any) => [l.id, l.quantity])).toEqual([
      [teeLine.id, 3],
      [mugLine.id, 1],
    ]);

    // GET: the same cart, in one D1 round trip.
    const read = await cart.get();
    expect(read.status).toBe(200);
    expect(roundTrips(read.headers)).toBe(1);
    expect(read.body.cart).toEqual(again.body.cart);

    // PATCH: cart info and another line item.
    const patched = await cart.patch({
      cartInfo: {
        buyerNote: "Leave at the door",
        buyerInfo: { email: "Shopper@Example.com" },
        contactInfo: {
          address: { country: "us", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" },
          contactDetails: { firstName: "Ada" },
        },
        selectedShippingOption: { code: "standard" },
      },
      lineItems: [item(tee.id, 1, { options: { Size: "S", Color: "Rust" } })],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.cart).toMatchObject({
      buyerNote: "Leave at the door",
      buyerInfo: { visitorId, email: "shopper@example.com" },
      contactInfo: {
        address: { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" },
        contactDetails: { firstName: "Ada" },
      },
      selectedShippingOption: { code: "standard" },
    });
    expect(patched.body.cart.lineItems).toHaveLength(3);
    const rustS = patched.body.cart.lineItems[2];

    // A field mask writes exactly the fields it names (buyerNote cleared, the rest kept).
    const masked = await cart.patch({ cartInfo: { buyerNote: null }, cartFieldmask: { paths: ["buyerNote"] } });
    expect(masked.status, JSON.stringify(masked.body)).toBe(200);
    expect(masked.body.cart).not.toHaveProperty("buyerNote");
    expect(masked.body.cart.buyerInfo.email).toBe("shopper@example.com");

    // update-line-items-quantity: 0 removes.
    const quantities = await cart.quantities([
      { id: teeLine.id, quantity: 5 },
      { id: mugLine.id, quantity: 0 },
    ]);
    expect(quantities.status, JSON.stringify(quantities.body)).toBe(200);
    expect(quantities.body.cart.lineItems.map((l: any) => [l.id, l.quantity])).toEqual([
      [teeLine.id, 5],
      [rustS.id, 1],
    ]);

    // remove-line-items.
    const removed = await cart.remove([rustS.id]);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.cart.lineItems.map((l: any) => l.id)).toEqual([teeLine.id]);

    // remove-coupon with no coupon: nothing to change.
    const noCoupon = await cart.removeCoupon();
    expect(noCoupon.status).toBe(200);
    expect(noCoupon.body.cart.appliedDiscounts).toEqual([]);

    // estimate-totals: the cart and its totals (5 × $25).
    const estimate = await cart.estimate({ calculateShipping: false });
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    expect(estimate.body.cart.id).toBe(c.id);
    expect(estimate.body.priceSummary.subtotal).toMatchObject({ amount: "125.00", formattedAmount: "$125.00" });
    expect(estimate.body.calculatedLineItems).toEqual([expect.objectContaining({ lineItemId: teeLine.id })]);
    expect(estimate.body).toHaveProperty("shippingInfo");
    expect(estimate.body).toHaveProperty("appliedDiscounts");
    expect(estimate.body).toHaveProperty("taxSummary");
    expect(estimate.body).toHaveProperty("additionalFees");
    expect(estimate.body.membershipOptions).toEqual({ eligibleMemberships: [], invalidMemberships: [], selectedMemberships: [] });
    expect(estimate.body.violations.filter((v: any) => v.target?.lineItem)).toEqual([]);

    // create-checkout: a checkout snapshot; the cart points at it; again → the same checkout, updated.
    const checkout = await cart.checkout({ channelType: "WEB", billingAddress: { country: "US", city: "Boston" } });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    expect(Object.keys(checkout.body)).toEqual(["checkoutId"]);
    const row = await env.DB.prepare("SELECT * FROM checkouts WHERE id = ?").bind(checkout.body.checkoutId).first<Record<string, any>>();
    expect(row).toMatchObject({
      cart_id: c.id,
      owner_kind: "visitor",
      owner_id: visitorId,
      status: "OPEN",
      channel_type: "WEB",
      currency: "USD",
      subtotal: 12500,
    });
    expect(JSON.parse(row!.buyer_info)).toEqual({ visitorId, email: "shopper@example.com" });
    expect(JSON.parse(row!.shipping_address)).toMatchObject({ country: "US", city: "New York" });
    expect(JSON.parse(row!.billing_address)).toEqual({ country: "US", city: "Boston" });
    expect(JSON.parse(row!.selected_shipping_option)).toEqual({ code: "standard" });
    const lines = JSON.parse(row!.line_items);
    expect(lines).toEqual([
      {
        lineItem: expect.objectContaining({ id: teeLine.id, quantity: 5 }),
        catalogItemId: tee.id,
        variantId: navyM,
        quantity: 5,
        price: 2500,
        custom: false,
      },
    ]);
    expect(JSON.parse(row!.totals).priceSummary.subtotal.amount).toBe("125.00");
    expect((await cart.get()).body.cart.checkoutId).toBe(checkout.body.checkoutId);
    const second = await cart.checkout({});
    expect(second.body.checkoutId).toBe(checkout.body.checkoutId);

    // DELETE: 200 {}; the cart is gone.
    const deleted = await cart.delete();
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await cart.get()).status).toBe(404);
    expect(await cartRow(c.id)).toBeNull();
    expect(await lineRows(c.id)).toEqual([]);
    expect((await cart.delete()).status).toBe(404);

    // The next add starts a new cart.
    const fresh = await cart.add({ lineItems: [item(mug.id)] });
    expect(fresh.body.cart.id).not.toBe(c.id);
  });
});

describe("who may use the current cart", () => {
  it("needs a visitor's or member's token: anonymous 401, API key 403, unknown token 401", async () => {
    const mug = await createPlain();
    for (const mount of MOUNTS) {
      const calls = [
        (c: ReturnType<typeof cartCalls>) => c.get(),
        (c: ReturnType<typeof cartCalls>) => c.patch({ cartInfo: { buyerNote: "x" } }),
        (c: ReturnType<typeof cartCalls>) => c.delete(),
        (c: ReturnType<typeof cartCalls>) => c.add({ lineItems: [item(mug.id)] }),
        (c: ReturnType<typeof cartCalls>) => c.remove(["x"]),
        (c: ReturnType<typeof cartCalls>) => c.quantities([{ id: "x", quantity: 1 }]),
        (c: ReturnType<typeof cartCalls>) => c.removeCoupon(),
        (c: ReturnType<typeof cartCalls>) => c.checkout(),
        (c: ReturnType<typeof cartCalls>) => c.estimate(),
      ];
      for (const call of calls) {
        const anonymous = await call(cartCalls(undefined, mount));
        expect(anonymous.status).toBe(401);
        expect(anonymous.body.details.applicationError.code).toBe("UNAUTHENTICATED");
        expect(anonymous.headers.get("x-wix-request-id")).toMatch(/^[0-9a-f-]{36}$/);
        const key = await call(cartCalls(OWNER_KEY, mount));
        expect(key.status).toBe(403);
        expect(key.body.details.applicationError.code).toBe("PERMISSION_DENIED");
        expect((await call(cartCalls("at_not-a-token", mount))).status).toBe(401);
      }
    }
    expect(await env.DB.prepare("SELECT count(*) AS n FROM carts WHERE owner_id = 'owner'").first("n")).toBe(0);
  });

  it("one visitor never sees or changes another's cart", async () => {
    const mug = await createPlain();
    const alice = await newVisitor();
    const bob = await newVisitor();
    const a = cartCalls(alice.token);
    const b = cartCalls(bob.token, MOUNTS[1]);
    const aliceCart = (await a.add({ lineItems: [item(mug.id, 2)] })).body.cart;
    const lineId = aliceCart.lineItems[0].id;
    const before = await ownerSnapshot(alice.visitorId);

    expect((await b.get()).status).toBe(404);
    expect((await b.remove([lineId])).status).toBe(404);
    expect((await b.quantities([{ id: lineId, quantity: 9 }])).status).toBe(404);
    expect((await b.delete()).status).toBe(404);
    expect((await b.estimate()).status).toBe(404);
    expect((await b.checkout()).status).toBe(404);
    // Bob's own cart does not know Alice's line either.
    await b.add({ lineItems: [item(mug.id)] });
    const foreign = await b.remove([lineId]);
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.validationError.fieldViolations).toEqual([
      expect.objectContaining({ field: "lineItemIds[0]", description: "is not a line item of this cart" }),
    ]);
    expect((await b.quantities([{ id: lineId, quantity: 9 }])).status).toBe(400);

    expect(await ownerSnapshot(alice.visitorId)).toEqual(before);
    expect((await a.get()).body.cart).toEqual((await a.get()).body.cart);
    expect((await a.get()).body.cart.lineItems[0].quantity).toBe(2);
  });
});

describe("bad input is refused with field violations and changes nothing", () => {
  it("add-to-cart, PATCH, remove-line-items, update-line-items-quantity, create-checkout and estimate-totals", async () => {
    const tee = await createTee();
    const mug = await createPlain();
    const { token, visitorId } = await newVisitor();
    const cart = cartCalls(token, MOUNTS[1]);

    // Without a cart, the calls that need one are 404 and create nothing.
    for (const res of [
      await cart.remove(["x"]),
      await cart.quantities([{ id: "x", quantity: 1 }]),
      await cart.removeCoupon(),
      await cart.checkout(),
      await cart.estimate(),
    ]) {
      expect(res.status).toBe(404);
    }
    // A refused first add creates no cart either.
    expect((await cart.add({ lineItems: [item("no-such-product")] })).status).toBe(400);
    expect(await ownerSnapshot(visitorId)).toEqual({ cartRows: [], lines: [], events: [], checkoutRows: [] });

    const created = await cart.add({ lineItems: [item(mug.id, 2)] });
    const lineId = created.body.cart.lineItems[0].id;
    const before = await ownerSnapshot(visitorId);

    const refused: [string, () => Promise<{ status: number; body: any }>, string[]][] = [
      ["unknown product", () => cart.add({ lineItems: [item("no-such-product")] }), ["lineItems[0].catalogReference.catalogItemId"]],
      [
        "unknown variant",
        () => cart.add({ lineItems: [item(tee.id, 1, { variantId: "nope" })] }),
        ["lineItems[0].catalogReference.options.variantId"],
      ],
      [
        "unknown option",
        () => cart.add({ lineItems: [item(tee.id, 1, { options: { Size: "M", Colour: "Navy" } })] }),
        ["lineItems[0].catalogReference.options", "lineItems[0].catalogReference.options.options.Colour"],
      ],
      [
        "unknown choice",
        () => cart.add({ lineItems: [item(tee.id, 1, { options: { Size: "XXL", Color: "Navy" } })] }),
        ["lineItems[0].catalogReference.options.options.Size"],
      ],
      ["missing option", () => cart.add({ lineItems: [item(tee.id, 1, { options: { Size: "M" } })] }), ["lineItems[0].catalogReference.options"]],
      ["no options at all", () => cart.add({ lineItems: [item(tee.id, 1)] }), ["lineItems[0].catalogReference.options"]],
      [
        "options on a plain product",
        () => cart.add({ lineItems: [item(mug.id, 1, { options: { Size: "M" } })] }),
        ["lineItems[0].catalogReference.options.options"],
      ],
      [
        "another catalogue",
        () => cart.add({ lineItems: [{ catalogReference: { appId: "13d21c63-b5ec-5912-8397-c3a5ddb27a97", catalogItemId: mug.id }, quantity: 1 }] }),
        ["lineItems[0].catalogReference.appId"],
      ],
      ["quantity 0", () => cart.add({ lineItems: [item(mug.id, 0)] }), ["lineItems[0].quantity"]],
      ["quantity 10000", () => cart.add({ lineItems: [item(mug.id, 10_000)] }), ["lineItems[0].quantity"]],
      ["fractional quantity", () => cart.add({ lineItems: [item(mug.id, 1.5)] }), ["lineItems[0].quantity"]],
      ["quantity as text", () => cart.add({ lineItems: [{ ...item(mug.id), quantity: "2" }] }), ["lineItems[0].quantity"]],
      ["merged past 9999", () => cart.add({ lineItems: [item(mug.id, 9998)] }), ["lineItems[0].quantity"]],
      ["nothing to add", () => cart.add({}), ["lineItems"]],
      ["empty list", () => cart.add({ lineItems: [] }), ["lineItems"]],
      ["over 100 in one call", () => cart.add({ lineItems: Array.from({ length: 101 }, () => item(mug.id)) }), ["lineItems"]],
      [
        "missing catalogItemId",
        () => cart.add({ lineItems: [{ catalogReference: { appId: STORES }, quantity: 1 }] }),
        ["lineItems[0].catalogReference.catalogItemId"],
      ],
      ["bad email", () => cart.patch({ cartInfo: { buyerInfo: { email: "not-an-email" } } }), ["cartInfo.buyerInfo.email"]],
      ["bad country", () => cart.patch({ cartInfo: { contactInfo: { address: { country: "USA" } } } }), ["cartInfo.contactInfo.address.country"]],
      ["unknown mask path", () => cart.patch({ cartInfo: { buyerNote: "x" }, cartFieldmask: "buyerNote,lineItems" }), ["cartFieldmask.paths[1]"]],
      ["empty coupon", () => cart.patch({ couponCode: "" }), ["couponCode"]],
      [
        "bad line in PATCH",
        () => cart.patch({ cartInfo: { buyerNote: "x" }, lineItems: [item("no-such-product")] }),
        ["lineItems[0].catalogReference.catalogItemId"],
      ],
      ["no ids", () => cart.remove([]), ["lineItemIds"]],
      ["unknown id", () => cart.remove([lineId, "nope"]), ["lineItemIds[1]"]],
      ["ids not a list", () => cart.remove("nope"), ["lineItemIds"]],
      ["negative quantity", () => cart.quantities([{ id: lineId, quantity: -1 }]), ["lineItems[0].quantity"]],
      ["unknown line", () => cart.quantities([{ id: "nope", quantity: 1 }]), ["lineItems[0].id"]],
      [
        "the same line twice",
        () =>
          cart.quantities([
            { id: lineId, quantity: 1 },
            { id: lineId, quantity: 3 },
          ]),
        ["lineItems[1].id"],
      ],
      ["no lines", () => cart.quantities([]), ["lineItems"]],
      ["bad channel", () => cart.checkout({ channelType: "PIGEON" }), ["channelType"]],
      ["bad checkout email", () => cart.checkout({ email: "nope" }), ["email"]],
      ["flag as text", () => cart.estimate({ calculateTax: "yes" }), ["calculateTax"]],
      ["bad shipping option", () => cart.estimate({ selectedShippingOption: { code: "" } }), ["selectedShippingOption.code"]],
    ];
    for (const [what, call, fields] of refused) {
      const res = await call();
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(
        res.body.details.validationError.fieldViolations.map((v: any) => v.field),
        what,
      ).toEqual(fields);
      for (const v of res.body.details.validationError.fieldViolations) expect(v.data, what).toEqual(expect.any(Object));
      expect(res.body.message, what).toMatch(/^INVALID_ARGUMENT: "/);
    }

    // Malformed JSON and custom prices from a visitor.
    expect((await api("POST", `${MOUNTS[1]}/add-to-cart`, { key: token, rawBody: "{nope" })).status).toBe(400);
    const custom = await cart.add({ customLineItems: [{ quantity: 1, price: "1.00", productName: { original: "Free money" } }] });
    expect(custom.status).toBe(403);
    expect((await cart.patch({ merchantDiscounts: [{ amount: "5.00" }] })).status).toBe(403);

    expect(await ownerSnapshot(visitorId)).toEqual(before);
  });

  it("a cart holds at most 300 line items", async () => {
    // 20 × 16 = 320 variants (untracked stock).
    const big = await (await import("../helpers")).createProduct({
      name: `Cart Grid ${crypto.randomUUID().slice(0, 6)}`,
      priceData: { price: 1 },
      productOptions: [
        { name: "Row", choices: Array.from({ length: 20 }, (_, i) => ({ value: `R${i}` })) },
        { name: "Col", choices: Array.from({ length: 16 }, (_, i) => ({ value: `C${i}` })) },
      ],
    });
    const { token, visitorId } = await newVisitor();
    const cart = cartCalls(token);
    const refs = big.variants.map((v: any) => item(big.id, 1, { variantId: v.id }));
    for (let i = 0; i < 300; i += 100) {
      const res = await cart.add({ lineItems: refs.slice(i, i + 100) });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    }
    expect((await cart.get()).body.cart.lineItems).toHaveLength(300);
    const before = await ownerSnapshot(visitorId);
    const over = await cart.add({ lineItems: [refs[300]] });
    expect(over.status).toBe(400);
    expect(over.body.details.validationError.fieldViolations).toEqual([expect.objectContaining({ field: "lineItems", violatedRule: "MAX_SIZE" })]);
    // More of an item already there is fine.
    expect((await cart.add({ lineItems: [refs[0]] })).status).toBe(200);
    const after = await ownerSnapshot(visitorId);
    expect(after.lines).toHaveLength(300);
    expect(before.lines).toHaveLength(300);
  });
});

describe("availability and prices come from the catalogue on every read", () => {
  it("sold out, fewer in stock than asked, hidden and deleted products", async () => {
    const tee = await createTee({ quantity: 5 });
    const gone = await createPlain(4);
    const hidden = await createPlain(6);
    const { token } = await newVisitor();
    const cart = cartCalls(token);
    const res = await cart.add({
      lineItems: [
        item(tee.id, 3, { options: { Size: "S", Color: "Navy" } }),
        item(tee.id, 4, { options: { Size: "M", Color: "Navy" } }),
        item(gone.id, 1),
        item(hidden.id, 2),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [soldOut, partial, deleted, hiddenLine] = res.body.cart.lineItems;

    await setVariantStock(tee.id, { Size: "S", Color: "Navy" }, 0);
    await setVariantStock(tee.id, { Size: "M", Color: "Navy" }, 2);
    expect((await merchant("DELETE", `/v1/products/${gone.id}`)).status).toBe(200);
    expect((await merchant("PATCH", `/v1/products/${hidden.id}`, { product: { visible: false } })).status).toBe(200);

    const read = (await cart.get()).body.cart;
    const byId = new Map(read.lineItems.map((l: any) => [l.id, l]));
    expect(byId.get(soldOut.id)).toMatchObject({ availability: { status: "NOT_AVAILABLE", quantityAvailable: 0 }, quantity: 3 });
    expect(byId.get(partial.id)).toMatchObject({ availability: { status: "PARTIALLY_AVAILABLE", quantityAvailable: 2 }, quantity: 4 });
    // A deleted product still shows what the shopper last saw.
    expect(byId.get(deleted.id)).toMatchObject({
      availability: { status: "NOT_FOUND" },
      productName: { original: gone.name },
      price: { amount: "4.00" },
      quantity: 1,
    });
    expect(byId.get(hiddenLine.id)).toMatchObject({ availability: { status: "NOT_FOUND" }, productName: { original: hidden.name } });

    // estimate-totals: errors (remove the line) for gone and sold-out items, a warning for the short one; only
    // what can be bought is priced (4 × $25).
    const estimate = await cart.estimate({ calculateShipping: false });
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    const lineViolations = estimate.body.violations.filter((v: any) => v.target?.lineItem);
    expect(lineViolations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: "ERROR",
          target: { lineItem: { id: soldOut.id, name: "LINE_ITEM_DEFAULT" } },
          suggestedFix: "REMOVE_LINE_ITEM",
        }),
        expect.objectContaining({
          severity: "ERROR",
          target: { lineItem: { id: deleted.id, name: "LINE_ITEM_DEFAULT" } },
          suggestedFix: "REMOVE_LINE_ITEM",
        }),
        expect.objectContaining({
          severity: "ERROR",
          target: { lineItem: { id: hiddenLine.id, name: "LINE_ITEM_DEFAULT" } },
          suggestedFix: "REMOVE_LINE_ITEM",
        }),
        expect.objectContaining({ severity: "WARNING", target: { lineItem: { id: partial.id, name: "LINE_ITEM_DEFAULT" } } }),
      ]),
    );
    expect(lineViolations).toHaveLength(4);
    expect(estimate.body.priceSummary.subtotal.amount).toBe("100.00");

    // Checkout is refused, naming the items.
    const checkout = await cart.checkout();
    expect(checkout.status).toBe(400);
    expect(checkout.body.details.applicationError.code).toBe("LINE_ITEMS_NOT_AVAILABLE");
    expect(checkout.body.details.applicationError.data.lineItems.map((l: any) => l.id).sort()).toEqual(
      [soldOut.id, partial.id, deleted.id, hiddenLine.id].sort(),
    );

    // Asking for more than is in stock is refused; lowering a short line is fine.
    const more = await cart.quantities([{ id: partial.id, quantity: 5 }]);
    expect(more.status).toBe(400);
    expect(more.body.details.validationError.fieldViolations).toEqual([
      expect.objectContaining({ field: "lineItems[0].quantity", violatedRule: "MAX", data: { lineItemId: partial.id, quantityAvailable: 2 } }),
    ]);
    expect(
      (await cart.add({ lineItems: [item(tee.id, 1, { options: { Size: "S", Color: "Navy" } })] })).body.details.validationError.fieldViolations,
    ).toEqual([expect.objectContaining({ field: "lineItems[0].quantity", data: { lineItemId: soldOut.id, quantityAvailable: 0 } })]);
    expect((await cart.add({ lineItems: [item(tee.id, 4, { options: { Size: "L", Color: "Rust" } })] })).status).toBe(200);
    expect((await cart.add({ lineItems: [item(tee.id, 2, { options: { Size: "L", Color: "Rust" } })] })).status).toBe(400);
    const lower = await cart.quantities([{ id: partial.id, quantity: 3 }]);
    expect(lower.status).toBe(200);
    expect(lower.body.cart.lineItems.find((l: any) => l.id === partial.id).availability).toEqual({
      status: "PARTIALLY_AVAILABLE",
      quantityAvailable: 2,
    });

    // Removing what cannot be bought makes the cart checkout-ready again.
    await cart.remove([soldOut.id, deleted.id, hiddenLine.id]);
    await cart.quantities([{ id: partial.id, quantity: 2 }]);
    expect((await cart.checkout()).status).toBe(200);
  });

  it("preorder (inventory settings) lets a sold-out item be bought up to its limit", async () => {
    const mug = await createPlain(9, { stock: { trackInventory: true, quantity: 0 } });
    const { token } = await newVisitor();
    const cart = cartCalls(token);
    const refused = await cart.add({ lineItems: [item(mug.id, 1)] });
    expect(refused.status).toBe(400);
    const preorder = await merchant("PATCH", `/stores/v2/inventoryItems/product/${mug.id}`, {
      inventoryItem: { preorderInfo: { enabled: true, limit: 3 } },
    });
    expect(preorder.status, JSON.stringify(preorder.body)).toBe(200);
    const added = await cart.add({ lineItems: [item(mug.id, 2)] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.cart.lineItems[0].availability).toEqual({ status: "AVAILABLE", quantityAvailable: 3 });
    expect((await cart.add({ lineItems: [item(mug.id, 2)] })).status).toBe(400);
  });

  it("a price change by the merchant shows at once; the stored snapshot follows on the next change", async () => {
    const tee = await createTee({ price: 20 });
    const { token } = await newVisitor();
    const cart = cartCalls(token);
    const added = (await cart.add({ lineItems: [item(tee.id, 2, { options: { Size: "L", Color: "Rust" } })] })).body.cart;
    const lineId = added.lineItems[0].id;
    expect((await lineRows(added.id))[0]).toMatchObject({ price: 2000, full_price: 2000 });

    expect(
      (
        await merchant("PATCH", `/v1/products/${tee.id}`, {
          product: { priceData: { price: 30 }, discount: { type: "PERCENT", value: 10 }, name: "Renamed Tee" },
        })
      ).status,
    ).toBe(200);
    const read = (await cart.get()).body.cart.lineItems[0];
    expect(read).toMatchObject({
      price: { amount: "27.00" },
      fullPrice: { amount: "30.00" },
      priceBeforeDiscounts: { amount: "27.00" },
      lineItemPrice: { amount: "54.00" },
      productName: { original: "Renamed Tee" },
    });
    // A read writes nothing.
    expect((await lineRows(added.id))[0]).toMatchObject({ price: 2000, full_price: 2000 });

    // A variant's own price wins over the product's.
    await merchant("PATCH", `/v1/products/${tee.id}/variants`, { variants: [{ choices: { Size: "L", Color: "Rust" }, price: 40 }] });
    expect((await cart.get()).body.cart.lineItems[0]).toMatchObject({ price: { amount: "36.00" }, fullPrice: { amount: "40.00" } });

    await cart.quantities([{ id: lineId, quantity: 1 }]);
    expect((await lineRows(added.id))[0]).toMatchObject({ price: 3600, full_price: 4000, quantity: 1 });
    expect(JSON.parse((await lineRows(added.id))[0].snapshot).productName).toBe("Renamed Tee");
  });
});

describe("coupons", () => {
  it("PATCH couponCode applies a coupon the pricing knows; an unknown code is refused; remove-coupon clears it", async () => {
    const mug = await createPlain(20);
    const code = `CART${crypto.randomUUID().slice(0, 6).toUpperCase()}`;
    expect((await merchant("POST", "/api/v1/coupons", { coupon: { code, name: "A fifth off", percentOffRate: 20 } })).status).toBe(200);
    const { token, visitorId } = await newVisitor();
    for (const mount of MOUNTS) {
      const cart = cartCalls(token, mount);
      await cart.add({ lineItems: [item(mug.id)] });
      const before = await ownerSnapshot(visitorId);
      const unknown = await cart.patch({ couponCode: "NOPE-NOPE" });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details.applicationError).toMatchObject({ code: "COUPON_DOES_NOT_EXIST", data: { couponCode: "NOPE-NOPE" } });
      expect(await ownerSnapshot(visitorId)).toEqual(before);

      const applied = await cart.patch({ couponCode: code.toLowerCase() });
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      expect(applied.body.cart.appliedDiscounts).toEqual([{ coupon: { code: code.toLowerCase() } }]);
      const estimate = await cart.estimate({ calculateShipping: false, calculateTax: false });
      expect(estimate.body.priceSummary).toMatchObject({ subtotal: { amount: "20.00" }, discount: { amount: "4.00" }, total: { amount: "16.00" } });
      expect(estimate.body.appliedDiscounts).toEqual([
        expect.objectContaining({ discountType: "GLOBAL", coupon: expect.objectContaining({ code }) }),
      ]);

      const removed = await cart.removeCoupon();
      expect(removed.status).toBe(200);
      expect(removed.body.cart.appliedDiscounts).toEqual([]);
      expect((await cart.estimate({ calculateShipping: false, calculateTax: false })).body.priceSummary.discount.amount).toBe("0.00");
      await cart.delete();
    }
  });
});

describe("D1 round trips", () => {
  it("a read is one round trip; a change is two", async () => {
    const mug = await createPlain(20);
    const { token } = await newVisitor();
    const cart = cartCalls(token);
    const added = await cart.add({ lineItems: [item(mug.id)] });
    expect(roundTrips(added.headers)).toBe(2);
    expect(roundTrips((await cart.get()).headers)).toBe(1);
    expect(roundTrips((await cart.quantities([{ id: added.body.cart.lineItems[0].id, quantity: 2 }])).headers)).toBe(2);
    // estimate-totals: the cart, then the pricing's reads.
    expect(roundTrips((await cart.estimate()).headers)).toBe(2);
  });
});

describe("cart events", () => {
  afterEach(() => resetClock());

  it("created, updated and deleted go to the outbox with the change; lastActivity follows every change", async () => {
    const mug = await createPlain(3);
    const { token, visitorId } = await newVisitor();
    const cart = cartCalls(token);
    const created = (await cart.add({ lineItems: [item(mug.id)] })).body.cart;
    const first = await cartRow(created.id);
    expect(first).toMatchObject({ status: "ACTIVE", owner_kind: "visitor", owner_id: visitorId, revision: 1 });
    expect(first!.last_activity).toBe(created.updatedDate);

    // A later moment, set rather than waited for.
    advanceClock(5);
    const updated = (await cart.quantities([{ id: created.lineItems[0].id, quantity: 4 }])).body.cart;
    const second = await cartRow(created.id);
    expect(second!.revision).toBe(2);
    expect(second!.last_activity > first!.last_activity).toBe(true);
    expect(updated.updatedDate).toBe(second!.updated_date);

    // A refused change and a change that changes nothing write no event.
    await cart.quantities([{ id: "nope", quantity: 1 }]);
    await cart.removeCoupon();
    await cart.get();
    expect((await cartRow(created.id))!.revision).toBe(2);

    expect((await cart.delete()).status).toBe(200);
    const events = await outboxRows(created.id);
    expect(events.map((e) => e.type)).toEqual(["wix.ecom.v1.cart_created", "wix.ecom.v1.cart_updated", "wix.ecom.v1.cart_deleted"]);
    expect(events[0]).toMatchObject({ actor_type: "ANONYMOUS_VISITOR", actor_id: visitorId });
    expect(events[0].data).toMatchObject({
      entityId: created.id,
      entityFqdn: "wix.ecom.v1.cart",
      slug: "created",
      createdEvent: { entity: { id: created.id, lineItems: [{ quantity: 1 }] } },
    });
    expect(events[1].data).toMatchObject({
      entityId: created.id,
      slug: "updated",
      updatedEvent: { currentEntity: { id: created.id, lineItems: [{ quantity: 4 }] } },
    });
    expect(events[2].data).toEqual({ entityId: created.id, entityFqdn: "wix.ecom.v1.cart", slug: "deleted", deletedEvent: {} });
  });

  it("two adds at once for a new visitor make one cart holding both", async () => {
    const mug = await createPlain();
    const cup = await createPlain();
    const { token, visitorId } = await newVisitor();
    const cart = cartCalls(token);
    const [a, b] = await Promise.all([cart.add({ lineItems: [item(mug.id, 2)] }), cart.add({ lineItems: [item(cup.id, 3)] })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const rows = (await env.DB.prepare("SELECT id FROM carts WHERE owner_id = ?").bind(visitorId).all()).results;
    expect(rows).toHaveLength(1);
    const lines = (await cart.get()).body.cart.lineItems.map((l: any) => [l.catalogReference.catalogItemId, l.quantity]);
    expect(lines.sort()).toEqual(
      [
        [cup.id, 3],
        [mug.id, 2],
      ].sort(),
    );
  });
});

describe("custom line items and merchant discounts", () => {
  it("the store's staff may add custom line items with their own price", async () => {
    // The owner is a member with role OWNER: mint a member token for an owner identity.
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    await env.DB.prepare("INSERT INTO identities (id, email, status, role, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'OWNER', ?, ?)")
      .bind(id, `owner-${id}@example.com`, now, now)
      .run();
    const { issueTokens } = await import("#worker/identity/tokens");
    const tokens = await issueTokens(env, { role: "member", clientId: "test-client-id", visitorId: crypto.randomUUID(), identityId: id });
    const cart = cartCalls(tokens.access_token);
    const res = await cart.add({
      customLineItems: [
        {
          quantity: 2,
          price: "12.5",
          fullPrice: "15",
          productName: { original: "Gift wrapping" },
          descriptionLines: [{ name: { original: "Paper" }, plainText: { original: "Gold" } }],
          itemType: { preset: "SERVICE" },
          media: { url: "https://images.example/wrap.png", width: 100, height: 100 },
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.cart.buyerInfo).toEqual({ memberId: id });
    expect(res.body.cart.lineItems[0]).toMatchObject({
      quantity: 2,
      customLineItem: true,
      productName: { original: "Gift wrapping" },
      price: { amount: "12.50" },
      fullPrice: { amount: "15.00" },
      lineItemPrice: { amount: "25.00" },
      itemType: { preset: "SERVICE" },
      availability: { status: "AVAILABLE" },
      image: { url: "https://images.example/wrap.png", width: 100, height: 100 },
    });
    const discounted = await cart.patch({ merchantDiscounts: [{ amount: "5.00" }] });
    expect(discounted.status, JSON.stringify(discounted.body)).toBe(200);
    expect(discounted.body.cart.appliedDiscounts).toEqual([{ merchantDiscount: { amount: expect.objectContaining({ amount: "5.00" }) } }]);
    const estimate = await cart.estimate({ calculateShipping: false, calculateTax: false });
    expect(estimate.body.priceSummary).toMatchObject({ subtotal: { amount: "25.00" }, discount: { amount: "5.00" }, total: { amount: "20.00" } });
    // A member's checkout carries their email from their identity.
    const checkout = await cart.checkout();
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    const row = await env.DB.prepare("SELECT buyer_info, owner_kind, total FROM checkouts WHERE id = ?")
      .bind(checkout.body.checkoutId)
      .first<Record<string, any>>();
    expect(JSON.parse(row!.buyer_info)).toEqual({ memberId: id, email: `owner-${id}@example.com` });
    expect(row).toMatchObject({ owner_kind: "member", total: 2000 });
  });

  it("an order placed from the cart completes it (completeCartStatements, for the order flow)", async () => {
    const mug = await createPlain(2);
    const { token, visitorId } = await newVisitor();
    const cart = cartCalls(token);
    const created = (await cart.add({ lineItems: [item(mug.id)] })).body.cart;
    const { completeCartStatements } = await import("#worker/cart/cart");
    const { openDb } = await import("#worker/platform/db");
    const ctx = {
      db: openDb(env.DB),
      env,
      auth: { kind: "visitor", visitorId, clientId: "test-client-id" },
      currency: "USD",
      origin: "https://shop.test",
      waitUntil: () => {},
    } as any;
    const done = completeCartStatements(ctx, created.id, "order-1");
    await ctx.db.batch(done.statements);
    expect(await cartRow(created.id)).toMatchObject({ status: "COMPLETED", revision: 2 });
    expect((await cart.get()).status).toBe(404);
    expect((await outboxRows(created.id)).at(-1)).toMatchObject({ type: "wix.ecom.v1.cart_deleted", data: { completedByOrderId: "order-1" } });
    // Again: nothing changes, no second event.
    await ctx.db.batch(completeCartStatements(ctx, created.id, "order-1").statements);
    expect((await outboxRows(created.id)).filter((e) => e.type === "wix.ecom.v1.cart_deleted")).toHaveLength(1);
    expect((await cart.add({ lineItems: [item(mug.id)] })).body.cart.id).not.toBe(created.id);
  });
});
