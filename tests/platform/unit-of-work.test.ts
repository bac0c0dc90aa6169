import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { commit, outboxInsert, outboxInsertIfChanged, type EventEnvelope } from "#worker/events/outbox";
import { outbox } from "#worker/events/tables";
import { openDb } from "#worker/platform/db";
import { newId } from "#worker/platform/ids";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * One unit of work everywhere: services run their statements through runBatch (typed results) or the bus's commit
 * (batch, then flush the events it wrote), never db.batch or flushEvents themselves.
 */

/** Where the rule's calls belong: the unit of work, the D1 client it wraps, and the bus with its re-send sweep. */
const BATCH_HOMES = ["/worker/platform/unit-of-work.ts", "/worker/platform/db.ts"];
const FLUSH_HOMES = ["/worker/events/outbox.ts", "/worker/events/acks.ts"];

const sources = import.meta.glob<string>("/worker/**/*.ts", { query: "?raw", import: "default", eager: true });

/** The files among `sources` whose code (comments left out) matches `pattern`, outside `homes`. */
function offenders(pattern: RegExp, homes: string[]): string[] {
  return Object.entries(sources)
    .filter(([file]) => !homes.includes(file))
    .filter(([, text]) => pattern.test(text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1")))
    .map(([file]) => file)
    .sort();
}

describe("the unit-of-work rule", () => {
  it("reads the worker's sources", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(Object.keys(sources)).toContain("/worker/platform/unit-of-work.ts");
  });

  it("has no .batch( call outside the unit of work", () => {
    expect(offenders(/\.batch\(/, BATCH_HOMES)).toEqual([]);
  });

  it("has no flushEvents( call outside the event bus", () => {
    expect(offenders(/\bflushEvents\(/, FLUSH_HOMES)).toEqual([]);
  });
});

const db = () => openDb(env.DB);

const event = (entityId: string): EventEnvelope => ({
  id: newId(),
  type: "test.unit_of_work",
  entityId,
  eventTime: new Date().toISOString(),
  actor: { type: "APP", id: "unit-of-work-test" },
  data: { entityId },
});

const outboxRow = (id: string) => env.DB.prepare("SELECT flushed_at FROM outbox WHERE id = ?").bind(id).first<{ flushed_at: string | null }>();

/** Every event put on the EVENTS queue while the test runs. */
const sent: EventEnvelope[] = [];
const queue = env.EVENTS as Queue;
const originalSend = queue.sendBatch;
queue.sendBatch = async (messages, options) => {
  const list = [...messages];
  sent.push(...list.map((m) => m.body as EventEnvelope));
  return originalSend.call(queue, list, options);
};
afterEach(() => {
  sent.length = 0;
});

describe("runBatch", () => {
  it("returns each statement's result, typed by its position", async () => {
    const e = event(newId());
    const [inserted, rows] = await runBatch(db(), [
      outboxInsert(db(), e),
      db().select({ id: outbox.id, type: outbox.type }).from(outbox).where(eq(outbox.id, e.id)),
    ]);
    expectTypeOf(rows).toEqualTypeOf<{ id: string; type: string }[]>();
    expect(inserted.meta.changes).toBe(1);
    expect(rows).toEqual([{ id: e.id, type: "test.unit_of_work" }]);
  });

  it("runs a built-up list, and does nothing with an empty one", async () => {
    const e = event(newId());
    const results = await runBatch(db(), [outboxInsert(db(), e)].slice(0));
    expect(results).toHaveLength(1);
    expect(await runBatch(db(), [])).toEqual([]);
  });
});

describe("commit", () => {
  it("runs the batch, then flushes its events to the queue and marks them flushed", async () => {
    const e = event(newId());
    const [inserted] = await commit({ db: db(), env }, [outboxInsert(db(), e)], [e]);
    expect(inserted.meta.changes).toBe(1);
    expect(sent.map((s) => s.id)).toEqual([e.id]);
    expect((await outboxRow(e.id))?.flushed_at).toBeTruthy();
  });

  it("hands the flush to waitUntil when the scope has one", async () => {
    const e = event(newId());
    const deferred: Promise<unknown>[] = [];
    await commit({ db: db(), env, waitUntil: (p) => void deferred.push(p) }, [outboxInsert(db(), e)], [e]);
    expect(deferred).toHaveLength(1);
    await Promise.all(deferred);
    expect(sent.map((s) => s.id)).toEqual([e.id]);
  });

  it("flushes only the events its results say happened", async () => {
    const e = event(newId());
    const missing = newId();
    const results = await commit({ db: db(), env }, [db().delete(outbox).where(eq(outbox.id, missing)), outboxInsertIfChanged(db(), e)], (r) =>
      r[0].meta.changes ? [e] : [],
    );
    expect(results[0].meta.changes).toBe(0);
    expect(sent).toEqual([]);
    expect(await outboxRow(e.id)).toBeNull();
  });

  it("does nothing with an empty list of statements", async () => {
    const e = event(newId());
    expect(await commit({ db: db(), env }, [], [e])).toEqual([]);
    expect(sent).toEqual([]);
  });
});
