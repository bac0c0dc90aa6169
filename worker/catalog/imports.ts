import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import { taskStatement } from "#worker/tasks";
import type { JobHandler } from "#worker/events";
import type { Statement } from "#worker/events";
import { updateInventoryItem } from "./inventory";
import { nowIso, requireMerchant, requirePermission, hasPermission, type Auth, type Ctx } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { ApiError, badField, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import type { QueryInput } from "#worker/platform/query";
import { changeMembership } from "./collections";
import { CHUNK_ROWS, csvHeader, MAX_IMPORT_BYTES } from "./csv-columns";
import { productCsvRows, toCsv } from "./csv-export";
import { parseCsv, type CellError, type CsvRow } from "./csv-parse";
import { planProduct, type PlanContext, type ProductPlan } from "./csv-plan";
import { readProducts, type FileProduct } from "./csv-products";
import { runBatch } from "#worker/platform/unit-of-work";
export { CHUNK_ROWS, MAX_IMPORT_BYTES };
import { queryProducts } from "./product-queries";
import { loadedProducts, loadProductsBy, productsByQuery } from "./product-reads";
import { resetProductVariants, updateProductVariants } from "./product-variants";
import { createPreparedProducts, createProduct, prepareCreateProduct, updateProduct, type PreparedProduct } from "./product-writes";
import type { LoadedProduct } from "./shapes";
import { collections, importJobs, importRows, products } from "./tables";
import { choicesKey } from "./variants";

/**
 * CSV export and import of products and variants (the column list is in csv-columns.ts and docs/console.md).
 *
 * Export streams the products a product query matches, 100 at a time, so a 5,000-product catalogue never sits in
 * the Worker's memory. Import is two steps: `checkImport` parses and checks every row against the product service's
 * rules (nothing written but the job) and stores the job; `applyImport` puts all its chunks on the queue, and each
 * chunk (whole products, at most 50 rows) is applied by `importChunkJob` through the same services the API calls
 * (prepareCreateProduct, updateProduct, updateProductVariants, updateInventoryItem, changeMembership), with the
 * importer's own permissions; the last chunk to finish marks the import done. No request and no queue message
 * handles more than one chunk, and a chunk delivered twice changes nothing the second time: its rows are marked done
 * in D1, and a product is matched by its slug, so applying it again finds nothing left to change.
 */

/** Products per export page (one D1 round trip for the page's ids, one for the products). */
const EXPORT_PAGE = 100;
/** The message kind on the EVENTS queue. */
export const IMPORT_CHUNK = "import-chunk";

// ---------------------------------------------------------------------------------------------------------------
// Export

export interface ExportQuery {
  filter?: QueryInput["filter"];
  sort?: QueryInput["sort"];
  search?: string;
}

/** The CSV of every product the query matches (hidden ones included), as a stream. Any staff member may export. */
export function exportProductsCsv(ctx: Ctx, q: ExportQuery): ReadableStream<Uint8Array> {
  requireMerchant(ctx);
  const encoder = new TextEncoder();
  let offset = 0;
  let setup: { pairs: number; slugs: Map<string, string> } | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!setup) {
          // As many option column pairs as the store's product with most options needs (at least 3).
          const [cols, [widest]] = await runBatch(ctx.db, [
            ctx.db.select({ id: collections.id, slug: collections.slug }).from(collections),
            ctx.db.select({ n: sql<number>`coalesce(max(json_array_length(${products.productOptions})), 0)` }).from(products),
          ]);
          setup = { pairs: Math.max(3, widest.n), slugs: new Map(cols.map((c) => [c.id, c.slug])) };
          controller.enqueue(encoder.encode(toCsv([csvHeader(setup.pairs)])));
          return;
        }
        const page = await queryProducts(ctx, {
          query: {
            filter: q.filter,
            sort: q.sort,
            paging: { limit: EXPORT_PAGE, offset },
            ...(q.search ? { search: { expression: q.search } } : {}),
          },
          includeHiddenProducts: true,
          includeVariants: false,
        });
        const ids = page.products.map((p) => p.id);
        const byId = new Map((await loadProductsBy(ctx.db, "id", ids)).map((p) => [p.row.id, p]));
        const rows = ids.flatMap((id) => (byId.has(id) ? productCsvRows(byId.get(id)!, setup!.pairs, ctx.currency, setup!.slugs) : []));
        if (rows.length) controller.enqueue(encoder.encode(toCsv(rows)));
        offset += ids.length;
        if (ids.length < EXPORT_PAGE || offset >= page.totalResults) controller.close();
      } catch (err) {
        console.error("CSV export failed", err);
        controller.error(err);
      }
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Import: the dry run

