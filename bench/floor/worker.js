// The runtime floor the benchmarks compare the shop with (bench/floor/start.mjs starts it with wrangler dev).
// Plain JavaScript with createElement, so it needs no build step of its own: wrangler bundles it as it is.
//
// - PUT /json/:name (body: bytes) keeps the bytes in this isolate's memory; GET /json/:name answers them with
//   Content-Type application/json: a bare Hono route serving exactly the shop's answer.
// - PUT /page/:name?bytes=N prepares a page; GET /page/:name renders it with React Router (data mode:
//   createStaticHandler, a loader, StaticRouterProvider with its hydration data) and react-dom/server's
//   renderToReadableStream, padded to exactly N bytes of HTML. Framework mode would need a second Vite build;
//   data mode runs the same router, loader and renderer per request.
// wrangler dev runs one isolate, so what a PUT stored is there for every later GET.
import { Hono } from "hono";
import { createContext, createElement as h, useContext } from "react";
import { renderToReadableStream } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, useLoaderData } from "react-router";

const json = new Map();
/** name -> { bytes: target size, padding: text making the page exactly that size } */
const pages = new Map();

// What a listing loader returns: 20 product cards, like a collection page's grid.
const ITEMS = Array.from({ length: 20 }, (_, i) => ({
  id: `p${i}`,
  name: `Product ${i + 1}`,
  href: `/products/product-${i + 1}`,
  price: `$${(10 + i * 1.5).toFixed(2)}`,
  image: `/media/${"0".repeat(60)}${String(i).padStart(4, "0")}.webp`,
}));

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
        h("li", { key: p.id }, h("a", { href: p.href }, h("img", { src: p.image, alt: "", width: 400, height: 400 }), h("h2", null, p.name), h("p", null, p.price))),
      ),
    ),
    h("p", null, padding),
  );
}

const handler = createStaticHandler([
  {
    id: "page",
    path: "/page/:name",
    loader: ({ params }) => ({ title: params.name, items: ITEMS }),
    Component: Page,
  },
]);

async function render(request, padding) {
  const context = await handler.query(request);
  if (context instanceof Response) return context;
  const router = createStaticRouter(handler.dataRoutes, context);
  const stream = await renderToReadableStream(
    h("html", { lang: "en" }, h("head", null, h("meta", { charSet: "utf-8" }), h("title", null, "Floor")), h("body", null, h(Padding.Provider, { value: padding }, h(StaticRouterProvider, { router, context })))),
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
  // Render once unpadded, then pad with ASCII (one byte a character, nothing escaped) to the target size.
  const unpadded = (await (await render(probe, "")).arrayBuffer()).byteLength;
  const padding = "x".repeat(Math.max(0, target - unpadded));
  pages.set(name, padding);
  const bytes = (await (await render(probe, padding)).arrayBuffer()).byteLength;
  return c.json({ bytes });
});
app.get("/page/:name", (c) => {
  const padding = pages.get(c.req.param("name"));
  return padding === undefined ? c.notFound() : render(c.req.raw, padding);
});

export default app;
