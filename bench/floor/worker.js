// The data-mode floor: a bare Worker the benchmarks compare the shop with (bench/floor/start.mjs starts it). Plain
// JavaScript with createElement, so wrangler bundles it with no build of its own.
//
// - PUT /json/:name (body: bytes) keeps the bytes; GET /json/:name answers them as JSON: a bare Hono route.
// - PUT /page/:name?bytes=N prepares a page; GET /page/:name renders it with React Router in data mode and the
//   shop's renderer (react-dom's Node build): as many product cards as fit, padded to exactly N bytes.
// - POST /events (body: JSON) sends the body to a queue whose consumer makes one D1 write per message; GET
//   /events/count answers how many were written: the floor of the shop's events, from webhook to applied effect.
// wrangler dev runs one isolate, so what a PUT stored is there for every later GET.
import { Hono } from "hono";
import { createContext, createElement as h, useContext } from "react";
import { renderToReadableStream } from "react-dom/server.node";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, useLoaderData } from "react-router";

const json = new Map();
/** name -> { items: its product cards, padding: text making the page exactly its size } */
const pages = new Map();

// What a listing loader returns: product cards, like a collection page's grid. A page gets as many cards as fit
// in its size (each rendered and serialised into the hydration data, as a real page's loader data is), and the few
// bytes left over as padding text.
const item = (i) => ({
  id: `p${i}`,
  name: `Product ${i + 1}`,
  href: `/products/product-${i + 1}`,
  price: `$${(10 + i * 1.5).toFixed(2)}`,
  image: `/media/${"0".repeat(60)}${String(i).padStart(4, "0")}.webp`,
});

// The padding of the page being rendered: context, not loader data, so it is not also serialised into the
// hydration script and one adjustment makes the size exact.
const Padding = createContext("");

function Page() {
  const padding = useContext(Padding);
  const { title, items } = useLoaderData();
  return h(
    "main",
    null,
    h("h1", null, title),
    h(
      "ul",
      { className: "grid" },
      items.map((p) =>
        h(
          "li",
          { key: p.id },
          h("a", { href: p.href }, h("img", { src: p.image, alt: "", width: 400, height: 400 }), h("h2", null, p.name), h("p", null, p.price)),
        ),
      ),
    ),
    h("p", null, padding),
  );
}

const handler = createStaticHandler([
  {
    id: "page",
    path: "/page/:name",
    loader: ({ params }) => ({ title: params.name, items: pages.get(params.name)?.items ?? [] }),
    Component: Page,
  },
]);

async function render(request, padding) {
  const context = await handler.query(request);
  if (context instanceof Response) return context;
  const router = createStaticRouter(handler.dataRoutes, context);
  const stream = await renderToReadableStream(
    h(
      "html",
      { lang: "en" },
      h("head", null, h("meta", { charSet: "utf-8" }), h("title", null, "Floor")),
      h("body", null, h(Padding.Provider, { value: padding }, h(StaticRouterProvider, { router, context }))),
    ),
  );
  await stream.allReady;
  return new Response(stream, { status: context.statusCode, headers: { "content-type": "text/html; charset=utf-8" } });
}

const app = new Hono();
app.put("/json/:name", async (c) => {
  json.set(c.req.param("name"), new Uint8Array(await c.req.arrayBuffer()));
  return c.json({ ok: true });
});
app.get("/json/:name", (c) => {
  const body = json.get(c.req.param("name"));
  return body ? c.body(body, 200, { "content-type": "application/json" }) : c.notFound();
});
app.put("/page/:name", async (c) => {
  const name = c.req.param("name");
  const target = Number(c.req.query("bytes"));
  const probe = new Request(new URL(`/page/${name}`, c.req.url));
  const size = async (items, padding) => {
    pages.set(name, { items, padding });
    return (await (await render(probe, padding)).arrayBuffer()).byteLength;
  };
  // The size of an empty page and of one card, then as many cards as fit, then ASCII padding (one byte a
  // character, nothing escaped) up to the exact size.
  const empty = await size([], "");
  const perCard = (await size([item(0), item(1)], "")) / 2 - empty / 2;
  const items = Array.from({ length: Math.max(0, Math.floor((target - empty) / perCard) - 2) }, (_, i) => item(i));
  const unpadded = await size(items, "");
  const bytes = await size(items, "x".repeat(Math.max(0, target - unpadded)));
  return c.json({ bytes, cards: items.length });
});
app.get("/page/:name", (c) => {
  const page = pages.get(c.req.param("name"));
  return page === undefined ? c.notFound() : render(c.req.raw, page.padding);
});

app.post("/events", async (c) => {
  await c.env.EVENTS.send(await c.req.json(), { contentType: "json" });
  return c.json({ queued: true }, 202);
});
app.get("/events/count", async (c) => {
  await c.env.DB.prepare("CREATE TABLE IF NOT EXISTS applied (id TEXT PRIMARY KEY, body TEXT)").run();
  return c.json({ applied: await c.env.DB.prepare("SELECT count(*) AS n FROM applied").first("n") });
});

export default {
  fetch: app.fetch,
  /** One D1 write per message, acknowledged one by one, as the shop's consumer handles its events. */
  async queue(batch, env) {
    await env.DB.prepare("CREATE TABLE IF NOT EXISTS applied (id TEXT PRIMARY KEY, body TEXT)").run();
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT OR IGNORE INTO applied (id, body) VALUES (?, ?)").bind(message.id, JSON.stringify(message.body)).run();
      message.ack();
    }
  },
};