export type ImportJob = typeof importJobs.$inferSelect;
export type ImportRow = typeof importRows.$inferSelect;

/**
 * Checks an uploaded CSV (the dry run) and stores it as a job to apply: every row is parsed and its product planned
 * against the stored catalogue with the product service's own checks; nothing in the catalogue changes. A file that
 * cannot be read at all (not CSV, a required column missing, too large) is refused with a `file` violation and
 * nothing is stored. Needs catalog.write.
 */
export async function checkImport(ctx: Ctx, file: { name: string; bytes: Uint8Array }, importer: { email: string }): Promise<{ jobId: string }> {
  requirePermission(ctx, "catalog.write");
  const parsed = readCsvFile(file.bytes);
  const errors: CellError[] = [...parsed.errors];
  const fileProducts = readProducts(parsed.rows, parsed.columns, errors);
  const state = await loadState(
    ctx,
    fileProducts.map((p) => p.slug),
  );
  const pc: PlanContext = { ctx, collectionIds: state.collectionIds, mayChangeStock: hasPermission(ctx.auth, "inventory.write") };

  const action = new Map<number, ImportRow["action"]>();
  const summary = { create: 0, update: 0, unchanged: 0, invalidRows: 0, products: fileProducts.length };
  for (const p of fileProducts) {
    const rowsOf = new Set(p.rows.map((r) => r.row));
    const own = errors.filter((e) => rowsOf.has(e.row));
    let result: ImportRow["action"] = "invalid";
    if (!own.length) {
      const planned = planProduct(p, state.current.get(p.slug) ?? null, pc);
      errors.push(...planned.errors);
      if (planned.plan) result = planned.plan.action;
    }
    if (result === "invalid") summary.products--;
    else summary[result]++;
    for (const r of p.rows) action.set(r.row, result);
  }
  const errorsByRow = new Map<number, { column: string; message: string }[]>();
  for (const e of errors) errorsByRow.set(e.row, [...(errorsByRow.get(e.row) ?? []), { column: e.column, message: e.message }]);

  const { chunkOf, chunks } = chunkRows(fileProducts, action);

  const id = newId();
  const now = nowIso();
  const rows = parsed.rows.map((r) => {
    const a = action.get(r.row) ?? "invalid";
    return {
      row: r.row,
      chunk: chunkOf.get(r.row) ?? -1,
      slug: r.cells.Handle ?? "",
      cells: r.cells,
      action: a,
      errors: errorsByRow.get(r.row) ?? [],
      status: a === "invalid" ? "SKIPPED" : "PENDING",
    };
  });
  summary.invalidRows = rows.filter((r) => r.action === "invalid" && r.errors.length).length;
  const inserts: Statement[] = [];
  // Rows go in as one JSON parameter per 200 (D1 allows 100 bound parameters per statement).
  for (let i = 0; i < rows.length; i += 200) {
    inserts.push(
      rawStatement(
        ctx.db,
        sql`INSERT INTO import_rows (job_id, row, chunk, slug, cells, action, errors, status)
          SELECT ${id}, json_extract(value, '$.row'), json_extract(value, '$.chunk'), json_extract(value, '$.slug'), json(json_extract(value, '$.cells')),
            json_extract(value, '$.action'), json(json_extract(value, '$.errors')), json_extract(value, '$.status')
          FROM json_each(${JSON.stringify(rows.slice(i, i + 200))})`,
      ),
    );
  }
  await runBatch(ctx.db, [
    ctx.db.insert(importJobs).values({
      id,
      status: "READY",
      fileName: file.name.slice(0, 200) || "products.csv",
      auth: ctx.auth as unknown as Record<string, unknown>,
      createdBy: importer.email,
      columns: { columns: parsed.columns, ignored: parsed.ignored },
      summary,
      totalRows: rows.length,
      chunks,
      createdDate: now,
      updatedDate: now,
    }),
    ...inserts,
  ]);
  return { jobId: id };
}

