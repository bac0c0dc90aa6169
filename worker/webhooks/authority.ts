import { sql } from "drizzle-orm";
import { OWNER_KEY_ID, apiKeys, identities } from "#worker/identity";
import { badField, forbidden, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { hasPermission, isPermission, PERMISSIONS, type Auth, type Ctx, type Permission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { type EventRegistry, EventType, type SourceConfigurer } from "#worker/events";
import { emittedEventTypes, incomingEventType, INCOMING_EVENT_TYPES } from "./event-types";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * What an incoming webhook source may do: the event types it may send (only types the shop takes from outside),
 * bounded by the permissions of whoever configured it. Creating, re-keying or widening a source needs each
 * permission its types need (a source allowed `inventory.updated` changes stock: inventory.write), and every
 * event is applied only if that person still holds them.
 */

/** What the webhooks need to know of the queue's registry: which types something here handles or validates. */
export type KnownEvents = Pick<EventRegistry, "processors" | "payloadSchemas">;

/** Whether the shop knows this type as its own: emitted, handled or validated here, and not taken from outside. */
function isInternal(type: string, { payloadSchemas, processors }: KnownEvents): boolean {
  if (incomingEventType(type)) return false;
  return (
    emittedEventTypes().includes(type) ||
    (Object.values(EventType) as string[]).includes(type) ||
    type in payloadSchemas ||
    processors.some((p) => p.types !== "*" && p.types.includes(type))
  );
}

/** A source's allowed types, checked: each one the shop takes from outside (400 on the first bad one, by index). */
export function checkSourceEventTypes(types: string[], known: KnownEvents, field = "eventTypes"): string[] {
  const allowed = INCOMING_EVENT_TYPES.map((t) => t.type);
  if (types.length === 0) throw badField(field, `must name at least one event type (allowed: ${allowed.join(", ")})`, "MIN_SIZE", { allowed });
  const violations: FieldViolation[] = [];
  types.forEach((type, i) => {
    if (incomingEventType(type)) return;
    const description = isInternal(type, known)
      ? `${type} is an internal event type: the shop emits it itself and never takes it from a webhook (allowed: ${allowed.join(", ")})`
      : `${type} is not an event type the shop takes from a webhook (allowed: ${allowed.join(", ")})`;
    violations.push({ field: `${field}[${i}]`, description, violatedRule: "INVALID_ENUM_VALUE", data: { allowed } });
  });
  if (violations.length) throw invalidArgument(violations);
  return [...new Set(types)];
}

/** The permissions these types need of whoever configures a source allowed them. */
export const permissionsFor = (types: readonly string[]): Permission[] => [...new Set(types.flatMap((t) => incomingEventType(t)?.permission ?? []))];

/** 403 unless the caller holds every permission the types need (besides automations.manage, checked before). */
export function requireSourcePermissions(ctx: Ctx, types: readonly string[], doing: string): void {
  for (const permission of permissionsFor(types)) {
    if (hasPermission(ctx.auth, permission)) continue;
    const needing = types.filter((t) => incomingEventType(t)?.permission === permission);
    throw forbidden(
      `To ${doing} a source that may send ${needing.join(", ")} you need the ${permission} permission as well, which the store owner has not granted you`,
    );
  }
}

/** The caller as a source's configurer: who, and the permissions they hold now. */
export function configurerOf(auth: Auth): SourceConfigurer {
  const date = new Date().toISOString();
  if (auth.kind === "apiKey") return { kind: "apiKey", id: auth.keyId, role: auth.role, permissions: [...PERMISSIONS], date };
  if (auth.kind === "member" && auth.role !== "MEMBER") {
    return { kind: "member", id: auth.identityId, role: auth.role, permissions: PERMISSIONS.filter((p) => hasPermission(auth, p)), date };
  }
  throw forbidden("Only the store's owner, staff or an API key can configure a webhook source");
}

/** A configurer's identity row and API key row as configurerReads reads them. */
export type IdentityNow = { role: "MEMBER" | "OWNER" | "STAFF"; status: string; permissions: string[] };
export type KeyNow = { role: "OWNER" | "STAFF"; revokedDate: string | null };

/** The configurer's rights as they are now, from their identity or API key row: null when revoked or no longer staff. */
function currentAuth(c: SourceConfigurer, identity: IdentityNow | undefined, key: KeyNow | undefined): Auth | null {
  if (c.kind === "apiKey") {
    if (c.id === OWNER_KEY_ID) return { kind: "apiKey", keyId: c.id, role: "OWNER" };
    return key && !key.revokedDate ? { kind: "apiKey", keyId: c.id, role: key.role } : null;
  }
  if (!identity || identity.role === "MEMBER" || identity.status === "BLOCKED" || identity.status === "DELETED") return null;
  return {
    kind: "member",
    identityId: c.id,
    visitorId: c.id,
    clientId: "",
    role: identity.role,
    permissions: identity.permissions.filter(isPermission),
  };
}

/**
 * The reads of a source's configurer as they are now (their identity row, their API key row), keyed by the id the
 * source records, so they can join the batch that reads the source itself.
 */
export function configurerReads(db: Db, sourceId: string) {
  const configuredId = sql`(SELECT json_extract(configured_by, '$.id') FROM webhook_sources WHERE id = ${sourceId})`;
  return [
    db
      .select({ role: identities.role, status: identities.status, permissions: identities.permissions })
      .from(identities)
      .where(sql`${identities.id} = ${configuredId}`),
    db.select({ role: apiKeys.role, revokedDate: apiKeys.revokedDate }).from(apiKeys).where(sql`${apiKeys.id} = ${configuredId}`),
  ] as const;
}

/**
 * Why a source may not apply an event of this type now, or null when it may: the type's permission must have been
 * held by the configurer when they configured the source, and still be held by them (`identity` and `key` are
 * the configurer's rows as configurerReads gives them).
 */
export function authorityProblem(
  configurer: SourceConfigurer | null,
  type: string,
  identity: IdentityNow | undefined,
  key: KeyNow | undefined,
): string | null {
  const permission = incomingEventType(type)?.permission;
  if (!permission) return null;
  const confirm = `someone with ${permission} must rotate its key or save its event types to take it on`;
  if (!configurer) return `${type} needs ${permission}, and nobody is recorded as having configured this source: ${confirm}`;
  const who =
    configurer.kind === "apiKey" ? `API key ${configurer.id}` : `${configurer.role === "OWNER" ? "owner" : "staff member"} ${configurer.id}`;
  if (!configurer.permissions.includes(permission))
    return `${type} needs ${permission}, which ${who} did not hold when configuring this source: ${confirm}`;
  const now = currentAuth(configurer, identity, key);
  if (!now) return `${type} needs ${permission}, and ${who}, who configured this source, is no longer staff or was revoked: ${confirm}`;
  if (!hasPermission(now, permission)) return `${type} needs ${permission}, which ${who}, who configured this source, no longer holds: ${confirm}`;
  return null;
}

/** authorityProblem for one source, reading its configurer's rows now (one D1 round trip, none when no permission is needed). */
export async function sourceAuthorityProblem(
  db: Db,
  source: { id: string; configuredBy: SourceConfigurer | null },
  type: string,
): Promise<string | null> {
  if (!incomingEventType(type)?.permission || !source.configuredBy) return authorityProblem(source.configuredBy, type, undefined, undefined);
  const [[identity], [key]] = await runBatch(db, configurerReads(db, source.id));
  return authorityProblem(source.configuredBy, type, identity, key);
}
