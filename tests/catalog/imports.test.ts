import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import {
  applyImport,
  checkImport,
  exportProductsCsv,
  importProgress,
  IMPORT_CHUNK,
  recentImports,
  resumeImport,
  resumeStalledImports,
  type ImportChunkMessage,
} from "#worker/catalog/imports";
import worker from "../../entry/index";
import type { Auth, Permission } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { createProduct, merchant, serviceCtx, unique } from "../helpers";

/**
 * CSV import and export of products and variants: the dry run (a preview that writes nothing but the job), applying
 * through the real queue consumer chunk by chunk with the importer's permissions, a chunk delivered twice, a
 * 2,000-row file, and the export read back in.
 */

const MAIN = "edge-storefront-events";

const staff = (permissions: Permission[]): Auth => ({
  kind: "member",
  identityId: crypto.randomUUID(),
  visitorId: "v",
  clientId: "console",
  role: "STAFF",
  permissions,
});
const writer = () => staff(["catalog.write", "inventory.write"]);

/** The queue as the test's: every message the import sends is kept, so the test delivers them itself, one at a time. */
function recordingQueue() {
  const sent: unknown[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (msgs: { body: unknown }[]) => void sent.push(...msgs.map((m) => m.body)),
  };
  const chunks = () => sent.filter((b): b is ImportChunkMessage => (b as { kind?: string }).kind === IMPORT_CHUNK);
  return { queue, sent, chunks, env: { ...env, EVENTS: queue } as unknown as Env };
}

/** Delivers messages to the Worker's queue consumer as the queue would; answers the acks. */
async function deliver(e: Env, bodies: unknown[], attempts = 1) {
  const batch = createMessageBatch(
    MAIN,
    bodies.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts, body })),
  );
  const exec = createExecutionContext();
  await worker.queue(batch, e, exec);
  return getQueueResult(batch, exec);
}

/** Runs an applied import to its end through the consumer, one chunk message at a time; answers how many were delivered. */
async function drain(q: ReturnType<typeof recordingQueue>): Promise<number> {
  let delivered = 0;
  while (q.chunks().length > delivered) {
    const result = await deliver(q.env, [q.chunks()[delivered]]);
    expect(result.explicitAcks).toHaveLength(1);
    delivered++;
  }
  return delivered;
}