/** The uploaded bytes as parsed CSV; refuses a file too large, not UTF-8, or not readable as CSV. */
function readCsvFile(bytes: Uint8Array) {
  if (bytes.byteLength > MAX_IMPORT_BYTES)
    throw badField("file", `This file is larger than ${MAX_IMPORT_BYTES / 1_048_576} MB. Split it into smaller files.`, "MAX_SIZE");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badField("file", "This is not a CSV file: it is not UTF-8 text. Export a CSV (UTF-8) from the console or from your spreadsheet.", "FORMAT");
  }
  const parsed = parseCsv(text);
  if (!parsed.ok) throw badField("file", parsed.message, "FORMAT");
  return parsed;
}

/** Splits the valid products into chunks of whole products, in file order; gives each row its chunk. */
function chunkRows(fileProducts: { rows: { row: number }[] }[], action: Map<number, ImportRow["action"]>) {
  const chunkOf = new Map<number, number>();
  let chunk = 0;
  let inChunk = 0;
  for (const p of fileProducts) {
    if (action.get(p.rows[0].row) === "invalid") continue;
    if (inChunk > 0 && inChunk + p.rows.length > CHUNK_ROWS) {
      chunk++;
      inChunk = 0;
    }
    for (const r of p.rows) chunkOf.set(r.row, chunk);
    inChunk += p.rows.length;
  }
  return { chunkOf, chunks: inChunk > 0 ? chunk + 1 : 0 };
}

/** The catalogue state a dry run or a chunk plans against, in one D1 round trip: products by slug, collections by slug. */
async function loadState(ctx: Ctx, slugs: string[]) {
  const unique = [...new Set(slugs)];
  const pages = Array.from({ length: Math.ceil(unique.length / 500) }, (_, i) =>
    productsByQuery(ctx.db, "slug", unique.slice(i * 500, i * 500 + 500)),
  );
  const [cols, ...loaded] = await runBatch(ctx.db, [ctx.db.select({ id: collections.id, slug: collections.slug }).from(collections), ...pages]);
  const current = new Map<string, LoadedProduct>();
  for (const page of loaded) for (const p of loadedProducts(page as Parameters<typeof loadedProducts>[0])) current.set(p.row.slug, p);
  return { current, collectionIds: new Map((cols as { id: string; slug: string }[]).map((c) => [c.slug, c.id])) };
}

// ---------------------------------------------------------------------------------------------------------------
// Import: applying through the queue

/** The queue message of one chunk. */
export interface ImportChunkMessage {
  kind: typeof IMPORT_CHUNK;
  id: string;
  jobId: string;
  chunk: number;
}

const chunkMessage = (jobId: string, chunk: number): ImportChunkMessage => ({ kind: IMPORT_CHUNK, id: `import:${jobId}:${chunk}`, jobId, chunk });

async function loadJob(db: Db, jobId: string): Promise<ImportJob> {
  const [job] = await db.select().from(importJobs).where(eq(importJobs.id, jobId)).limit(1);
  if (!job) throw notFound("IMPORT_NOT_FOUND", "Import", jobId, "jobId");
  return job;
}

