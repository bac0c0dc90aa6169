import { sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "#worker/platform/db";

/**
 * Picks a free slug in a table: `base`, or `base-2`, `base-3`… (one query). `exceptId` ignores the row being renamed.
 * Not LIKE: D1 refuses LIKE patterns over 50 bytes (local workerd does not), and a slug may be up to 100.
 */
export async function freeSlug(db: Db, table: { slug: SQLiteColumn; id: SQLiteColumn }, base: string, exceptId?: string): Promise<string> {
  const rows = (await db
    .select({ slug: table.slug, id: table.id })
    .from(table.slug.table)
    .where(sql`${table.slug} = ${base} OR substr(${table.slug}, 1, ${base.length + 1}) = ${`${base}-`}`)) as { slug: string; id: string }[];
  const taken = new Set(rows.filter((r) => r.id !== exceptId).map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
