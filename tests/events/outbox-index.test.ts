import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unflushedRowsOf } from "#worker/events/outbox";
import { outbox } from "#worker/events/tables";
import { openDb } from "#worker/platform/db";
import { queryPlan } from "../helpers";

/**
 * After a write, its events are read back from the outbox by id (those still unflushed) and sent. That read must
 * cost the same whatever the backlog: by the primary key, never through the index of unflushed rows, which holds
 * every event the queue has not taken yet (all of them, while the queue is down).
 */
describe("the outbox read of a request's own events", () => {
  it("finds them by id, not by walking the unflushed rows", async () => {
    const p = await queryPlan(
      openDb(env.DB)
        .select()
        .from(outbox)
        .where(unflushedRowsOf(["e-1", "e-2"])),
    );
    expect(p).toMatch(/SEARCH outbox USING (COVERING )?INDEX sqlite_autoindex_outbox_1 \(id=\?\)/);
    expect(p).not.toContain("outbox_unflushed_idx");
    expect(p).not.toMatch(/SCAN outbox\b/);
  });
});