/** The lowest chunk that still has rows to apply, or null. */
async function nextChunk(db: Db, jobId: string): Promise<number | null> {
  const [r] = await db
    .select({ chunk: sql<number | null>`min(${importRows.chunk})` })
    .from(importRows)
    .where(and(eq(importRows.jobId, jobId), eq(importRows.status, "PENDING")));
  return r?.chunk ?? null;
}

/** The chunks that still have rows to apply. */
async function pendingChunks(db: Db, jobId: string): Promise<number[]> {
  const rows = await db
    .selectDistinct({ chunk: importRows.chunk })
    .from(importRows)
    .where(and(eq(importRows.jobId, jobId), eq(importRows.status, "PENDING")))
    .orderBy(asc(importRows.chunk));
  return rows.map((r) => r.chunk);
}

/**
 * Queues every chunk that still has rows to apply, all at once: the consumer runs up to a batch of them side by
 * side, so a large file is not held up by one queue round trip per chunk.
 */
async function queueChunks(env: Env, db: Db, jobId: string): Promise<void> {
  const chunks = await pendingChunks(db, jobId);
  for (let i = 0; i < chunks.length; i += 100)
    await env.EVENTS.sendBatch(chunks.slice(i, i + 100).map((c) => ({ body: chunkMessage(jobId, c), contentType: "json" as const })));
  if (chunks.length === 0) await finishJob(db, jobId);
}

/** Marks the job done once no row is left to apply (the last chunk to finish does it; a second call changes nothing). */
async function finishJob(db: Db, jobId: string): Promise<void> {
  const now = nowIso();
  const [job] = await db
    .select({
      fileName: importJobs.fileName,
      failed: sql<number>`(SELECT count(*) FROM import_rows WHERE job_id = ${jobId} AND status = 'FAILED')`.as("failed"),
    })
    .from(importJobs)
    .where(eq(importJobs.id, jobId));
  const finish = db
    .update(importJobs)
    .set({ status: "DONE", finishedDate: now, updatedDate: now })
    .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "APPLYING")));
  if (!job?.failed) {
    await finish;
    return;
  }
  // Rows the services refused: a task in the merchant's inbox, opened only by the statement that finishes the job
  // (a redelivered last chunk finds it DONE already and opens nothing).
  await runBatch(db, [
    finish,
    taskStatement(
      db,
      {
        kind: "IMPORT_FAILED",
        title: `Import of ${job.fileName}: ${job.failed} ${job.failed === 1 ? "row" : "rows"} not applied`,
        description: `The import finished, but the catalogue refused ${job.failed === 1 ? "one row" : `${job.failed} rows`}. Its page lists each with the reason; fix the file and import those rows again.`,
        entityId: jobId,
        dedupeKey: `import-failed:${jobId}`,
      },
      sql`changes() > 0`,
    ),
  ]);
}

/**
 * Starts applying a checked import: its chunks go through the queue one after another. Applying twice (a double
 * click, a second tab) starts it once. Needs catalog.write.
 */
export async function applyImport(ctx: Ctx, jobId: string): Promise<void> {
  requirePermission(ctx, "catalog.write");
  const now = nowIso();
  const [started] = await runBatch(ctx.db, [
    ctx.db
      .update(importJobs)
      .set({ status: "APPLYING", appliedDate: now, updatedDate: now })
      .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "READY"))),
  ]);
  if (!started.meta.changes) {
    await loadJob(ctx.db, jobId); // 404 for an unknown job; an import already under way is left to run.
    return;
  }
  await queueChunks(ctx.env, ctx.db, jobId);
}

/**
 * Puts an import that stopped (its chunk's message ran out of retries) back on the queue, from its first row not
 * yet applied. Harmless on an import that is still running: a chunk delivered twice applies once.
 */
