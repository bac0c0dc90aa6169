import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Merchant API keys created by the owner. Only the SHA-256 of a key is stored; the key is shown once. */
export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  /** The key's first characters (`sk_` and 6 more), so the owner can tell keys apart; null for keys made before. */
  keyPrefix: text("key_prefix"),
  /** OWNER or STAFF */
  role: text("role", { enum: ["OWNER", "STAFF"] }).notNull(),
  /**
   * A STAFF key's permissions (platform/context.ts PERMISSIONS); an OWNER key holds all. Keys made before keys had
   * permissions keep the merchant work they were made for, without members.impersonate (this default).
   */
  permissions: text("permissions", { mode: "json" })
    .$type<string[]>()
    .notNull()
    .default(["catalog.write", "inventory.write", "orders.write", "automations.manage", "settings.manage"]),
  createdDate: text("created_date").notNull(),
  revokedDate: text("revoked_date"),
});

/**
 * Identities: members, and the store's owner and staff (role). Passwords are stored only as PBKDF2 hashes in the
 * self-describing form `pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>`.
 */
export const identities = sqliteTable(
  "identities",
  {
    id: text("id").primaryKey(),
    /** Lower-cased login email (unique). */
    email: text("email").notNull().unique(),
    passwordHash: text("password_hash"),
    status: text("status", { enum: ["PENDING", "ACTIVE", "DELETED", "BLOCKED", "OFFLINE"] }).notNull(),
    /** Why a PENDING identity waits: EMAIL_VERIFICATION_REQUIRED and/or ADMIN_APPROVAL_REQUIRED. */
    pendingReasons: text("pending_reasons", { mode: "json" }).$type<string[]>().notNull().default([]),
    role: text("role", { enum: ["MEMBER", "OWNER", "STAFF"] })
      .notNull()
      .default("MEMBER"),
    /** A staff member's permissions (platform/context.ts PERMISSIONS), granted by the owner; empty for others. */
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull().default([]),
    emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
    /** identityProfile: firstName, lastName, nickname, emails, phones, addresses, customFields. */
    profile: text("profile", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    /** Set when the owner requires a password reset (login answers -19973). */
    passwordResetRequired: integer("password_reset_required", { mode: "boolean" }).notNull().default(false),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
    lastLoginDate: text("last_login_date"),
    /**
     * Raised by a password change or reset and by "sign out everywhere": tokens and console sessions carry the value
     * they were issued under, and stop working once it is raised.
     */
    sessionGeneration: integer("session_generation").notNull().default(0),
  },
  (t) => [index("identities_role_idx").on(t.role), index("identities_role_email_idx").on(t.role, t.email)],
);

/** OAuth clients: the store's own storefront client and headless clients, with their allowed redirect URIs. */
export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** Development only: accept any redirect URI (refused when ENVIRONMENT is production). */
  allowAnyRedirect: integer("allow_any_redirect", { mode: "boolean" }).notNull().default(false),
  /** A headless site's server: visitor tokens it may mint per client address and window (null: the default limit). */
  visitorTokenBudget: integer("visitor_token_budget"),
  createdDate: text("created_date").notNull(),
});

/**
 * One-time tokens (authorization codes, session tokens, recovery links, verification states). They live in D1, not
 * KV, because using one must be atomic: `DELETE … RETURNING` hands a token to exactly one caller. Stored by hash.
 */
export const oneTimeTokens = sqliteTable(
  "one_time_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind", { enum: ["auth_code", "auth_request", "session", "recovery", "verification", "activation", "logout", "handover"] }).notNull(),
    identityId: text("identity_id"),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    expiresAt: text("expires_at").notNull(),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("one_time_tokens_identity_idx").on(t.identityId, t.kind)],
);