const csv = (rows: (string | number)[][]) => new TextEncoder().encode(Papa.unparse(rows));
const file = (rows: (string | number)[][], name = "products.csv") => ({ name, bytes: csv(rows) });
const count = async (table: string) => (await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
const bySlug = (slug: string) => env.DB.prepare("SELECT * FROM products WHERE slug = ?").bind(slug).first<Record<string, any>>();

const HEADER = ["Handle", "Name", "Price", "Brand", "Collections", "Track inventory", "Option1 name", "Option1 value", "Variant price", "Quantity"];

describe("CSV import", () => {
  it("previews creates, updates, unchanged and row errors, writing nothing to the catalogue", async () => {
    const u = unique();
    await createProduct({ name: `Kept ${u}`, slug: `kept-${u}`, priceData: { price: 12 } });
    await createProduct({ name: `Changed ${u}`, slug: `changed-${u}`, priceData: { price: 20 } });
    const { ctx } = serviceCtx(writer());
    const before = { products: await count("products"), outbox: await count("outbox") };
    const { jobId } = await checkImport(
      ctx,
      file([
        ["Handle", "Name", "Price", "Discount"],
        [`kept-${u}`, `Kept ${u}`, "12.00", ""],
        [`changed-${u}`, `Changed ${u}`, "25.50", ""],
        [`new-${u}`, `New ${u}`, "9.99", "10%"],
        [`bad-${u}`, `Bad ${u}`, "twelve", ""],
        [`worse-${u}`, "", "5", "150%"],
      ]),
      { email: "staff@example.test" },
    );
    const progress = await importProgress(ctx, jobId);
    expect(progress.job.status).toBe("READY");
    expect(progress.job.summary).toMatchObject({ create: 1, update: 1, unchanged: 1, invalidRows: 2, products: 3 });
    expect(progress.problems.map((p) => [p.row, p.errors])).toEqual([
      [5, [{ column: "Price", message: 'must be an amount, such as 19.99 (got "twelve")' }]],
      [6, expect.arrayContaining([{ column: "Name", message: "is required for a new product" }])],
    ]);
    // The discount rule is the service's own (at most 100 for PERCENT).
    const worse = await checkImport(
      ctx,
      file([
        ["Handle", "Name", "Price", "Discount"],
        [`worse-${u}`, "Worse", "5", "150%"],
      ]),
      { email: "s@example.test" },
    );
    expect((await importProgress(ctx, worse.jobId)).problems[0].errors).toEqual([
      { column: "Discount", message: "must be at most 100 for a PERCENT discount" },
    ]);
    expect(await count("products")).toBe(before.products);
    expect(await count("outbox")).toBe(before.outbox);
  });

  it("refuses a file it cannot read (not CSV, a required column missing, binary) with a file error, storing nothing", async () => {
    const { ctx } = serviceCtx(writer());
    const jobs = await count("import_jobs");
    const refusal = async (f: { name: string; bytes: Uint8Array }) => {
      const err = await checkImport(ctx, f, { email: "s@example.test" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
      return (err as ApiError).fieldViolations!.map((v) => [v.field, v.description]);
    };
    expect(
      await refusal(
        file([
          ["Handle", "Name"],
          ["a", "A"],
        ]),
      ),
    ).toEqual([["file", 'The file has no "Price" column. The first row must name the columns, as an export does.']]);
    expect(
      (await refusal({ name: "photo.png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0xff, 0xfe]) }))[0][0],
    ).toBe("file");
    expect(await refusal({ name: "empty.csv", bytes: new Uint8Array() })).toEqual([["file", "The file is empty."]]);
    expect(await count("import_jobs")).toBe(jobs);
  });

  it("needs catalog.write to import, and inventory.write for rows that change stock", async () => {
    const err = await checkImport(serviceCtx(staff(["orders.write"])).ctx, file([HEADER]), { email: "s@example.test" }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(403);
    const u = unique();
    await createProduct({ name: `Stocked ${u}`, slug: `stocked-${u}`, stock: { trackInventory: true, quantity: 4 } });
    const { ctx } = serviceCtx(staff(["catalog.write"]));
    const { jobId } = await checkImport(
      ctx,
      file([
        ["Handle", "Name", "Price", "Quantity"],
        [`stocked-${u}`, `Stocked ${u}`, "10", "9"],
      ]),
      { email: "s@example.test" },
    );
    expect((await importProgress(ctx, jobId)).problems[0].errors).toEqual([
      { column: "Quantity", message: "changes stock, which needs the inventory.write permission" },
    ]);
  });

  it("refuses every import step to staff without catalog.write, and the queue applies with the importer's recorded permissions", async () => {
    const u = unique();
    const { ctx } = serviceCtx(writer());
    const { jobId } = await checkImport(
      ctx,
      file([
        ["Handle", "Name", "Price"],
        [`perm-${u}`, "Perm", "3"],
      ]),
      { email: "s@example.test" },
    );
    const viewer = serviceCtx(staff(["orders.write"])).ctx;
    for (const step of [
      () => applyImport(viewer, jobId),
      () => resumeImport(viewer, jobId),
      () => importProgress(viewer, jobId),
      () => recentImports(viewer),
    ]) {
      expect(((await step().catch((e: unknown) => e)) as ApiError).status).toBe(403);
    }
    // The job remembers who uploaded it: had they lost catalog.write by then, the queue's service calls refuse the rows.
    await env.DB.prepare("UPDATE import_jobs SET auth = ? WHERE id = ?")
      .bind(JSON.stringify(staff(["orders.write"])), jobId)
      .run();
    const q = recordingQueue();
    await applyImport({ ...ctx, env: q.env }, jobId);
    await drain(q);
    const progress = await importProgress(ctx, jobId);
    expect(progress.counts).toMatchObject({ DONE: 0, FAILED: 1 });
    expect(progress.problems[0].errors[0].message).toContain("catalog.write");
    expect(await bySlug(`perm-${u}`)).toBeNull();
    // The merchant's inbox says so, once, linking to the job.
    const tasks = await env.DB.prepare("SELECT kind, title, status FROM tasks WHERE entity_id = ?").bind(jobId).all();
    expect(tasks.results).toEqual([{ kind: "IMPORT_FAILED", title: "Import of products.csv: 1 row not applied", status: "OPEN" }]);
  });

  it("applies through the queue with the importer's permissions: products, variants, stock and collections", async () => {
    const u = unique();
    const collection = (await merchant("POST", "/v1/collections", { collection: { name: `Summer ${u}`, slug: `summer-${u}` } })).body.collection;
    const existing = await createProduct({ name: `Mug ${u}`, slug: `mug-${u}`, priceData: { price: 8 } });
    const who = writer();
    const { ctx } = serviceCtx(who);
    const { jobId } = await checkImport(
      ctx,
      file([
        HEADER,
        [`mug-${u}`, `Mug ${u}`, "9.50", "Acme", `summer-${u}`, "false", "", "", "", ""],
        [`tee-${u}`, `Tee ${u}`, "20", "Acme", "", "true", "Size", "S", "", "3"],
        [`tee-${u}`, `Tee ${u}`, "20", "Acme", "", "true", "Size", "M", "22.00", "0"],
        [`tee-${u}`, `Tee ${u}`, "20", "Acme", "", "true", "Size", "L", "", "7"],
      ]),
      { email: "staff@example.test" },
    );
    expect((await importProgress(ctx, jobId)).job.summary).toMatchObject({ create: 1, update: 1, unchanged: 0, invalidRows: 0 });
    const q = recordingQueue();
    await applyImport({ ...ctx, env: q.env }, jobId);
    expect(await drain(q)).toBe(1);

    const progress = await importProgress(ctx, jobId);
    expect(progress.job.status).toBe("DONE");
    expect(progress.counts).toEqual({ PENDING: 0, DONE: 4, FAILED: 0, SKIPPED: 0 });
    expect(progress.outcomes).toEqual({ updated: 1, created: 3 });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM tasks WHERE entity_id = ?").bind(jobId).first("n")).toBe(0); // nothing failed: no task
    const mug = await bySlug(`mug-${u}`);
    expect([mug!.id, mug!.price, mug!.brand]).toEqual([existing.id, 950, "Acme"]);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM collection_products WHERE collection_id = ? AND product_id = ?")
        .bind(collection.id, existing.id)
        .first("n"),
    ).toBe(1);
    const tee = await bySlug(`tee-${u}`);
    const variants = (
      await env.DB.prepare("SELECT choices, price, quantity FROM variants WHERE product_id = ? ORDER BY position").bind(tee!.id).all()
    ).results;
    expect(variants).toEqual([
      { choices: '{"Size":"S"}', price: null, quantity: 3 },
      { choices: '{"Size":"M"}', price: 2200, quantity: 0 },
      { choices: '{"Size":"L"}', price: null, quantity: 7 },
    ]);
    expect([tee!.track_inventory, tee!.manage_variants, tee!.quantity]).toEqual([1, 1, 10]);
    // The events name the staff member as the actor, as they would for the same calls through the API.
    const created = await env.DB.prepare("SELECT actor_type, actor_id FROM outbox WHERE entity_id = ? AND type LIKE '%ProductCreated%'")
      .bind(tee!.id)
      .first();
    expect(created).toEqual({ actor_type: "SITE_USER", actor_id: (who as { identityId: string }).identityId });
    // Stock went through the inventory service (its change log, cause MANUAL, reason "CSV import").
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM inventory_changes WHERE product_id = ? AND reason = 'CSV import'").bind(tee!.id).first("n"),
    ).toBeGreaterThan(0);

    // Delivered again (at least once): nothing more happens.
    const rowsBefore = await count("products");
    const outboxBefore = await count("outbox");
    await deliver(q.env, [q.chunks()[0]], 2);
    expect(await count("products")).toBe(rowsBefore);
    expect(await count("outbox")).toBe(outboxBefore);
  });

  it("updates variants from their rows: a cleared override goes back to the product's value, a new choice adds a variant, stock moves", async () => {
    const u = unique();
    const p = await createProduct({
      name: `Cap ${u}`,
      slug: `cap-${u}`,
      priceData: { price: 15 },
      manageVariants: true,
      productOptions: [{ name: "Colour", choices: [{ value: "Red" }, { value: "Blue" }] }],
      stock: { trackInventory: true, quantity: 5 },
      variants: [{ choices: { Colour: "Red" }, price: 18, sku: `CAP-R-${u}` }],
    });
    const { ctx } = serviceCtx(writer());
    const exported = Papa.parse<Record<string, string>>(await new Response(exportProductsCsv(ctx, { filter: { slug: `cap-${u}` } })).text(), {
      header: true,
      skipEmptyLines: true,
    });
    const fields = exported.meta.fields!;
    const [red, blue] = exported.data;
    expect([red["Variant price"], blue["Variant price"], red.Quantity]).toEqual(["18.00", "", "5"]);
    red["Variant price"] = ""; // back to the product's price
    blue.Quantity = "9";
    const green: Record<string, string> = { ...blue, "Option1 value": "Green", Quantity: "2", "Variant SKU": `CAP-G-${u}` };
    const text = Papa.unparse({ fields, data: [red, blue, green].map((r) => fields.map((f) => r[f])) });
    const { jobId } = await checkImport(ctx, { name: "caps.csv", bytes: new TextEncoder().encode(text) }, { email: "s@example.test" });
    expect((await importProgress(ctx, jobId)).job.summary).toMatchObject({ update: 1, invalidRows: 0 });
    const q = recordingQueue();
    await applyImport({ ...ctx, env: q.env }, jobId);
    await drain(q);
    expect((await importProgress(ctx, jobId)).counts).toMatchObject({ DONE: 3, FAILED: 0 });
    const variants = (
      await env.DB.prepare("SELECT choices, price, sku, quantity FROM variants WHERE product_id = ? ORDER BY position").bind(p.id).all()
    ).results;
    expect(variants).toEqual([
      { choices: '{"Colour":"Red"}', price: null, sku: `CAP-R-${u}`, quantity: 5 },
      { choices: '{"Colour":"Blue"}', price: null, sku: null, quantity: 9 },
      { choices: '{"Colour":"Green"}', price: null, sku: `CAP-G-${u}`, quantity: 2 },
    ]);
    // Read back in, the file changes nothing more.
    const again = await checkImport(ctx, { name: "caps.csv", bytes: new TextEncoder().encode(text) }, { email: "s@example.test" });
    expect((await importProgress(ctx, again.jobId)).job.summary).toMatchObject({ update: 0, unchanged: 1 });
  });

  it("applies a chunk delivered twice at the same time once (no product twice, every row done)", async () => {
    const u = unique();
    const { ctx } = serviceCtx(writer());
    const rows = [["Handle", "Name", "Price"], ...Array.from({ length: 3 }, (_, i) => [`twice-${u}-${i}`, `Twice ${i}`, "5"])];
    const { jobId } = await checkImport(ctx, file(rows), { email: "s@example.test" });
    const q = recordingQueue();
    await applyImport({ ...ctx, env: q.env }, jobId);
    const [first] = q.chunks();
    // Two copies of the message at once (the queue delivers at least once).
    await Promise.all([deliver(q.env, [first]), deliver(q.env, [first], 2)]);
    await drain({ ...q, chunks: () => q.chunks().slice(2) });
    const n = await env.DB.prepare("SELECT count(*) AS n FROM products WHERE slug LIKE ?").bind(`twice-${u}-%`).first("n");
    expect(n).toBe(3);
    // The rows were applied by one delivery or the other, never twice: every row is done.
    const progress = await importProgress(ctx, jobId);
    expect(progress.counts.DONE).toBe(3);
    expect(progress.counts.FAILED).toBe(0);
  });

  it("queues every chunk at once; the sweep queues again the chunks of an import whose messages were lost", async () => {
    const u = unique();
    const { ctx } = serviceCtx(writer());
    const rows: (string | number)[][] = [["Handle", "Name", "Price", "Option1 name", "Option1 value"]];
    for (let i = 0; i < 30; i++) for (const size of ["S", "M", "L", "XL"]) rows.push([`lost-${u}-${i}`, `Lost ${i}`, "7", "Size", size]);
    const { jobId } = await checkImport(ctx, file(rows), { email: "s@example.test" });
    const q = recordingQueue();
    await applyImport({ ...ctx, env: q.env }, jobId);
    expect(q.chunks().map((c) => c.chunk)).toEqual([0, 1, 2]);
    // The first chunk is applied; the other two messages are lost (a local queue restarted).
    await deliver(q.env, [q.chunks()[0]]);
    expect((await importProgress(ctx, jobId)).counts).toMatchObject({ DONE: 48, PENDING: 72 });
    const later = new Date(Date.now() + 6 * 60_000);
    const again = recordingQueue();
    expect(await resumeStalledImports(again.env, ctx.db, new Date())).toBe(0);
    expect(await resumeStalledImports(again.env, ctx.db, later)).toBeGreaterThanOrEqual(1);
    expect(
      again
        .chunks()
        .filter((c) => c.jobId === jobId)
        .map((c) => c.chunk),
    ).toEqual([1, 2]);
    // Just resumed: the next sweep waits for those messages instead of sending them again.
    expect(await resumeStalledImports(recordingQueue().env, ctx.db, new Date(later.getTime() + 60_000))).toBe(0);
    await deliver(
      again.env,
      again.chunks().filter((c) => c.jobId === jobId),
    );
    const progress = await importProgress(ctx, jobId);
    expect(progress.job.status).toBe("DONE");
    expect(progress.counts.DONE).toBe(120);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM products WHERE slug LIKE ?").bind(`lost-${u}-%`).first("n")).toBe(30);
  });

  it("applies a 2,000-row file in chunks of whole products of at most 50 rows, one queue message each", async () => {
    const u = unique();
    const { ctx } = serviceCtx(writer());
    // 500 products of 4 sizes: 2,000 rows.
    const brand = `Bulk ${u}`;
    const rows: (string | number)[][] = [["Handle", "Name", "Brand", "Price", "Option1 name", "Option1 value", "Variant price"]];
    for (let i = 0; i < 500; i++)
      for (const [j, size] of ["S", "M", "L", "XL"].entries())
        rows.push([`bulk-${u}-${i}`, `Bulk ${i}`, brand, `${10 + (i % 7)}`, "Size", size, j === 3 ? `${20 + (i % 5)}.50` : ""]);
    const started = Date.now();
    const { jobId } = await checkImport(ctx, file(rows), { email: "s@example.test" });
    const checkMs = Date.now() - started;
    const job = (await importProgress(ctx, jobId)).job;
    expect(job.totalRows).toBe(2000);
    // Chunks hold whole products: 12 products of 4 rows (48 rows) each, so 42 chunks.
    expect(job.chunks).toBe(42);
    expect(job.summary).toMatchObject({ create: 500, invalidRows: 0 });
    const q = recordingQueue();
    await applyImport({ ...ctx, env: q.env }, jobId);
    expect(await drain(q)).toBe(42);
    const chunkSizes = (
      await env.DB.prepare("SELECT chunk, count(*) AS n FROM import_rows WHERE job_id = ? GROUP BY chunk").bind(jobId).all<{ n: number }>()
    ).results.map((r) => r.n);
    expect(Math.max(...chunkSizes)).toBeLessThanOrEqual(50);
    const progress = await importProgress(ctx, jobId);
    expect(progress.job.status).toBe("DONE");
    expect(progress.counts.DONE).toBe(2000);
    const made = await env.DB.prepare(
      "SELECT count(DISTINCT p.id) AS products, count(*) AS variants, sum(v.price IS NOT NULL) AS own FROM products p JOIN variants v ON v.product_id = p.id WHERE p.slug LIKE ?",
    )
      .bind(`bulk-${u}-%`)
      .first();
    expect(made).toEqual({ products: 500, variants: 2000, own: 500 });
    expect((await bySlug(`bulk-${u}-13`))!.price).toBe(1600);
    // The export pages through them 100 products at a time: every row once, in the query's order.
    const exportStarted = Date.now();
    const text = await new Response(exportProductsCsv(ctx, { filter: { brand }, sort: [{ fieldName: "name", order: "ASC" }] })).text();
    const exportMs = Date.now() - exportStarted;
    const back = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
    expect(back).toHaveLength(2000);
    expect(new Set(back.map((r) => `${r.Handle}/${r["Option1 value"]}`)).size).toBe(2000);
    console.log(`2,000-row dry run: ${checkMs} ms; export of the 500 products (2,000 rows): ${exportMs} ms`);
  }, 180_000);
});

describe("CSV descriptions", () => {
  it("reads a Wix file's HTML description into rich nodes and exports it as the same HTML, which imports unchanged", async () => {
    const u = unique();
    const html = "<p>A tee.</p><ul><li>soft</li><li>organic</li></ul><script>alert(1)</script>";
    const { ctx } = serviceCtx(writer());
    const q = recordingQueue();
    const { jobId } = await checkImport(
      ctx,
      file([
        ["Handle", "Name", "Price", "Description"],
        [`html-tee-${u}`, `Html Tee ${u}`, "20", html],
        [`md-tee-${u}`, `Md Tee ${u}`, "20", "Soft **organic** cotton.\n\n- Wash cold"],
      ]),
      { email: "s@example.test" },
    );
    await applyImport({ ...ctx, env: q.env }, jobId);
    await drain(q);
    const row = await bySlug(`html-tee-${u}`);
    expect(row!.description).toBe("A tee.\n\nsoft\norganic");
    expect(row!.rich_description).not.toMatch(/<|alert/);
    expect(JSON.parse(row!.rich_description).nodes.map((n: any) => n.type)).toEqual(["PARAGRAPH", "BULLETED_LIST"]);
    expect((await bySlug(`md-tee-${u}`))!.description).toBe("Soft organic cotton.\n\nWash cold");

    const text = await new Response(
      exportProductsCsv(ctx, { filter: { slug: { $in: [`html-tee-${u}`, `md-tee-${u}`] } }, sort: [{ fieldName: "name", order: "ASC" }] }),
    ).text();
    const exported = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
    expect(exported.map((r) => r.Description)).toEqual([
      "<p>A tee.</p><ul><li>soft</li><li>organic</li></ul>",
      "<p>Soft <strong>organic</strong> cotton.</p><ul><li>Wash cold</li></ul>",
    ]);
    const again = await checkImport(ctx, { name: "export.csv", bytes: new TextEncoder().encode(text) }, { email: "s@example.test" });
    expect((await importProgress(ctx, again.jobId)).job.summary).toMatchObject({ create: 0, update: 0, unchanged: 2 });
  });
});

describe("CSV export", () => {
  it("exports what the filter matches, one row per variant, and reads back in as unchanged", async () => {
    const u = unique();
    const brand = `Brand ${u}`;
    await createProduct({
      name: `Lamp ${u}`,
      slug: `lamp-${u}`,
      brand,
      description: "=cmd|' /C calc'!A0",
      priceData: { price: 30 },
      discount: { type: "PERCENT", value: 10 },
    });
    await createProduct({
      name: `Sock ${u}`,
      slug: `sock-${u}`,
      brand,
      manageVariants: true,
      productOptions: [
        { name: "Colour", optionType: "drop_down", choices: [{ value: "Red" }, { value: "Blue" }] },
        { name: "Size", choices: [{ value: "S" }, { value: "L" }] },
      ],
      stock: { trackInventory: true, quantity: 2 },
      variants: [{ choices: { Colour: "Blue", Size: "L" }, price: 14, sku: `SOCK-${u}` }],
    });
    await createProduct({ name: `Other ${u}`, slug: `other-${u}`, brand: "Someone else" });
    const { ctx } = serviceCtx(staff([]));
    const text = await new Response(exportProductsCsv(ctx, { filter: { brand }, sort: [{ fieldName: "name", order: "ASC" }] })).text();
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(parsed.data.map((r) => [r.Handle, r["Option1 value"], r["Option2 value"]])).toEqual([
      [`lamp-${u}`, "", ""],
      [`sock-${u}`, "Red", "S"],
      [`sock-${u}`, "Red", "L"],
      [`sock-${u}`, "Blue", "S"],
      [`sock-${u}`, "Blue", "L"],
    ]);
    expect(parsed.data[0]).toMatchObject({
      Price: "30.00",
      Discount: "10%",
      Visible: "true",
      Brand: brand,
      "Track inventory": "false",
      "In stock": "true",
    });
    // A cell a spreadsheet would run as a formula is written as text.
    expect(parsed.data[0].Description).toBe("'=cmd|' /C calc'!A0");
    expect(parsed.data[4]).toMatchObject({ "Variant price": "14.00", "Variant SKU": `SOCK-${u}`, Quantity: "2", "Option1 name": "Colour" });
    // The file as exported changes nothing when imported.
    const { jobId } = await checkImport(
      serviceCtx(writer()).ctx,
      { name: "export.csv", bytes: new TextEncoder().encode(text) },
      { email: "s@example.test" },
    );
    const job = (await importProgress(serviceCtx(writer()).ctx, jobId)).job;
    expect(job.summary).toEqual({ create: 0, update: 0, unchanged: 2, invalidRows: 0, products: 2 });
  });
});