export async function resumeImport(ctx: Ctx, jobId: string): Promise<void> {
  requirePermission(ctx, "catalog.write");
  const job = await loadJob(ctx.db, jobId);
  if (job.status !== "APPLYING") return;
  await queueChunks(ctx.env, ctx.db, jobId);
}

/** Minutes an applying import may go without a chunk finishing before the sweep queues its chunks again. */
const STALLED_IMPORT_MINUTES = 5;

/**
 * Queues again the chunks of imports that stopped moving (a chunk's message lost, e.g. when a local dev server
 * restarts): a chunk delivered twice applies once, so this is harmless on an import that is only slow. Answers how
 * many imports it resumed. Run by the sweeps.
 */
export async function resumeStalledImports(env: Env, db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - STALLED_IMPORT_MINUTES * 60_000).toISOString();
  const stalled = await db
    .select({ id: importJobs.id })
    .from(importJobs)
    .where(and(eq(importJobs.status, "APPLYING"), lt(importJobs.updatedDate, before)))
    .limit(10);
  for (const { id } of stalled) {
    // Marked first, so the next sweep waits for these messages instead of sending them again at once.
    await db.update(importJobs).set({ updatedDate: now.toISOString() }).where(eq(importJobs.id, id));
    await queueChunks(env, db, id);
  }
  return stalled.length;
}

/** The product ids whose collection membership a chunk changes, by collection and direction. */
type Membership = Map<string, { add: Set<string>; remove: Set<string> }>;

/** Applies one product of the file through the services; returns what happened. Service refusals are thrown. */
async function applyProduct(
  ctx: Ctx,
  p: FileProduct,
  current: LoadedProduct | null,
  pc: PlanContext,
  membership: Membership,
  retried = false,
): Promise<"created" | "updated" | "unchanged"> {
  const { plan, errors } = planProduct(p, current, pc);
  if (!plan) throw new RowsRefused(errors);
  if (plan.action === "unchanged") return "unchanged";
  let id: string;
  if (plan.action === "create") {
    try {
      id = (await createProduct(ctx, plan.create!)).id;
    } catch (err) {
      // Created meanwhile (by a second delivery of this chunk, or by hand): apply the row to it as an update.
      if (err instanceof ApiError && err.code === "DUPLICATE_SLUG" && !retried) {
        const [now] = await loadProductsBy(ctx.db, "slug", [p.slug]);
        return applyProduct(ctx, p, now ?? null, pc, membership, true);
      }
      throw err;
    }
  } else {
    id = current!.row.id;
    if (plan.patch) await updateProduct(ctx, id, plan.patch);
    if (plan.resetVariants) await resetProductVariants(ctx, id);
    if (plan.overrides) await updateProductVariants(ctx, id, plan.overrides);
  }
  if (plan.stock) {
    // Variant ids after the write (new options make new variants).
    const [now] = await loadProductsBy(ctx.db, "id", [id]);
    const byChoices = new Map(now.variants.map((v) => [choicesKey(v.choices), v.id]));
    await updateInventoryItem(
      ctx,
      id,
      {
        ...(plan.stock.trackQuantity !== undefined ? { trackQuantity: plan.stock.trackQuantity } : {}),
        variants: plan.stock.variants.map((v) => ({
          variantId: byChoices.get(choicesKey(v.choices)) ?? "",
          quantity: v.quantity,
          inStock: v.inStock,
        })),
      },
      "CSV import",
    );
  }
  noteMembership(membership, id, plan.collections);
  return plan.action === "create" ? "created" : "updated";
}

/** Records the collections a product joins or leaves, applied for the whole chunk at its end. */
function noteMembership(membership: Membership, id: string, collections: ProductPlan["collections"]): void {
  for (const [dir, ids] of [
    ["add", collections?.add ?? []],
    ["remove", collections?.remove ?? []],
  ] as const) {
    for (const collectionId of ids) {
      const m = membership.get(collectionId) ?? { add: new Set<string>(), remove: new Set<string>() };
      m[dir].add(id);
      membership.set(collectionId, m);
    }
  }
}

