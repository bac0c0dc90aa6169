import type { EventEnvelope } from "#worker/events";

/**
 * The Wix webhook envelope: a JWT whose `data` claim is a JSON string holding
 * `{ data: <JSON string of the payload>, instanceId, eventType, identity: <JSON string> }`.
 */

/** The identity claim of an event's actor, in the SDK's words. */
export function wixIdentity(actor: EventEnvelope["actor"]): Record<string, string> {
  const id = actor.id ?? "";
  switch (actor.type) {
    case "MEMBER":
      return { identityType: "MEMBER", memberId: id };
    case "SITE_USER":
      return { identityType: "WIX_USER", wixUserId: id };
    case "APP":
      return { identityType: "APP", appId: id };
    default:
      return { identityType: "ANONYMOUS_VISITOR", anonymousVisitorId: id };
  }
}

/**
 * The payload the SDK hands to the event's handler. Domain events (data with `entityFqdn`, e.g. the cart's
 * `wix.ecom.v1.*`) carry their id, entity id and event time in the payload; plain events (the catalogue's) are the
 * data as it is.
 */
export function wixPayload(event: EventEnvelope): Record<string, unknown> {
  if (typeof event.data.entityFqdn === "string") return { id: event.id, entityId: event.entityId, eventTime: event.eventTime, ...event.data };
  return event.data;
}

/** The JWT claims of an outgoing event in the Wix format, valid for ten minutes from `nowSeconds`. */
export function wixClaims(event: EventEnvelope, instanceId: string, nowSeconds: number): Record<string, unknown> {
  const data = JSON.stringify({
    data: JSON.stringify(wixPayload(event)),
    instanceId,
    eventType: event.type,
    identity: JSON.stringify(wixIdentity(event.actor)),
  });
  return { data, iat: nowSeconds, exp: nowSeconds + 600 };
}

export type WixParse =
  | { ok: true; eventType: string; payload: Record<string, unknown>; instanceId: string | null }
  | { ok: false; field: string; description: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Unwraps the JSON-in-JSON envelope of verified JWT claims; says which field is malformed when it cannot. */
export function parseWixClaims(claims: Record<string, unknown>): WixParse {
  if (typeof claims.data !== "string") return { ok: false, field: "data", description: "must be a JSON string (the Wix envelope)" };
  let outer: unknown;
  try {
    outer = JSON.parse(claims.data);
  } catch {
    return { ok: false, field: "data", description: "is not valid JSON" };
  }
  if (!isObject(outer)) return { ok: false, field: "data", description: "must be a JSON object" };
  if (typeof outer.eventType !== "string" || outer.eventType.trim() === "") return { ok: false, field: "data.eventType", description: "is required" };
  if (typeof outer.data !== "string") return { ok: false, field: "data.data", description: "must be a JSON string (the event payload)" };
  let payload: unknown;
  try {
    payload = JSON.parse(outer.data);
  } catch {
    return { ok: false, field: "data.data", description: "is not valid JSON" };
  }
  if (!isObject(payload)) return { ok: false, field: "data.data", description: "must be a JSON object" };
  return { ok: true, eventType: outer.eventType, payload, instanceId: typeof outer.instanceId === "string" ? outer.instanceId : null };
}
