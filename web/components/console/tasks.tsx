/**
 * The merchant's tasks in the console: each kind in words, and where its subject lives (the entity id a task
 * carries is a cart's abandoned checkout, a product, a webhook subscription, an import job or an order, by kind).
 */

export const TASK_KINDS: Record<string, { label: string; subject: (id: string) => { to: string; text: string } }> = {
  ABANDONED_CART: { label: "High-value abandoned cart", subject: (id) => ({ to: `/console/automations/carts/${id}`, text: "Open the cart" }) },
  LOW_STOCK: { label: "Low stock", subject: (id) => ({ to: `/console/inventory/${id}`, text: "Open the product's stock" }) },
  WEBHOOK_DISABLED: { label: "Disabled webhook", subject: (id) => ({ to: `/console/webhooks/subscriptions/${id}`, text: "Open the subscription" }) },
  IMPORT_FAILED: { label: "Failed import", subject: (id) => ({ to: `/console/products/import/${id}`, text: "Open the import" }) },
  UNPAID_ORDER_CANCELED: { label: "Unpaid order canceled", subject: (id) => ({ to: `/console/orders/${id}`, text: "Open the order" }) },
};

export function taskKindLabel(kind: string): string {
  return (
    TASK_KINDS[kind]?.label ??
    kind
      .replace(/_/g, " ")
      .toLowerCase()
      .replace(/^./, (c) => c.toUpperCase())
  );
}

/** The link to what the task is about, or null when the kind or the id is unknown. */
export function taskSubject(kind: string, entityId: string | null): { to: string; text: string } | null {
  const k = TASK_KINDS[kind];
  return k && entityId ? k.subject(encodeURIComponent(entityId)) : null;
}