/**
 * Creates the chunk's new products that need nothing but their creation, all in one D1 batch (one round trip
 * instead of one per product). Answers the products left for one-by-one handling: updates, new products with
 * stock that differs by variant, rows the service refuses (so they get its reasons), and, when a slug was taken
 * meanwhile (a second delivery of the chunk), all of them.
 */
async function createTogether(
  ctx: Ctx,
  fileProducts: FileProduct[],
  state: { current: Map<string, LoadedProduct> },
  pc: PlanContext,
  membership: Membership,
  results: Map<number, RowResult>,
): Promise<FileProduct[]> {
  const rest: FileProduct[] = [];
  const together: { fp: FileProduct; plan: ProductPlan; prepared: PreparedProduct }[] = [];
  for (const fp of fileProducts) {
    const plan = state.current.has(fp.slug) ? null : planProduct(fp, null, pc).plan;
    if (plan?.action !== "create" || plan.stock || !plan.create) {
      rest.push(fp);
      continue;
    }
    try {
      together.push({ fp, plan, prepared: prepareCreateProduct(ctx, plan.create, plan.create.slug ?? fp.slug) });
    } catch {
      rest.push(fp);
    }
  }
  if (together.length < 2) return [...rest, ...together.map((t) => t.fp)];
  try {
    await createPreparedProducts(
      ctx,
      together.map((t) => t.prepared),
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === "DUPLICATE_SLUG") return [...rest, ...together.map((t) => t.fp)];
    throw err;
  }
  for (const t of together) {
    noteMembership(membership, t.prepared.row.id, t.plan.collections);
    for (const r of t.fp.rows) results.set(r.row, { status: "DONE", outcome: "created", errors: [] });
  }
  return rest;
}

/** A product the services refused: the errors by row and column. */
class RowsRefused extends Error {
  constructor(readonly errors: CellError[]) {
    super("rows refused");
  }
}

/** The Auth the job was uploaded with (the importer's permissions apply to the queue's work). */
function importerAuth(job: ImportJob): Auth {
  return job.auth as unknown as Auth;
}

type RowResult = { status: "DONE" | "FAILED"; outcome: string | null; errors: { column: string; message: string }[] };

/** Adds and removes the chunk's collection memberships, one call per collection; a refusal lands on the done rows. */
async function applyMembership(
  ctx: Ctx,
  membership: Membership,
  fileProducts: { rows: { row: number }[] }[],
  collectionIds: Map<string, string>,
  results: Map<number, RowResult>,
): Promise<void> {
  for (const [collectionId, m] of membership) {
    for (const [dir, ids] of [
      ["add", [...m.add]],
      ["remove", [...m.remove]],
    ] as const) {
      if (!ids.length) continue;
      try {
        await changeMembership(ctx, collectionId, [...ids], dir);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500 || err.status === 409) throw err;
        for (const fp of fileProducts) {
          const slug = [...collectionIds].find(([, cid]) => cid === collectionId)?.[0] ?? collectionId;
          for (const r of fp.rows) {
            const res = results.get(r.row);
            if (res?.status === "DONE") res.errors.push({ column: "Collections", message: `collection ${slug}: ${err.description}` });
          }
        }
      }
    }
  }
}

/**
 * The queue handler of one chunk: applies its pending rows product by product, records each row's result (DONE,
 * FAILED with the service's reason), then queues the next chunk. A redelivered chunk finds its rows done and only
 * makes sure the next one is queued. Errors other than a service's refusal (D1 unavailable) are thrown, so the
 * queue retries the chunk.
 */
