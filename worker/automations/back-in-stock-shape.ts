import type { backInStockRequests } from "./tables";

/** A back-in-stock request's wire shape and its domain events' data. */

export interface BackInStockRequestShape {
  id: string;
  email: string;
  catalogReference: { appId: string; catalogItemId: string; options?: Record<string, unknown> };
  status: "RECEIVED" | "PROCESSING" | "NOTIFICATION_SENT" | "FAILED";
  autoNotified?: boolean;
  createdDate: string;
  updatedDate: string;
  itemUrl?: string;
  itemDetails?: Record<string, unknown>;
  /** Why it FAILED (an extension of the Wix shape). */
  failureReason?: string;
}

export interface CreateBackInStockInput {
  email: string;
  catalogReference: { appId?: string; catalogItemId: string; options?: { variantId?: string } & Record<string, unknown> };
  itemUrl?: string;
  itemDetails?: Record<string, unknown>;
}

/** Shopper requests per address and per client address (a form anyone may post). */
export type BackInStockRow = typeof backInStockRequests.$inferSelect;

export function shape(r: BackInStockRow): BackInStockRequestShape {
  return {
    id: r.id,
    email: r.email,
    catalogReference: { appId: r.appId, catalogItemId: r.catalogItemId, ...(r.variantId ? { options: { variantId: r.variantId } } : {}) },
    status: r.status,
    ...(r.autoNotified !== null ? { autoNotified: r.autoNotified } : {}),
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
    ...(r.itemUrl ? { itemUrl: r.itemUrl } : {}),
    ...(r.itemDetails ? { itemDetails: r.itemDetails } : {}),
    ...(r.reason ? { failureReason: r.reason } : {}),
  };
}

/** Wix domain-event data: `{entityId, entityFqdn, slug, createdEvent | updatedEvent | deletedEvent}`. */
export function domainEvent(slug: "created" | "updated" | "deleted", entity: BackInStockRequestShape) {
  const base = { entityId: entity.id, entityFqdn: "wix.ecom.v1.back_in_stock_notification_request", slug };
  if (slug === "created") return { ...base, createdEvent: { entity } };
  if (slug === "updated") return { ...base, updatedEvent: { currentEntity: entity } };
  return { ...base, deletedEvent: { deletedEntity: entity } };
}
