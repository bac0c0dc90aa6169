import { decrementInventory, decrementRequest, incrementInventory, incrementRequest, updateInventoryItem, updateRequest } from "#worker/catalog";
import type { Ctx } from "#worker/platform/context";
import { parseWith } from "#worker/platform/validation";
import { CONSOLE, type ProblemWording } from "#web/components/ui/form.server";

/**
 * The stock page's two forms as inventory service calls. The stock form's inputs are named by the update call's
 * field paths (inventoryItem.variants[2].quantity), so its refusals land on them as they are; the adjust form's one
 * amount stands for either call's count.
 */

/** A whole number as typed, or the text itself so the request's check names it. */
function int(v: FormDataEntryValue | null): number | string {
  const t = String(v ?? "").trim();
  return /^-?\d+$/.test(t) ? Number(t) : t;
}

/** The most variants one stock form carries. */
const MAX_VARIANTS = 1000;

/** Saves the stock form: tracking, each variant's quantity or in-stock flag, preorder, with the merchant's reason. */
export async function saveStock(ctx: Ctx, productId: string, form: FormData): Promise<void> {
  const track = form.get("inventoryItem.trackQuantity") === "on";
  const variants = [];
  for (let i = 0; i < MAX_VARIANTS && form.has(`inventoryItem.variants[${i}].variantId`); i++) {
    const at = (field: string) => form.get(`inventoryItem.variants[${i}].${field}`);
    const variantId = String(at("variantId"));
    variants.push(track ? { variantId, quantity: int(at("quantity")) } : { variantId, inStock: at("inStock") === "on" });
  }
  const limit = String(form.get("inventoryItem.preorderInfo.limit") ?? "").trim();
  const body = parseWith(updateRequest, {
    inventoryItem: {
      trackQuantity: track,
      variants,
      preorderInfo: {
        enabled: form.get("inventoryItem.preorderInfo.enabled") === "on",
        message: String(form.get("inventoryItem.preorderInfo.message") ?? "").trim() || null,
        limit: limit === "" ? null : int(limit),
      },
    },
    reason: String(form.get("reason") ?? "").trim() || undefined,
  });
  await updateInventoryItem(ctx, productId, body.inventoryItem, body.reason || null);
}

/** Adds or removes an amount of one variant (the API's own bodies check it: 1..99,999 units, a reason up to 500 characters). */
export async function adjustStock(ctx: Ctx, productId: string, form: FormData): Promise<string> {
  const by = int(form.get("amount"));
  const variantId = String(form.get("variantId") ?? "");
  const reason = String(form.get("reason") ?? "").trim() || undefined;
  if (form.get("direction") === "remove") {
    const body = parseWith(decrementRequest, { decrementData: [{ productId, variantId, decrementBy: by }], reason });
    await decrementInventory(ctx, [{ productId, variantId, by: by as number }], body.reason || null);
    return `Removed ${by}.`;
  }
  const body = parseWith(incrementRequest, { incrementData: [{ productId, variantId, incrementBy: by }], reason });
  await incrementInventory(ctx, [{ productId, variantId, by: by as number }], body.reason || null);
  return `Added ${by}.`;
}

/** How the adjust form words a refusal: either call's count is its one amount. */
export const ADJUST_WORDING: ProblemWording = {
  ...CONSOLE,
  fieldOf: (path) => ({ name: /^(in|de)crementData\[0\]\.(in|de)crementBy$/.test(path) ? "amount" : path }),
};