export const importChunkJob: JobHandler = async (message, p) => {
  const { jobId, chunk } = message as unknown as ImportChunkMessage;
  const job = await p.db.select().from(importJobs).where(eq(importJobs.id, jobId)).limit(1);
  if (job[0]?.status !== "APPLYING") return;
  const ctx: Ctx = { ...p.ctx, auth: importerAuth(job[0]) };
  const rows = await p.db
    .select()
    .from(importRows)
    .where(and(eq(importRows.jobId, jobId), eq(importRows.chunk, chunk), eq(importRows.status, "PENDING")))
    .orderBy(asc(importRows.row));
  if (rows.length) {
    const errors: CellError[] = [];
    const fileProducts = readProducts(
      rows.map((r) => ({ row: r.row, cells: r.cells }) satisfies CsvRow),
      job[0].columns.columns,
      errors,
    );
    const state = await loadState(
      ctx,
      fileProducts.map((fp) => fp.slug),
    );
    const pc: PlanContext = { ctx, collectionIds: state.collectionIds, mayChangeStock: hasPermission(ctx.auth, "inventory.write") };
    const membership: Membership = new Map();
    const results = new Map<number, RowResult>();
    // Two products at a time (the consumer runs several chunks side by side too): their D1 round trips overlap.
    const oneByOne = await createTogether(ctx, fileProducts, state, pc, membership, results);
    await eachAtMost(PRODUCTS_AT_ONCE, oneByOne, async (fp) => {
      try {
        const outcome = await applyProduct(ctx, fp, state.current.get(fp.slug) ?? null, pc, membership);
        for (const r of fp.rows) results.set(r.row, { status: "DONE", outcome, errors: [] });
      } catch (err) {
        const refused = refusal(err, fp);
        if (!refused) throw err;
        for (const r of fp.rows)
          results.set(r.row, {
            status: "FAILED",
            outcome: null,
            errors: refused
              .filter((e) => e.row === r.row || (e.row === fp.rows[0].row && r === fp.rows[0]))
              .map(({ column, message }) => ({ column, message })),
          });
        // Every failed row says why, even when the reason is on another row of its product.
        for (const r of fp.rows) {
          const res = results.get(r.row)!;
          if (!res.errors.length) res.errors.push({ column: "", message: `not applied: ${refused[0]?.message ?? "the product was refused"}` });
        }
      }
    });
    await applyMembership(ctx, membership, fileProducts, state.collectionIds, results);
    // Rows without a product (no Handle) cannot be pending; any row the grouping left out is marked failed.
    for (const r of rows)
      if (!results.has(r.row))
        results.set(r.row, {
          status: "FAILED",
          outcome: null,
          errors: errors.filter((e) => e.row === r.row).map(({ column, message }) => ({ column, message })),
        });
    const data = JSON.stringify([...results].map(([row, res]) => [row, res.status, res.outcome, JSON.stringify(res.errors)]));
    await runBatch(p.db, [
      rawStatement(
        p.db,
        sql`UPDATE import_rows SET status = json_extract(d.value, '$[1]'), outcome = json_extract(d.value, '$[2]'),
            errors = CASE WHEN json_extract(d.value, '$[1]') = 'FAILED' OR json_array_length(json_extract(d.value, '$[3]')) > 0 THEN json_extract(d.value, '$[3]') ELSE errors END
          FROM json_each(${data}) d
          WHERE import_rows.job_id = ${jobId} AND import_rows.row = json_extract(d.value, '$[0]') AND import_rows.status = 'PENDING'`,
      ),
      p.db.update(importJobs).set({ updatedDate: nowIso() }).where(eq(importJobs.id, jobId)),
    ]);
  }
  if ((await nextChunk(p.db, jobId)) === null) await finishJob(p.db, jobId);
};

/** How many products of one chunk are applied side by side. */
const PRODUCTS_AT_ONCE = 2;

