import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import {
  decrementInventory,
  decrementRequest,
  incrementInventory,
  incrementRequest,
  inventoryOverview,
  updateInventoryItem,
  updateRequest,
} from "#worker/catalog";
import { ApiError } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { Badge } from "#web/components/console/badge";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-inventory.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/item";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.item ? `Stock of ${d.item.name} — Console` : "Stock — Console") }];
}

export const headers = () => consoleHeaders;

const HISTORY_PAGE = 25;

/** One product's stock and a page of its history: one batch (2 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const page = Math.min(Math.max(1, Math.floor(Number(new URL(request.url).searchParams.get("page")) || 1)), 10_000);
  try {
    const overview = await inventoryOverview(context.services, params.productId, { limit: HISTORY_PAGE, offset: (page - 1) * HISTORY_PAGE });
    return { ...overview, page, pages: Math.max(1, Math.ceil(overview.metadata.total / HISTORY_PAGE)) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such product.", { status: 404 });
    throw err;
  }
}

/**
 * Saves the stock form (tracking, each variant's quantity or in-stock flag, preorder) or adjusts one variant by an
 * amount, each with the merchant's reason, through the inventory service (inventory.write; back-in-stock requests and
 * low-stock tasks follow as they do for the API). A refused change writes nothing.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const id = params.productId;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = Object.fromEntries([...form].map(([k, v]) => [k, String(v)]));
  const reason = String(form.get("reason") ?? "").trim() || undefined;
  const int = (v: FormDataEntryValue | null) => {
    const t = String(v ?? "").trim();
    return /^-?\d+$/.test(t) ? Number(t) : t;
  };
  try {
    if (intent === "save") {
      const track = form.get("track") === "on";
      const variantIds = [...form.keys()].filter((k) => k.startsWith("variant:")).map((k) => k.slice(8));
      const body = parseWith(updateRequest, {
        inventoryItem: {
          trackQuantity: track,
          variants: variantIds.map((v) =>
            track ? { variantId: v, quantity: int(form.get(`qty:${v}`)) } : { variantId: v, inStock: form.get(`instock:${v}`) === "on" },
          ),
          preorderInfo: {
            enabled: form.get("preorder") === "on",
            message: String(form.get("preorderMessage") ?? "").trim() || null,
            limit: String(form.get("preorderLimit") ?? "").trim() === "" ? null : int(form.get("preorderLimit")),
          },
        },
        reason,
      });
      await updateInventoryItem(ctx, id, body.inventoryItem, body.reason || null);
      return { ok: "Stock saved.", intent, problem: null, values: {} as Record<string, string> };
    }
    if (intent === "adjust") {
      const by = int(form.get("amount"));
      const variantId = String(form.get("variantId") ?? "");
      if (form.get("direction") === "remove") {
        // Checked against the API's own body (1..99,999 units, reason up to 500 characters).
        const body = parseWith(decrementRequest, { decrementData: [{ productId: id, variantId, decrementBy: by }], reason });
        await decrementInventory(ctx, [{ productId: id, variantId, by: by as number }], body.reason || null);
      } else {
        const body = parseWith(incrementRequest, { incrementData: [{ productId: id, variantId, incrementBy: by }], reason });
        await incrementInventory(ctx, [{ productId: id, variantId, by: by as number }], body.reason || null);
      }
      return {
        ok: `${form.get("direction") === "remove" ? "Removed" : "Added"} ${by}.`,
        intent,
        problem: null,
        values: {} as Record<string, string>,
      };
    }
    throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    return data({ ok: null, intent, problem, values }, { status: problem.status ?? 400 });
  }
}

const CAUSES: Record<string, string> = { ORDER: "Order", MANUAL: "Manual", REVERT_INVENTORY_CHANGE: "Order cancelled (restocked)" };

export default function InventoryItem({ loaderData, actionData }: Route.ComponentProps) {
  const { item, changes, page, pages } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canWrite = !!user?.permissions.includes("inventory.write");
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : "";
  const result = actionData;
  const values = result?.values ?? {};
  const saveProblem = result?.intent === "save" ? result.problem : null;
  const adjustProblem = result?.intent === "adjust" ? result.problem : null;
  const variantName = (id: string | null) => {
    const v = item.variants.find((x) => x.id === id);
    return v ? Object.values(v.choices).join(" / ") || "Default" : "—";
  };
  // The stock form's field errors: inventoryItem.variants[i] is the i-th variant of the form, in the page's order.
  const fieldIds: Record<string, string> = {
    "inventoryItem.preorderInfo.limit": "stock-preorder-limit",
    "inventoryItem.preorderInfo.message": "stock-preorder-message",
    reason: "stock-reason",
  };
  item.variants.forEach((v, i) => (fieldIds[`inventoryItem.variants[${i}].quantity`] = `stock-qty-${v.id}`));
  const saveError = (field: string) => saveProblem?.fields[field];
  return (
    <>
      <p>
        <Link to="/console/inventory">← Inventory</Link>
      </p>
      <h1>Stock of {item.name}</h1>
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {!canWrite && <p className="console-muted">Changing stock needs the permission to “Change stock” from the store owner.</p>}
      {result?.problem && !canWrite && <ErrorSummary problem={result.problem} />}

      <Form method="post" className="console-form inventory-form" aria-label="Stock" noValidate>
        <ErrorSummary problem={saveProblem} fieldIds={fieldIds} />
        <input type="hidden" name="intent" value="save" />
        <label className="console-check">
          <input
            type="checkbox"
            name="track"
            defaultChecked={values.intent === "save" ? values.track === "on" : item.trackInventory}
            disabled={!canWrite}
          />{" "}
          Track quantities (each sale counts down; off: set in stock or out by hand)
        </label>
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Variants</caption>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col">{item.trackInventory ? "Quantity" : "In stock"}</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {item.variants.map((v, i) => {
                const err = saveError(`inventoryItem.variants[${i}].quantity`);
                return (
                  <tr key={v.id}>
                    <th scope="row">
                      <input type="hidden" name={`variant:${v.id}`} value="1" />
                      {Object.values(v.choices).join(" / ") || "Default"}
                      {!v.visible && <span className="console-muted"> (hidden)</span>}
                    </th>
                    <td>
                      {item.trackInventory ? (
                        <>
                          <label className="visually-hidden" htmlFor={`stock-qty-${v.id}`}>
                            Quantity of {Object.values(v.choices).join(" / ") || "the product"}
                          </label>
                          <input
                            id={`stock-qty-${v.id}`}
                            className="inventory-number"
                            name={`qty:${v.id}`}
                            inputMode="numeric"
                            defaultValue={values[`qty:${v.id}`] ?? String(v.quantity ?? 0)}
                            disabled={!canWrite}
                            aria-invalid={err ? true : undefined}
                            aria-describedby={err ? `stock-qty-${v.id}-error` : undefined}
                          />
                          <FieldError id={`stock-qty-${v.id}-error`} message={err} />
                        </>
                      ) : (
                        <label className="console-check">
                          <input type="checkbox" name={`instock:${v.id}`} defaultChecked={v.inStock} disabled={!canWrite} /> In stock
                        </label>
                      )}
                    </td>
                    <td>
                      <Badge tone={v.inStock ? "good" : v.availableForPreorder ? "warn" : "bad"}>
                        {v.inStock ? "In stock" : v.availableForPreorder ? "Preorder" : "Out of stock"}
                      </Badge>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <fieldset>
          <legend>Preorder</legend>
          <label className="console-check">
            <input type="checkbox" name="preorder" defaultChecked={item.preorder.enabled} disabled={!canWrite} /> Keep selling when out of stock
            (tracked quantities only)
          </label>
          <div className="console-row">
            <div className="console-field">
              <label htmlFor="stock-preorder-message">Message to shoppers</label>
              <input
                id="stock-preorder-message"
                name="preorderMessage"
                maxLength={250}
                defaultValue={values.preorderMessage ?? item.preorder.message ?? ""}
                disabled={!canWrite}
              />
              <FieldError id="stock-preorder-message-error" message={saveError("inventoryItem.preorderInfo.message")} />
            </div>
            <div className="console-field">
              <label htmlFor="stock-preorder-limit">Most to sell below zero</label>
              <input
                id="stock-preorder-limit"
                name="preorderLimit"
                inputMode="numeric"
                className="inventory-number"
                defaultValue={values.preorderLimit ?? (item.preorder.limit === null ? "" : String(item.preorder.limit))}
                disabled={!canWrite}
                aria-invalid={saveError("inventoryItem.preorderInfo.limit") ? true : undefined}
                aria-describedby={saveError("inventoryItem.preorderInfo.limit") ? "stock-preorder-limit-error" : undefined}
              />
              <FieldError id="stock-preorder-limit-error" message={saveError("inventoryItem.preorderInfo.limit")} />
            </div>
          </div>
        </fieldset>
        {canWrite && (
          <div className="console-actions">
            <div className="console-field">
              <label htmlFor="stock-reason">Reason (kept in the history)</label>
              <input id="stock-reason" name="reason" maxLength={500} defaultValue={values.intent === "save" ? values.reason : ""} />
            </div>
            <button type="submit" className="console-button primary" disabled={busy === "save"}>
              {busy === "save" ? "Saving…" : "Save stock"}
            </button>
          </div>
        )}
      </Form>

      {canWrite && item.trackInventory && (
        <Form method="post" className="console-toolbar inventory-adjust" aria-label="Adjust stock" noValidate>
          <h2 className="inventory-adjust-title">Adjust by an amount</h2>
          <ErrorSummary
            problem={adjustProblem}
            fieldIds={{ "incrementData[0].incrementBy": "adjust-amount", "decrementData[0].decrementBy": "adjust-amount" }}
          />
          <input type="hidden" name="intent" value="adjust" />
          <div className="console-field">
            <label htmlFor="adjust-variant">Variant</label>
            <select id="adjust-variant" name="variantId" defaultValue={values.variantId ?? item.variants[0]?.id}>
              {item.variants.map((v) => (
                <option key={v.id} value={v.id}>
                  {Object.values(v.choices).join(" / ") || "Default"} ({v.quantity ?? 0})
                </option>
              ))}
            </select>
          </div>
          <div className="console-field">
            <label htmlFor="adjust-direction">Change</label>
            <select id="adjust-direction" name="direction" defaultValue={values.direction ?? "add"}>
              <option value="add">Add (received)</option>
              <option value="remove">Remove (damaged, lost, counted)</option>
            </select>
          </div>
          <div className="console-field">
            <label htmlFor="adjust-amount">Amount</label>
            <input
              id="adjust-amount"
              name="amount"
              inputMode="numeric"
              className="inventory-number"
              defaultValue={values.amount ?? ""}
              aria-invalid={adjustProblem ? true : undefined}
              aria-describedby={adjustProblem ? "adjust-amount-error" : undefined}
            />
            <FieldError
              id="adjust-amount-error"
              message={adjustProblem?.fields["incrementData[0].incrementBy"] ?? adjustProblem?.fields["decrementData[0].decrementBy"]}
            />
          </div>
          <div className="console-field">
            <label htmlFor="adjust-reason">Reason</label>
            <input id="adjust-reason" name="reason" maxLength={500} defaultValue={values.intent === "adjust" ? values.reason : ""} />
          </div>
          <button type="submit" className="console-button" disabled={busy === "adjust"}>
            Apply
          </button>
        </Form>
      )}

      <h2 id="stock-history">History</h2>
      {changes.length === 0 ? (
        <p className="console-muted">No stock changes yet.</p>
      ) : (
        <div className="console-scroll">
          <table className="console-table" aria-labelledby="stock-history">
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Variant</th>
                <th scope="col" className="num">
                  Change
                </th>
                <th scope="col" className="num">
                  After
                </th>
                <th scope="col">Cause</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c) => (
                <tr key={c.id}>
                  <td>{c.createdDate.slice(0, 16).replace("T", " ")}</td>
                  <td>{variantName(c.variantId)}</td>
                  <td className="num">{c.delta === null ? "—" : c.delta > 0 ? `+${c.delta}` : String(c.delta)}</td>
                  <td className="num">{c.quantityAfter ?? (c.inStockAfter ? "In stock" : "Out")}</td>
                  <td>
                    {c.orderId ? <Link to={`/console/orders/${c.orderId}`}>{CAUSES[c.cause] ?? c.cause}</Link> : (CAUSES[c.cause] ?? c.cause)}
                    {c.actor.type === "APP" ? <span className="console-muted"> (webhook or app)</span> : null}
                  </td>
                  <td>{c.reason ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of history" previous="← Newer" next="Older →" />
    </>
  );
}
