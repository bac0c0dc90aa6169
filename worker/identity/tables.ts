import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Merchant API keys created in the console. Only the SHA-256 of a key is stored; the key is shown once. */
export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  /** OWNER or STAFF */
  role: text("role", { enum: ["OWNER", "STAFF"] }).notNull(),
  createdDate: text("created_date").notNull(),
  revokedDate: text("revoked_date"),
});