/** Runs `task` on every item, at most `limit` at a time; rejects with the first failure once the others have ended. */
async function eachAtMost<T>(limit: number, items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** A service's refusal of one product, as row errors; null for failures a retry may fix (thrown on). */
function refusal(err: unknown, fp: FileProduct): CellError[] | null {
  if (err instanceof RowsRefused) return err.errors;
  if (!(err instanceof ApiError) || err.status >= 500 || err.status === 429) return null;
  // 409 CONFLICT: someone saved the product at the same instant; the queue retries the chunk.
  if (err.code === "CONFLICT") return null;
  const row = fp.rows[0].row;
  if (err.fieldViolations?.length) return err.fieldViolations.map((v) => ({ row, column: "", message: `${v.field}: ${v.description}` }));
  return [{ row, column: "", message: err.description }];
}

/** The import's queue jobs, by message kind (worker/app/registry.ts lists them). */
export const importJobHandlers: Record<string, JobHandler> = { [IMPORT_CHUNK]: importChunkJob };

// ---------------------------------------------------------------------------------------------------------------
// Reading a job (the console's import pages)

export interface ImportProgress {
  job: ImportJob;
  /** Rows by status: PENDING, DONE, FAILED, SKIPPED. */
  counts: Record<ImportRow["status"], number>;
  /** Rows with errors (dry run or apply), first 200 by row number. */
  problems: Pick<ImportRow, "row" | "slug" | "action" | "status" | "errors">[];
  /** Rows applied by outcome: created, updated, unchanged. */
  outcomes: Record<string, number>;
}

/** One import with its progress and problem rows, in one D1 round trip. Needs catalog.write. */
export async function importProgress(ctx: Ctx, jobId: string): Promise<ImportProgress> {
  requirePermission(ctx, "catalog.write");
  const [jobs, counts, problems, outcomes] = await runBatch(ctx.db, [
    ctx.db.select().from(importJobs).where(eq(importJobs.id, jobId)).limit(1),
    ctx.db
      .select({ status: importRows.status, n: sql<number>`count(*)` })
      .from(importRows)
      .where(eq(importRows.jobId, jobId))
      .groupBy(importRows.status),
    ctx.db
      .select({ row: importRows.row, slug: importRows.slug, action: importRows.action, status: importRows.status, errors: importRows.errors })
      .from(importRows)
      .where(and(eq(importRows.jobId, jobId), sql`json_array_length(${importRows.errors}) > 0`))
      .orderBy(asc(importRows.row))
      .limit(200),
    ctx.db
      .select({ outcome: importRows.outcome, n: sql<number>`count(*)` })
      .from(importRows)
      .where(and(eq(importRows.jobId, jobId), sql`${importRows.outcome} IS NOT NULL`))
      .groupBy(importRows.outcome),
  ]);
  if (!jobs[0]) throw notFound("IMPORT_NOT_FOUND", "Import", jobId, "jobId");
  const byStatus = { PENDING: 0, DONE: 0, FAILED: 0, SKIPPED: 0 } as Record<ImportRow["status"], number>;
  for (const c of counts) byStatus[c.status] = c.n;
  return { job: jobs[0], counts: byStatus, problems, outcomes: Object.fromEntries(outcomes.map((o) => [o.outcome!, o.n])) };
}

/** The latest imports (for the import page's list). Needs catalog.write. */
export async function recentImports(
  ctx: Ctx,
  limit = 10,
): Promise<Pick<ImportJob, "id" | "fileName" | "status" | "createdBy" | "createdDate" | "totalRows" | "summary">[]> {
  requirePermission(ctx, "catalog.write");
  return ctx.db
    .select({
      id: importJobs.id,
      fileName: importJobs.fileName,
      status: importJobs.status,
      createdBy: importJobs.createdBy,
      createdDate: importJobs.createdDate,
      totalRows: importJobs.totalRows,
      summary: importJobs.summary,
    })
    .from(importJobs)
    .orderBy(desc(importJobs.createdDate))
    .limit(limit);
}
