import {
  addOrderNote,
  cancelOrder,
  createFulfillment,
  fulfillmentRequest,
  markAsPaid,
  refundOrder,
  refundRequest,
  setRefundStatus,
} from "#worker/orders";
import { requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, badField } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";

/** The order page's changes (its forms' `intent`). */
export type OrderIntent = "mark-paid" | "fulfil" | "cancel" | "refund" | "refund-payment" | "note";

/**
 * The form indexes of a form's lines that have a quantity (lines left empty or at 0 are not sent); `key` is the
 * line's id field (`id` in the fulfil form, `lineItemId` in the refund form).
 */
function sentLines(values: Record<string, string>, key = "id"): number[] {
  const sent: number[] = [];
  for (let i = 0; `lineItems[${i}].${key}` in values; i++) {
    const quantity = (values[`lineItems[${i}].quantity`] ?? "").trim();
    if (quantity !== "" && Number(quantity) !== 0) sent.push(i);
  }
  return sent;
}

/** The fulfil form (`lineItems[i].id` / `.quantity` per line left to ship, `trackingInfo.*`) as a request. */
function fulfilmentOf(values: Record<string, string>) {
  const lineItems = sentLines(values).map((i) => ({ id: values[`lineItems[${i}].id`], quantity: Number(values[`lineItems[${i}].quantity`]) }));
  if (lineItems.length === 0) throw new ApiError(400, "NOTHING_TO_SHIP", "Enter how many of at least one item you are shipping");
  const trackingInfo = Object.fromEntries(
    (["trackingNumber", "shippingProvider", "trackingLink"] as const).map((k) => [k, (values[`trackingInfo.${k}`] ?? "").trim() || null]),
  );
  return { lineItems, trackingInfo };
}

/**
 * A service field path as the fulfil (or, with key `lineItemId`, the refund) form's input: the request's k-th line
 * is the k-th line sent, and an error about a whole line shows at its quantity.
 */
export function fulfilFieldOf(values: Record<string, string>, key = "id") {
  const sent = sentLines(values, key);
  return (path: string) => {
    const line = /^lineItems\[(\d+)\]/.exec(path);
    return { name: line ? `lineItems[${sent[Number(line[1])] ?? line[1]}].quantity` : path };
  };
}

/** The refund form as a refund request: everything left, or the items entered and/or an amount; restock when ticked. */
function refundOf(values: Record<string, string>) {
  if (values.confirm !== "yes") throw badField("confirm", "Tick to confirm that the money goes back to the buyer", "REQUIRED_FIELD");
  const restock = values.restock === "on";
  if (values.all === "on") return { restock };
  const lineItems = sentLines(values, "lineItemId").map((i) => ({
    lineItemId: values[`lineItems[${i}].lineItemId`],
    quantity: Number(values[`lineItems[${i}].quantity`]),
  }));
  const amount = (values.amount ?? "").trim();
  if (lineItems.length === 0 && amount === "") {
    throw new ApiError(400, "NOTHING_TO_REFUND", "Enter how many of an item to refund, an amount, or tick “Refund everything left”");
  }
  return { ...(lineItems.length ? { lineItems } : {}), ...(amount ? { amount } : {}), restock: restock && lineItems.length > 0 };
}

/** A refund request's field path as the refund form's input. */
export const refundFieldOf = (values: Record<string, string>) => fulfilFieldOf(values, "lineItemId");

/**
 * Runs one change through the orders service (which checks orders.write, guards the order's state, and writes the
 * activity and the event in one batch) and says what was done.
 */
export async function changeOrder(ctx: Ctx, id: string, intent: OrderIntent, values: Record<string, string>): Promise<string> {
  switch (intent) {
    case "mark-paid":
      await markAsPaid(ctx, id);
      return "Marked as paid.";
    case "fulfil": {
      const fulfilment = fulfilmentOf(values);
      await createFulfillment(ctx, id, parseWith(fulfillmentRequest, fulfilment));
      const number = fulfilment.trackingInfo.trackingNumber;
      return number ? `Shipped, with tracking number ${number}.` : "Shipped.";
    }
    case "cancel":
      await cancelOrder(ctx, id, { restockAllItems: values.restock === "on" });
      return values.restock === "on" ? "Cancelled; the items are back in stock." : "Cancelled.";
    case "refund-payment": {
      requirePermission(ctx, "orders.write");
      const { refund } = await refundOrder(ctx, id, parseWith(refundRequest, refundOf(values)));
      return refund.status === "PENDING"
        ? `Refund of ${refund.amount.formattedAmount} sent; the payment provider has not completed it yet.`
        : `Refunded ${refund.amount.formattedAmount}.`;
    }
    case "refund": {
      const status = values.status === "FULLY_REFUNDED" ? "FULLY_REFUNDED" : "PARTIALLY_REFUNDED";
      await setRefundStatus(ctx, id, status);
      return status === "FULLY_REFUNDED" ? "Recorded as fully refunded." : "Recorded as partly refunded.";
    }
    case "note":
      await addOrderNote(ctx, id, { activity: { merchantComment: { message: values["activity.merchantComment.message"] ?? "" } } });
      return "Note added.";
    default:
      throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
  }
}
