import { data, useNavigation } from "react-router";
import { inventoryOverview } from "#worker/catalog";
import { ApiError } from "#worker/platform/errors";
import { ADJUST_WORDING, adjustStock, saveStock } from "#web/components/console/inventory/stock.server";
import { AdjustForm, History, StockForm } from "#web/components/console/inventory/stock";
import { Pager } from "#web/components/console/pager";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf, readForm } from "#web/components/ui/form.server";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-inventory.css";
import type { Route } from "./+types/item";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.item ? `Stock of ${d.item.name} — Console` : "Stock — Console",
);

const HISTORY_PAGE = 25;

/** One product's stock and a page of its history: one batch (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request, params }: Route.LoaderArgs) => {
  const page = Math.min(Math.max(1, Math.floor(Number(new URL(request.url).searchParams.get("page")) || 1)), 10_000);
  try {
    const overview = await inventoryOverview(context.services, params.productId, { limit: HISTORY_PAGE, offset: (page - 1) * HISTORY_PAGE });
    return { ...overview, page, pages: Math.max(1, Math.ceil(overview.metadata.total / HISTORY_PAGE)) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such product.", { status: 404 });
    throw err;
  }
});

type ActionResult = { ok: string | null; intent: string; problem: Problem | null; values: Record<string, string> | null };

/**
 * Saves the stock form or adjusts one variant by an amount, each with the merchant's reason, through the inventory
 * service (inventory.write; back-in-stock requests and low-stock tasks follow as they do for the API). A refused
 * change writes nothing.
 */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  try {
    if (intent === "save") {
      await saveStock(context.services, params.productId, form);
      return { ok: "Stock saved.", intent, problem: null, values: null } satisfies ActionResult;
    }
    if (intent === "adjust") return { ok: await adjustStock(context.services, params.productId, form), intent, problem: null, values: null };
    throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
  } catch (err) {
    const problem = problemOf(err, intent === "adjust" ? ADJUST_WORDING : CONSOLE);
    return data({ ok: null, intent, problem, values: readForm(form, ["intent"]) } satisfies ActionResult, { status: problem.status ?? 400 });
  }
});

export default function InventoryItem({ loaderData, actionData }: Route.ComponentProps) {
  const { item, changes, page, pages } = loaderData;
  const canWrite = useCan("inventory.write");
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : "";
  const result = actionData as ActionResult | undefined;
  const saveResult = result?.intent === "save" ? result : null;
  const adjustResult = result?.intent === "adjust" ? result : null;
  return (
    <>
      <PageHead title={`Stock of ${item.name}`} back={["/console/inventory", "Inventory"]} />
      <Notice text={result?.ok} />
      {!canWrite && <p className="console-muted">Changing stock needs the permission to “Change stock” from the store owner.</p>}
      {result?.problem && !canWrite && <ErrorSummary problem={result.problem} />}
      <StockForm item={item} result={saveResult} busy={busy === "save"} />
      {canWrite && item.trackInventory && (
        <AdjustForm item={item} problem={adjustResult?.problem} values={adjustResult?.values} busy={busy === "adjust"} />
      )}
      <History item={item} changes={changes} />
      <Pager page={page} pages={pages} label="Pages of history" previous="← Newer" next="Older →" />
    </>
  );
}
