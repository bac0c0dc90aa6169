import { sql } from "drizzle-orm";
import type { Statement } from "#worker/events";
import { descriptionToRich } from "#worker/catalog";
import { nowIso, type Ctx } from "#worker/platform/context";
import { rawStatement } from "#worker/platform/db";
import { newId } from "#worker/platform/ids";
import { MENUS, PAGES } from "./collections";

/** The demo shop's content pages (bodies in Markdown, stored as rich content like every page). */
const DEMO_PAGES = [
  {
    slug: "about",
    title: "About",
    seoDescription: "Who we are: a small independent shop for apparel, home goods and coffee.",
    body: `We are a small independent shop selling apparel, home goods and coffee that we use ourselves.

Everything we sell is chosen for how long it lasts. We would rather sell you one good thing than three you replace.

Questions about an order or a product? Write to us and a person will answer within one working day.`,
  },
  {
    slug: "shipping-and-returns",
    title: "Shipping and returns",
    seoDescription: "Delivery times, shipping costs and how to return an order within 30 days.",
    body: `## Shipping

- Orders placed before 2 pm ship the same working day.
- Shipping is **free on orders over $75**; below that it is a flat rate shown at checkout.
- You can also pick your order up from the shop.

## Returns

You can return anything unused within **30 days** of delivery. Write to us with your order number and we will send
a return label. Refunds go back to the original payment method within five working days of the return arriving.`,
  },
  {
    slug: "privacy",
    title: "Privacy",
    seoDescription: "What we collect when you shop with us, why, and how to have it removed.",
    body: `We collect what we need to deliver your order: your name, email, address and what you bought.

- We never sell your data.
- Payments are handled by our payment provider; we never see your full card number.
- Ask us at any time to see or delete what we hold about you.`,
  },
  {
    slug: "terms",
    title: "Terms",
    seoDescription: "The terms of sale for orders placed in this shop.",
    body: `By placing an order you agree to these terms.

1. Prices include the taxes shown at checkout.
2. An order is accepted once it is paid (or, for offline payment, once we confirm it).
3. Our liability is limited to the price of the order.`,
  },
];

/** The demo's menus: the shop's header and footer, and the header a headless site built on the Wix template reads. */
const DEMO_MENUS = [
  { slug: "header-menu", title: "Header", collections: ["t-shirts", "shoes", "home", "coffee"], pages: ["about", "shipping-and-returns"] },
  { slug: "footer-menu", title: "Footer", collections: [], pages: ["about", "shipping-and-returns", "privacy", "terms"] },
  { slug: "next-js-frontend-header-menu", title: "Headless site header", collections: [], pages: ["about", "shipping-and-returns"] },
  {
    slug: "next-js-frontend-footer-menu",
    title: "Headless site footer",
    collections: [],
    pages: ["about", "shipping-and-returns", "privacy", "terms"],
  },
];

/**
 * The statements that add the demo pages and menus (for the demo catalogue's batch). A page or menu whose slug the
 * merchant already uses is left as it is; a menu lists the pages by slug, resolved when the batch runs.
 */
export function demoContentStatements(ctx: Ctx): Statement[] {
  const now = nowIso();
  const pages = DEMO_PAGES.map((p) => {
    const data = { content: descriptionToRich(p.body), seoTitle: "", seoDescription: p.seoDescription };
    return rawStatement(
      ctx.db,
      sql`INSERT INTO cms_items (id, collection_id, slug, title, data, created_date, updated_date)
        VALUES (${newId()}, ${PAGES}, ${p.slug}, ${p.title}, ${JSON.stringify(data)}, ${now}, ${now}) ON CONFLICT DO NOTHING`,
    );
  });
  // The links: the collections (by slug, those that exist), then the pages; `pages` repeats the pages' ids.
  const menus = DEMO_MENUS.map((m) =>
    rawStatement(
      ctx.db,
      sql`WITH wanted(pos, kind, id) AS (
          SELECT w.key, 'COLLECTION', c.id FROM json_each(${JSON.stringify(m.collections)}) w JOIN collections c ON c.slug = w.value
          UNION ALL
          SELECT 1000 + w.key, 'PAGE', p.id FROM json_each(${JSON.stringify(m.pages)}) w JOIN cms_items p ON p.collection_id = ${PAGES} AND p.slug = w.value
        )
        INSERT INTO cms_items (id, collection_id, slug, title, data, created_date, updated_date)
        SELECT ${newId()}, ${MENUS}, ${m.slug}, ${m.title},
          json_object(
            'pages', (SELECT json_group_array(id) FROM (SELECT id FROM wanted WHERE kind = 'PAGE' ORDER BY pos)),
            'links', (SELECT json_group_array(json(link)) FROM (SELECT CASE kind WHEN 'PAGE' THEN json_object('type', 'PAGE', 'page', id)
              ELSE json_object('type', 'COLLECTION', 'collection', id) END AS link FROM wanted ORDER BY pos))),
          ${now}, ${now}
        WHERE 1 ON CONFLICT DO NOTHING`,
    ),
  );
  return [...pages, ...menus];
}
